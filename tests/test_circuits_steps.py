"""Lesson 15's single steps (``xai_tf.circuits.steps``) against independent references: a loop for the
mean, the whole model's ablation, hand-made logits, and a metric that is linear in the activation."""

import pytest
import torch

from xai_tf import circuits as C
from xai_tf.circuits.induction import token_losses
from xai_tf.circuits.steps import first_order_estimate, mean_ablate, normalised_logit_difference


def test_mean_ablate_is_the_mean_over_batch_and_positions_computed_by_a_loop():
    z = torch.randn(3, 4, 5, 2, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    before = z.clone()
    out = mean_ablate(z, 2)
    B, _, T, _ = z.shape
    mean = sum(z[b, 2, t] for b in range(B) for t in range(T)) / (B * T)
    for b in range(B):
        for t in range(T):
            torch.testing.assert_close(out[b, 2, t], mean)
    torch.testing.assert_close(out[:, [0, 1, 3]], z[:, [0, 1, 3]], rtol=0, atol=0)
    assert torch.equal(z, before)  # a copy: the model's tensor is left alone


def test_mean_ablate_in_a_hook_is_ablate_head(bundled):
    ids = C.repeated_tokens(bundled, 5, batch=2, seed=1)
    with torch.no_grad():
        mine = token_losses(bundled(ids, hooks={("z", 3): lambda z: mean_ablate(z, 1)}), ids)
    torch.testing.assert_close(mine, C.ablate_head(bundled, ids, 3, 1, "mean"))


def test_normalised_logit_difference_on_hand_made_logits():
    logits = torch.zeros(2, 3, 5)
    logits[0, -1, 1], logits[0, -1, 4] = 3.0, 1.0  # LD = 2: half way from −2 to 6
    logits[1, -1, 1], logits[1, -1, 4] = 6.0, 0.0  # LD = 6: the clean run
    logits[:, 0, 1] = 100.0  # the first position does not count
    got = normalised_logit_difference(logits, 1, 4, ld_clean=6.0, ld_corrupted=-2.0)
    torch.testing.assert_close(got, torch.tensor([0.5, 1.0]))


def test_first_order_estimate_is_exact_for_a_linear_metric_and_first_order_otherwise():
    g = torch.Generator().manual_seed(2)
    a_target, a_source = torch.randn(2, 4, 3, 6, generator=g, dtype=torch.float64)
    w = torch.randn(6, generator=g, dtype=torch.float64)
    for m, exact_order in ((lambda a: a @ w + 0.5, 0), (lambda a: torch.tanh(a @ w), 2)):
        a = a_target.clone().requires_grad_(True)
        (grad,) = torch.autograd.grad(m(a).sum(), a)
        for t in (1.0, 0.1):  # a step 10 times shorter: the error falls about 100 times
            source = a_target + t * (a_source - a_target)
            err = (first_order_estimate(m(a_target), source, a_target, grad) - m(source)).abs().max()
            if exact_order == 0:
                assert err < 1e-12
            elif t == 1.0:
                big = err
            else:
                assert big > 1e-3 and err < big * 0.03  # second order in the step


def test_the_corrupted_name_keeps_the_prompts_length_in_tokens(bundled):
    """Patching lines the prompts up position by position (lesson 15); a model of one's own may split names
    differently, so the corrupted name is the first candidate of the clean prompt's length."""
    from xai_tf.circuits.prompts import same_length_name

    text = "Enter Romeo and Juliet. Good night, good night, sweet"
    other = same_length_name(bundled, text, "Romeo", ("Macbeth", "Hamlet", "Lear"))
    assert len(bundled.encode(text.replace("Romeo", other))) == len(bundled.encode(text))
    assert bundled.tokenizer.encode(f" {other}")[0] != bundled.tokenizer.encode(" Romeo")[0]
    lengths = {n: len(bundled.encode(text.replace("Romeo", n))) for n in ("Macbeth", "Hamlet", "Lear")}
    assert other == next(
        n for n, k in lengths.items() if k == len(bundled.encode(text))
    )  # the first that fits
    with pytest.raises(ValueError, match="none of the candidates"):
        same_length_name(bundled, text, "Romeo", ("Romeo",))  # the same first token: no logit difference
