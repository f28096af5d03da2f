"""Lessons 10 and 11's exercises (issue 55): each checker names the typical mistakes (a wrong solution per
mistake, its message asserted) and passes loops written into float32 tables; lesson 10's formulas on plain
weights (``xai_tf.sae.formulas``) against the SparseAutoencoder module and written-out loops."""

import pytest
import torch
from test_exercises import _rejects_with

from xai_tf.exercises import rationales, sae
from xai_tf.sae import formulas
from xai_tf.sae.model import SAEConfig, SparseAutoencoder, feature_activations, sae_loss
from xai_tf.sae.steer import clamp_hook


def _relu_dec(h, W_enc, b_enc):
    return torch.relu(h @ W_enc.T) + b_enc


def _clamp_reconstruction(h, W_enc, b_enc, W_dec, j, v):  # s′(h) without the error term (b_dec left out)
    a = torch.relu(h @ W_enc.T + b_enc)
    a[:, j] = v
    return a @ W_dec.T


def _clamp_add_v(h, W_enc, b_enc, W_dec, j, v):
    return h + v * W_dec[:, j]


def _clamp_no_relu(h, W_enc, b_enc, W_dec, j, v):
    return h + (v - (h @ W_enc[j] + b_enc[j]))[:, None] * W_dec[:, j]


def _fvu_per_coordinate(h, s):
    return (((h - s) ** 2).sum(0) / ((h - h.mean(0)) ** 2).sum(0)).mean()


@pytest.mark.parametrize(
    ("checker", "fn", "message"),
    [
        (sae.check_sae_encode, lambda h, W, b: h @ W.T + b, "negative codes: apply the ReLU"),
        (sae.check_sae_encode, lambda h, W, b: torch.relu(h @ W.T), "b_enc is missing"),
        (sae.check_sae_encode, _relu_dec, "b_enc was added after the ReLU"),
        (sae.check_sae_encode, lambda h, W, b: torch.relu(h @ W + b), r"a has shape \(6, 4\)|raised"),
        (sae.check_l0, lambda a: float((a >= 0).sum(-1).float().mean()), "count the codes a_j > 0"),
        (sae.check_l0, lambda a: a.sum(-1).mean(), r"an L1 norm"),
        (sae.check_l0, lambda a: (a > 0).sum(), "average the count over the rows"),
        (sae.check_l0, lambda a: (a > 0).float().mean(), "do not divide by F"),
        (sae.check_l0, lambda a: None, "L0 is None: did you forget to `return` it"),
        (sae.check_fvu, lambda h, s: ((h - s) ** 2).sum() / (h**2).sum(), "subtract the mean row"),
        (
            sae.check_fvu,
            lambda h, s: 1 - ((h - s) ** 2).sum() / ((h - h.mean(0)) ** 2).sum(),
            "variance explained, 1 − FVU",
        ),
        (sae.check_fvu, _fvu_per_coordinate, "not the mean of per-coordinate ratios"),
        (sae.check_fvu, lambda h, s: ((h - s) ** 2).mean(), "the squared error alone"),
        (sae.check_clamp, _clamp_reconstruction, "keep the error term"),
        (sae.check_clamp, _clamp_add_v, r"add \(v − a_j\(h\)\) W_dec\[:, j\], not v W_dec"),
        (sae.check_clamp, _clamp_no_relu, "a negative pre-activation is a code of 0"),
    ],
)
def test_lesson_10_checkers_name_the_mistake(checker, fn, message, capsys):
    _rejects_with(checker, fn, message, capsys)


def _encode_loop(h, W_enc, b_enc):
    out = torch.zeros(h.size(0), W_enc.size(0))
    for i in range(h.size(0)):
        for j in range(W_enc.size(0)):
            out[i, j] = max(0.0, float(W_enc[j] @ h[i] + b_enc[j]))
    return out


def _l0_loop(a):
    return sum(sum(1 for x in row if x > 0) for row in a.tolist()) / len(a)


def _fvu_loop(h, s):
    mean = h.mean(0)
    num = sum(float(((h[i] - s[i]) ** 2).sum()) for i in range(len(h)))
    return torch.tensor(
        num / sum(float(((h[i] - mean) ** 2).sum()) for i in range(len(h))), dtype=torch.float32
    )


def _clamp_loop(h, W_enc, b_enc, W_dec, j, v):
    out = h.float().clone()
    for i in range(h.size(0)):
        a_j = max(0.0, float(W_enc[j] @ h[i] + b_enc[j]))
        out[i] += (v - a_j) * W_dec[:, j].float()
    return out


