"""Claims of lesson 15 (circuits) about the bundled model and the shipped 2-layer model, re-run through
the lesson's helpers.

Section 1 and 3 claims depend on the random tokens drawn (``repeated_tokens(seed=…)``) and are checked
for every seed of ``SEEDS``; the section 4–5 claims are about two fixed prompts and the shipped weights
(deterministic computations, no draw), so they are checked once. Bundled model, measured over 47 batches
(seeds 0–46, covering ``SEEDS`` at offsets 0–42; Intel Xeon, one thread): largest induction score
0.0139–0.0141 (bound 0.015), largest previous-token score 0.173–0.201 (bound 0.25), second-half minus
first-half loss +0.14…+0.56 nats (> 0); the head with the largest previous-token score was (4, 1) on 45
batches and (3, 0) on 2 (seeds 17 and 21)."""

from __future__ import annotations

import pytest
import torch
from claims import SEEDS

import xai_tf
from xai_tf import circuits
from xai_tf.circuits import shipped

HALF = 50


@pytest.fixture(scope="module")
def lm():
    return xai_tf.load_model("shakespeare")


@pytest.mark.claims
@pytest.mark.parametrize("seed", SEEDS)
def test_the_bundled_model_has_no_induction_head(lm, seed):
    """'no head's induction score exceeds 0.015, the largest previous-token score stays below 0.25,
    the second half's loss is higher than the first's'."""
    ids = circuits.repeated_tokens(lm, HALF, batch=8, seed=seed)
    loss = circuits.per_token_loss(lm, ids)
    pattern = circuits.attention_patterns(lm, ids)
    assert circuits.induction_scores(pattern).max() < 0.015
    assert circuits.previous_token_scores(pattern).max() < 0.25
    assert loss[:, HALF:].mean() > loss[:, : HALF - 1].mean()


@pytest.mark.claims
def test_mean_ablating_the_bundled_models_top_induction_head(lm):
    """'Mean-ablating the head with the largest induction score lowers the second half's loss a little
    on most batches and on average, not on every one'. Measured over 47 batches (seeds 0–46): ablated
    minus unablated second-half loss −0.284…+0.036 nats, above 0 on 2 (seeds 30 and 46), so a per-batch
    claim would fail; its mean over 5 consecutive seeds (every window of ``SEEDS`` at offsets 0–42)
    −0.168…−0.090. Bound on the mean over ``SEEDS``: < 0, beyond the worst window by more than a quarter
    of the windows' spread (−0.090 + 0.078 / 4 = −0.070)."""
    rises = []
    for seed in SEEDS:
        ids = circuits.repeated_tokens(lm, HALF, batch=8, seed=seed)
        loss = circuits.per_token_loss(lm, ids)
        induction = circuits.induction_scores(circuits.attention_patterns(lm, ids))
        top = divmod(int(induction.argmax()), lm.n_head)
        ablated = circuits.ablate_head(lm, ids, *top, how="mean")
        rises.append((ablated[:, HALF:].mean() - loss[:, HALF:].mean()).item())
    assert sum(rises) / len(rises) < 0


@pytest.mark.claims
@pytest.mark.parametrize("seed", SEEDS)
def test_composition_of_the_previous_token_head(lm, seed):
    """'the head with the largest previous-token score is (4, 1) on most batches and (3, 0) on some …
    with (4, 1) as the writer three of layer 5's heads score more than 15 sd above chance and the
    fourth below it; with (3, 0) every head of layers 4 and 5 scores more than 15 sd above'. The draws
    are the batch (which head writes) and the baseline's 200 random matrices (``seed``); the weights are
    fixed, so both writers are checked on every baseline. Measured over 30 baselines (seeds 0–29, Intel
    Xeon, one thread) before writing the prose: writer (4, 1): the weakest of the three 18.1–23.8 sd,
    the strongest 25.6–33.7, the fourth −12.1 to −9.2; bound 18.1 − (23.8 − 18.1) / 4 = 16.7 > 15, the
    fourth < 0. Writer (3, 0): the weakest head, (5, 3), 25.0–32.9 sd, the strongest, (4, 1),
    87.3–114.8; bound 25.0 − 7.9 / 4 = 23.0 > 15."""
    ids = circuits.repeated_tokens(lm, HALF, batch=8, seed=seed)
    previous = circuits.previous_token_scores(circuits.attention_patterns(lm, ids))
    assert divmod(int(previous.argmax()), lm.n_head) in ((4, 1), (3, 0))
    chance, spread = circuits.k_composition_baseline(
        lm.d_model, lm.d_model // lm.n_head, samples=200, seed=seed
    )

    def z(writer: tuple[int, int], layer: int) -> list[float]:
        _, W_OV = circuits.qk_ov(lm, *writer)
        return [
            (circuits.k_composition(circuits.qk_ov(lm, layer, h)[0], W_OV).item() - chance) / spread
            for h in range(lm.n_head)
        ]

    last = z((4, 1), 5)
    assert sum(s > 15 for s in last) == 3 and sum(s < 0 for s in last) == 1
    assert min(z((3, 0), 4) + z((3, 0), 5)) > 15


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


