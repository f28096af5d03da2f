"""Claims of lesson 15 (circuits) about the bundled model, re-run through the lesson's helpers.

Section 1 and 3 claims depend on the random tokens drawn (``repeated_tokens(seed=…)``) and are checked
for every seed of ``SEEDS``; the section 4–5 claims are about two fixed prompts and the shipped weights
(deterministic computations, no draw), so they are checked once. Measured over seeds 0–7 before writing
the prose: largest induction score 0.0138–0.0141, largest previous-token score 0.177–0.195, second-half
minus first-half loss +0.16…+0.48 nats, mean-ablated second-half loss 0.07–0.18 nats below the
unablated one."""

from __future__ import annotations

import pytest
import torch
from claims import SEEDS

import xai_tf
from xai_tf import circuits

HALF = 50


@pytest.fixture(scope="module")
def lm():
    return xai_tf.load_model("shakespeare")


@pytest.mark.claims
@pytest.mark.parametrize("seed", SEEDS)
def test_the_bundled_model_has_no_induction_head(lm, seed):
    """'no head's induction score exceeds 0.015, the largest previous-token score stays below 0.25,
    the second half's loss is higher than the first's'; and 'mean-ablating the head with the largest
    induction score lowers the second half's loss a little'."""
    ids = circuits.repeated_tokens(lm, HALF, batch=8, seed=seed)
    loss = circuits.per_token_loss(lm, ids)
    pattern = circuits.attention_patterns(lm, ids)
    induction = circuits.induction_scores(pattern)
    assert induction.max() < 0.015
    assert circuits.previous_token_scores(pattern).max() < 0.25
    assert loss[:, HALF:].mean() > loss[:, : HALF - 1].mean()
    top = divmod(int(induction.argmax()), lm.n_head)
    ablated = circuits.ablate_head(lm, ids, *top, how="mean")
    assert ablated[:, HALF:].mean() < loss[:, HALF:].mean()


@pytest.mark.claims
def test_composition_of_the_previous_token_head(lm):
    """'Three of the four heads of the last layer score 20 or more standard deviations above chance
    (one scores below it)' — the writer is the head with the largest previous-token score (4.1 on
    every seed measured); the baseline's draws are seeded, so this runs once at the default seed."""
    ids = circuits.repeated_tokens(lm, HALF, batch=8, seed=0)
    previous = circuits.previous_token_scores(circuits.attention_patterns(lm, ids))
    writer = divmod(int(previous.argmax()), lm.n_head)
    _, W_OV = circuits.qk_ov(lm, *writer)
    chance, spread = circuits.k_composition_baseline(lm.d_model, lm.d_model // lm.n_head, samples=200, seed=0)
    z = [
        (circuits.k_composition(circuits.qk_ov(lm, lm.n_layer - 1, h)[0], W_OV).item() - chance) / spread
        for h in range(lm.n_head)
    ]
    assert writer[0] == lm.n_layer - 2
    assert sum(s >= 20 for s in z) == 3 and sum(s < 0 for s in z) == 1


@pytest.mark.claims
def test_patching_and_its_attribution_estimate_on_the_worked_pair(lm):
    """Sections 4-5 (fixed prompts, deterministic): denoising the stream at layer 0 restores the answer
    at the corrupted token's position and, by the last layer, at the last position; attribution
    patching correlates ≥ 0.99 with exact patching on every grid, every grid's worst cell is in layers
    0-1, and the largest error is resid_pre noising at layer 0, position 1 (exact 0.00, estimate 0.27)."""
    clean = torch.tensor([lm.encode("Enter Romeo and Juliet. Good night, good night, sweet")])
    corrupted = torch.tensor([lm.encode("Enter Hamlet and Juliet. Good night, good night, sweet")])
    metric = circuits.logit_difference_metric(
        lm, clean, corrupted, lm.encode(" Romeo")[0], lm.encode(" Hamlet")[0]
    )
    worst = {}
    for component in circuits.COMPONENTS:
        for direction in ("denoising", "noising"):
            exact = circuits.activation_patching(lm, clean, corrupted, metric, component, direction)
            estimate = circuits.attribution_patching(lm, clean, corrupted, metric, component, direction)
            assert torch.corrcoef(torch.stack([exact.flatten(), estimate.flatten()]))[0, 1] >= 0.99
            err = (estimate - exact).abs()
            worst[component, direction] = (err.max().item(), divmod(int(err.argmax()), exact.size(1)))
            assert worst[component, direction][1][0] <= 1
            if (component, direction) == ("resid_pre", "denoising"):
                assert exact[0, 1] > 0.99 and exact[-1, -1] > 0.9 and exact[0].argmax() == 1
            if (component, direction) == ("resid_pre", "noising"):
                assert abs(exact[0, 1]) < 0.005 and abs(estimate[0, 1] - 0.27) < 0.005
    assert max(worst, key=lambda k: worst[k][0]) == ("resid_pre", "noising")
    assert worst["resid_pre", "noising"][1] == (0, 1)