@pytest.mark.parametrize(
    ("checker", "loop"),
    [
        (sae.check_sae_encode, _encode_loop),
        (sae.check_l0, _l0_loop),
        (sae.check_fvu, _fvu_loop),
        (sae.check_clamp, _clamp_loop),
    ],
)
def test_lesson_10_checkers_pass_loops_into_float32_tables(checker, loop, capsys):
    assert checker(loop), capsys.readouterr().out


def _sae(seed=0, d=5, F=15):
    torch.manual_seed(seed)
    model = SparseAutoencoder(SAEConfig(d=d, F=F, lam=0.5), dtype=torch.float64)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn_like(p))
    return model


def _weights(model):
    return tuple(p.detach() for p in (model.W_enc, model.b_enc, model.W_dec, model.b_dec))


def test_formulas_agree_with_the_sparse_autoencoder_module():
    model = _sae()
    W_enc, b_enc, W_dec, b_dec = _weights(model)
    h = torch.randn(7, 5, dtype=torch.float64)
    with torch.no_grad():
        assert torch.allclose(formulas.encode(h, W_enc, b_enc), model.encode(h), atol=1e-12)
        assert torch.allclose(formulas.loss(h, W_enc, b_enc, W_dec, b_dec, 0.3), sae_loss(model, h, 0.3))
        assert torch.allclose(
            formulas.feature_activation(h, W_enc, b_enc, W_dec), feature_activations(model, h), atol=1e-12
        )


def test_the_clamp_is_the_reconstruction_plus_the_error_written_out():
    """h′ = s′(h) + (h − s(h)), computed the long way, row by row; and the library's hook at scale 1."""
    model = _sae(1)
    W_enc, b_enc, W_dec, b_dec = _weights(model)
    h = torch.randn(6, 5, dtype=torch.float64)
    for j, v in ((3, 2.5), (7, 0.0)):
        rows = []
        for x in h:
            a = torch.relu(W_enc @ x + b_enc)
            clamped = a.clone()
            clamped[j] = v
            rows.append((W_dec @ clamped + b_dec) + (x - (W_dec @ a + b_dec)))
        want = torch.stack(rows)
        assert torch.allclose(formulas.clamp(h, W_enc, b_enc, W_dec, j, v), want, atol=1e-10)
        with torch.no_grad():
            assert torch.allclose(clamp_hook(model, j, v)(h), want, atol=1e-10)


# --- lesson 11 ---------------------------------------------------------------------------------------------


def _erase(m, ids, rationale, keep):
    """m(x)_j − m(x')_j, x' the words of r (keep) or the rest, with the switchable mistakes below."""
    words = [w for t, w in enumerate(ids) if (t in rationale) == keep]
    p = m(ids)
    return float(p[p.argmax()] - m(words)[p.argmax()])


def _comp_class_after(m, ids, rationale):  # j taken on the erased sentence
    left = m([w for t, w in enumerate(ids) if t not in rationale])
    return float(m(ids)[left.argmax()] - left[left.argmax()])


def _suff_unordered(m, ids, rationale):  # r's words in the order the rationale lists them
    p = m(ids)
    return float(p[p.argmax()] - m([ids[t] for t in rationale])[p.argmax()])


def _aopc_variant(m, ids, scores, which, order="high", bins="share", divide=5, floor=True):
    T = len(ids)
    cap = T - 1 if which == "comprehensiveness" else T
    shares = (0.01, 0.05, 0.10, 0.20, 0.50)
    ks = [min(round(b * 100) if bins == "count" else max(int(floor), round(b * T)), cap) for b in shares]
    ranked = scores.argsort(descending=order == "high").tolist()
    p = m(ids)
    j = int(p.argmax())
    total = 0.0
    for k in ks:
        top = ranked[:k]
        kept = [w for t, w in enumerate(ids) if (t in top) == (which == "sufficiency")]
        total += float(p[j] - m(kept)[j]) if k or which == "sufficiency" else 0.0
    return total / divide


def _reinforce_variant(phi, f, z, baseline, mistake):
    p = torch.sigmoid(phi)
    g = {"sign": p - z, "logit": z - phi, "right": z - p}.get(mistake, z - p)
    b = 0.0 if mistake == "no baseline" else baseline
    if mistake == "grad P":
        return (f(z) - b) * torch.prod(torch.where(z > 0, p, 1 - p)) * (z - p)
    if mistake == "log P":
        return ((f(z) - b) * torch.where(z > 0, p, 1 - p).log().sum()).expand(len(phi))
    return (f(z) - b) * g