@pytest.fixture(scope="module")
def small():
    return shipped.induction_model()


@pytest.mark.claims
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", [8, 16])
def test_the_shipped_two_layer_model_has_an_induction_head(small, seed, n):
    """Section 1-3 claims about the shipped 2-layer model on fresh repeats (``repeated_tokens(seed=…)``)
    of a length seen in training (8) and one longer than any seen (16). The draw is the batch; the
    weights are fixed. Measured over 47 batches (seeds 0-46, covering SEEDS at offsets 0-42, and the
    lesson's 30 batches at offsets 0, 3 and 17; Intel Xeon, one thread) before writing the prose, and
    each bound put a quarter of the spread beyond the worst draw (DESIGN.md's margin rule). n = 8:
    layer-1 heads 0.558-0.677 (bound > 0.53; it was 0.54 when 30 batches had been measured), layer 0
    0.000, head (0, 0) 0.958-0.963 on the previous token (> 0.9), second-half loss 0.980-1.166
    (0.9-1.25) vs first half 3.414-3.536 (3.35-3.6), 2.521-2.688 with the top induction head
    mean-ablated (2.45-2.75). n = 16: layer-1 heads 0.240-0.377 (0.2-0.4, below the lesson's 0.4
    threshold), (0, 0) 0.872-0.881 (> 0.85), second-half loss 2.255-2.793 (2.1-2.95; was 2.15) vs
    3.539-3.676 (3.4-3.75; was 3.7), raised by 0.281-0.784 when ablated (> 0.15). The loss averaged over
    the batch and the window (not the curve's range, which is wider): positions 16-21 3.20-3.72
    (3.05-3.85; was 3.15), 26-30 0.54-1.43 (0.3-1.7; was 0.4-1.65), their difference 2.15-2.99 (> 1.9).
    C_K of (0, 0) into each layer-1 head 15.1-26.7 baseline sd above chance (> 14).

    A retrain is not in the suite: one training run takes 86 s on one quiet thread (199 s under load)
    (scripts/train_induction.py), ten of them (SEEDS at two offsets) far longer than a test should take;
    and whether the phase change comes within the run depends on the optimiser (with constant-rate Adam
    two runs did not reach it, see ``circuits.induction_training``), and even with the shipped recipe on
    the seed: retrained here with seeds 1 and 2 (290-311 s each), seed 1 grew induction heads (head
    (1, 0) 0.72 at n = 8, previous-token head (0, 1) 0.98) and seed 2 did not within 2000 steps (largest
    induction score 0.04, second-half loss 1.72 at n = 8). The lesson's sentences are about the shipped
    weights (seed 0), which ``test_circuits.py`` checks are current and score their recorded metrics."""
    r = shipped.induction_report(small, n, batch=16, seed=seed)
    ids = circuits.repeated_tokens(small, n, batch=16, seed=seed)
    induction = circuits.induction_scores(circuits.attention_patterns(small, ids))
    second, ablated = r["loss second half"], r["loss second half, induction head mean-ablated"]
    assert r["previous-token head"] == [0, 0] and r["induction head"][0] == 1
    assert induction[0].max() < 0.01
    if n == 8:
        assert induction[1].min() > 0.53 and r["previous-token score"] > 0.9
        assert 0.9 < second < 1.25 and 3.35 < r["loss first half"] < 3.6 and 2.45 < ablated < 2.75
    else:
        assert 0.2 < induction[1].min() and induction[1].max() < 0.4 and r["previous-token score"] > 0.85
        assert 2.1 < second < 2.95 and 3.4 < r["loss first half"] < 3.75 and ablated - second > 0.15
        loss = circuits.per_token_loss(small, ids)
        early, late = loss[:, 16:22].mean().item(), loss[:, 26:31].mean().item()
        assert 3.05 < early < 3.85 and 0.3 < late < 1.7 and early - late > 1.9
    chance, spread = r["K-composition baseline"]
    _, W_OV = circuits.qk_ov(small, 0, 0)
    for h in range(small.n_head):
        C_K = circuits.k_composition(circuits.qk_ov(small, 1, h)[0], W_OV).item()
        assert (C_K - chance) / spread > 14
        assert round(C_K, 2) in (0.20, 0.23)
