"""Lesson 04's later checkers (issue 54): each names its typical mistakes, and accepts a right answer
written as a loop into a float32 table as well as vectorised (the lesson's own solutions, in every dtype,
are passed by test_exercises.py's generic tests)."""

import math

import pytest
import torch
from test_exercises import _rejects_with

from xai_tf.exercises import blocks
from xai_tf.explain.lens_track import final_token_probability
from xai_tf.transformer.kv_cache_size import kv_cache_size
from xai_tf.transformer.shifted_loss import shifted_cross_entropy


def _rotary_loop(x, positions, theta):
    """R_p x pair by pair, into a float32 table."""
    d_h, out = x.shape[-1], torch.zeros(x.shape, dtype=torch.float32)
    rows, table = x.reshape(-1, x.shape[-2], d_h), out.view(-1, x.shape[-2], d_h)
    for b in range(rows.shape[0]):
        for t, p in enumerate(positions.tolist()):
            for c in range(d_h // 2):
                phi = p * theta ** (-2 * c / d_h)
                u, v = float(rows[b, t, c]), float(rows[b, t, c + d_h // 2])
                table[b, t, c] = u * math.cos(phi) - v * math.sin(phi)
                table[b, t, c + d_h // 2] = v * math.cos(phi) + u * math.sin(phi)
    return out


def _rotary_adjacent(x, positions, theta):  # pairs (2c, 2c + 1), the original paper's layout
    d_h = x.shape[-1]
    angles = positions.double()[:, None] * theta ** (-2 * torch.arange(d_h // 2).double() / d_h)
    a, b = x.double()[..., 0::2], x.double()[..., 1::2]
    return torch.stack(
        [a * angles.cos() - b * angles.sin(), a * angles.sin() + b * angles.cos()], -1
    ).flatten(-2)


def _rotary_backwards(x, positions, theta):  # R_{−p}: the sine with the wrong sign
    return blocks.rope.rotary(x, -positions, theta)


def _rotary_half_exponent(x, positions, theta):  # θ^(−c/d_h): the 2 dropped
    d_h = x.shape[-1]
    angles = positions.double()[:, None] * theta ** (-torch.arange(d_h // 2).double() / d_h)
    x1, x2 = x.double().chunk(2, -1)
    return torch.cat([x1 * angles.cos() - x2 * angles.sin(), x2 * angles.cos() + x1 * angles.sin()], -1)


def _loss_loop(logits, ids):
    """−(1/(T−1)) Σ_t log p_t(x_{t+1}), one position at a time in plain Python."""
    rows, targets, total = logits.tolist(), ids.tolist(), 0.0
    for t in range(len(targets) - 1):
        log_norm = math.log(sum(math.exp(v) for v in rows[t]))
        total += log_norm - rows[t][targets[t + 1]]
    return torch.tensor(total / (len(targets) - 1), dtype=torch.float32)


def _lens_loop(z):
    """p_l row by row in plain Python, into a float32 table."""
    rows = z.tolist()
    top = max(range(len(rows[-1])), key=lambda v: rows[-1][v])
    return torch.tensor([math.exp(r[top]) / sum(math.exp(x) for x in r) for r in rows], dtype=torch.float32)


def _loss_unshifted(logits, ids):  # position t scored against its own token
    return torch.nn.functional.cross_entropy(logits, ids)


def _loss_sum(logits, ids):  # the lecture's L_sum
    return torch.nn.functional.cross_entropy(logits[:-1], ids[1:], reduction="sum")


@pytest.mark.parametrize(
    ("checker", "fn", "message"),
    [
        (blocks.check_rotary, _rotary_adjacent, r"adjacent pairs \(2c, 2c \+ 1\)"),
        (blocks.check_rotary, _rotary_backwards, "turns the wrong way"),
        (blocks.check_rotary, _rotary_half_exponent, r"the exponent needs the 2"),
        (blocks.check_rotary, lambda x, p, t: x, r"R_p x\[.*\] is"),
        (
            blocks.check_kv_cache_size,
            lambda L, T, H, H_kv, d_h, b: L * T * H_kv * d_h * b,
            "keys \\*and\\* values",
        ),
        (
            blocks.check_kv_cache_size,
            lambda L, T, H, H_kv, d_h, b: 2 * L * T * H * d_h * b,
            "not the H query heads",
        ),
        (blocks.check_kv_cache_size, lambda L, T, H, H_kv, d_h, b: 2 * L * T * H_kv * d_h, "counts numbers"),
        (blocks.check_kv_cache_size, lambda *a: [1], "should be a number, got list"),
        (
            blocks.check_final_token_probability,
            lambda z: z.softmax(-1).max(-1).values,
            "each layer's own top",
        ),
        (blocks.check_final_token_probability, lambda z: z[:, z[-1].argmax()], "those are logits"),
        (
            blocks.check_final_token_probability,
            lambda z: z.softmax(0)[:, z[-1].argmax()],
            r"over the layers \(dim 0\)",
        ),
        (blocks.check_shifted_cross_entropy, _loss_unshifted, r"position t predicts token t \+ 1"),
        (blocks.check_shifted_cross_entropy, _loss_sum, "the lecture's sum L_sum"),
        (
            blocks.check_shifted_cross_entropy,
            lambda z, i: -_loss_loop(z, i),
            r"the \*negative\* log-likelihood",
        ),
    ],
)
def test_lesson_04_checkers_name_the_mistake(checker, fn, message, capsys):
    _rejects_with(checker, fn, message, capsys)


@pytest.mark.parametrize(
    ("checker", "fn"),
    [
        (blocks.check_rotary, _rotary_loop),
        (blocks.check_shifted_cross_entropy, _loss_loop),
        (blocks.check_final_token_probability, _lens_loop),
    ],
)
def test_lesson_04_checkers_pass_loops_into_float32_tables(checker, fn, capsys):
    assert checker(fn), capsys.readouterr().out


def test_shifted_cross_entropy_is_the_mean_nll_of_each_next_token():
    g = torch.Generator().manual_seed(0)
    logits, ids = (
        torch.randn(9, 13, generator=g, dtype=torch.float64) * 3,
        torch.randint(13, (9,), generator=g),
    )
    assert math.isclose(
        shifted_cross_entropy(logits, ids).item(), _loss_loop(logits, ids).item(), rel_tol=1e-6
    )


def test_shifted_cross_entropy_equals_the_models_next_token_loss():
    """From the model's logits of the whole text it is ``next_token_loss``, which runs the model itself."""
    import xai_tf
    from xai_tf.tasks.language_model import next_token_loss

    lm = xai_tf.load_model("shakespeare", device="cpu")
    ids = torch.as_tensor(lm.encode("To be, or not to be, that is the question"))
    with torch.no_grad():
        logits = lm.model(ids)[0]
        assert math.isclose(
            shifted_cross_entropy(logits, ids).item(), next_token_loss(lm, ids).item(), rel_tol=1e-5
        )


def _cache_loop(L, T, H, H_kv, d_h, b):
    """One key and one value per layer, token, key/value head and dimension, counted as a float tensor."""
    count = sum(1 for _ in range(L) for _ in range(T) for _ in range(H_kv) for _ in ("k", "v"))
    return torch.tensor(float(count * d_h * b), dtype=torch.float32)


def test_kv_cache_checker_accepts_a_float_tensor_count(capsys):
    assert blocks.check_kv_cache_size(_cache_loop), capsys.readouterr().out


def test_kv_cache_size_is_what_a_decoded_cache_holds():
    """The formula against the bytes of the tensors a llama-shaped model's cache really holds."""
    import xai_tf
    from xai_tf.transformer import modern

    lm = xai_tf.load_model("shakespeare_llama", device="cpu")
    cache = modern.decoded_cache(lm, lm.encode("To be, or not"), 5)
    s, size = lm.sizes, next(lm.model.parameters()).element_size()
    assert s.n_kv_head < s.n_head  # grouped-query: H_kv matters
    formula = kv_cache_size(s.n_layer, len(cache), s.n_head, s.n_kv_head, s.d_head, size)
    assert formula == modern.cache_bytes(cache)


def test_final_token_probability_follows_the_logit_lens_of_the_model():
    """On the model's own lens its last entry is the top probability of the last layer, and each entry is
    that token's column of the lens's softmax."""
    import xai_tf
    from xai_tf.explain.lens import logit_lens

    lm = xai_tf.load_model("shakespeare", device="cpu")
    z = logit_lens(lm, lm.encode("ROMEO.\nBut soft, what light"))
    probs = z.softmax(-1)
    p = final_token_probability(z)
    assert p.shape == (z.shape[0],) and math.isclose(p[-1].item(), probs[-1].max().item(), rel_tol=1e-6)
    torch.testing.assert_close(p, probs[:, probs[-1].argmax()])