@pytest.mark.parametrize(
    ("checker", "fn", "message"),
    [
        (
            rationales.check_comprehensiveness,
            lambda m, ids, r: -_erase(m, ids, r, keep=False),
            "the sign is reversed",
        ),
        (
            rationales.check_comprehensiveness,
            lambda m, ids, r: _erase(m, ids, r, keep=True),
            r"that is sufficiency \(r kept alone\): comprehensiveness deletes r's words",
        ),
        (
            rationales.check_comprehensiveness,
            _comp_class_after,
            "j is the class predicted on the full sentence",
        ),
        (
            rationales.check_comprehensiveness,
            lambda m, ids, r: None,
            "returned None: did you forget to `return`",
        ),
        (
            rationales.check_sufficiency,
            lambda m, ids, r: -_erase(m, ids, r, keep=True),
            "the sign is reversed",
        ),
        (
            rationales.check_sufficiency,
            lambda m, ids, r: _erase(m, ids, r, keep=False),
            "that is comprehensiveness: sufficiency keeps only r's words",
        ),
        (rationales.check_sufficiency, _suff_unordered, "keep r's words in their sentence order"),
        (
            rationales.check_aopc,
            lambda *a: _aopc_variant(*a, order="low"),
            r"the k words with the \*highest\* scores",
        ),
        (
            rationales.check_aopc,
            lambda *a: _aopc_variant(*a, divide=6),
            r"no k = 0 term \(divide by \|B\| = 5\)",
        ),
        (rationales.check_aopc, lambda *a: _aopc_variant(*a, floor=False), r"k = max\(1, round\(b · T\)\)"),
        (rationales.check_aopc, lambda *a: _aopc_variant(*a, bins="count"), "shares of the sentence"),
        (
            rationales.check_reinforce_estimate,
            lambda *a: _reinforce_variant(*a, "sign"),
            "yours has the opposite sign",
        ),
        (
            rationales.check_reinforce_estimate,
            lambda *a: _reinforce_variant(*a, "no baseline"),
            "subtract the baseline",
        ),
        (rationales.check_reinforce_estimate, lambda *a: _reinforce_variant(*a, "logit"), "not the logit φ"),
        (
            rationales.check_reinforce_estimate,
            lambda *a: _reinforce_variant(*a, "grad P"),
            r"∇P\(z\) / P\(z\)",
        ),
        (
            rationales.check_reinforce_estimate,
            lambda *a: _reinforce_variant(*a, "log P"),
            r"not by log P\(z\) itself",
        ),
    ],
)
def test_lesson_11_checkers_name_the_mistake(checker, fn, message, capsys):
    _rejects_with(checker, fn, message, capsys)


def _comprehensiveness_loop(m, ids, rationale):
    rest = []
    for t in range(len(ids)):
        if t not in rationale:
            rest.append(ids[t])
    full = m(ids).tolist()
    j = full.index(max(full))
    return torch.tensor(full[j] - m(rest).tolist()[j], dtype=torch.float32)


def _aopc_loop(m, ids, scores, which):
    values = []
    for b in (0.01, 0.05, 0.10, 0.20, 0.50):
        k = max(1, round(b * len(ids)))
        if which == "comprehensiveness":
            k = min(k, len(ids) - 1)
        order = sorted(range(len(ids)), key=lambda t: -float(scores[t]))
        chosen = sorted(order[:k])
        score = (
            rationales.eraser.comprehensiveness
            if which == "comprehensiveness"
            else rationales.eraser.sufficiency
        )
        values.append(score(m, ids, chosen))
    return sum(values) / len(values)


def _reinforce_autograd(phi, f, z, baseline):
    phi = phi.detach().float().requires_grad_(True)
    p = torch.sigmoid(phi)
    log_p = (z * p.log() + (1 - z) * (1 - p).log()).sum()
    (grad,) = torch.autograd.grad(log_p, phi)
    return (float(f(z)) - baseline) * grad


@pytest.mark.parametrize(
    ("checker", "loop"),
    [
        (rationales.check_comprehensiveness, _comprehensiveness_loop),
        (rationales.check_aopc, _aopc_loop),
        (rationales.check_reinforce_estimate, _reinforce_autograd),
    ],
)
def test_lesson_11_checkers_pass_other_correct_answers(checker, loop, capsys):
    assert checker(loop), capsys.readouterr().out
