"""Lesson 19, section 5b: head ablation against the specialisation table (``probing.head_ablation``)."""

import re

import pytest
import torch

import xai_tf
from xai_tf import seeds
from xai_tf.circuits.ablation import ablate_head
from xai_tf.circuits.induction import token_losses
from xai_tf.probing import head_ablation, heads
from xai_tf.transformer import corpus
from xai_tf.widgets.probing import head_table_html


@pytest.fixture(scope="module")
def lm():
    return xai_tf.load_model("shakespeare")


@pytest.fixture(scope="module")
def macbeth(lm):
    windows, counts = heads.text_windows(lm, corpus.read_plays()[corpus.HELDOUT_FILES[0]], n=12, T=40)
    return windows, counts


def test_one_head_ablated_is_lesson_15s_mean_ablation(lm, macbeth):
    """Against ``circuits.ablation.ablate_head`` (lesson 15's mean ablation, written independently)."""
    windows, _ = macbeth
    windows = windows[:3]
    importance = head_ablation.head_importance(lm, windows)
    with torch.no_grad():
        clean = float(token_losses(lm(windows), windows).double().mean())
    for layer, head in ((0, 0), (2, 3), (5, 1)):
        want = float(ablate_head(lm, windows, layer, head, how="mean").double().mean()) - clean
        assert importance[layer, head] == pytest.approx(want, abs=1e-5)
    curve = head_ablation.pruning_curve(lm, windows, [(2, 3), (5, 1)])
    assert curve[0] == pytest.approx(0.0, abs=1e-9) and curve[1] == pytest.approx(
        float(importance[2, 3]), abs=1e-9
    )


def test_pruning_a_whole_layer_replaces_its_output_by_the_mean(lm, macbeth):
    """Ablating a layer's heads together: each head's output replaced by its mean, checked against a hook
    that replaces the layer's whole z by its mean (the same thing, written once for all heads)."""
    windows, _ = macbeth
    windows = windows[:3]
    layer = 1
    curve = head_ablation.pruning_curve(lm, windows, [(layer, h) for h in range(lm.n_head)])

    def all_heads(z):
        return z.mean(dim=(0, 2), keepdim=True).expand_as(z)

    with torch.no_grad():
        clean = float(token_losses(lm(windows), windows).double().mean())
        ablated = float(token_losses(lm(windows, hooks={("z", layer): all_heads}), windows).double().mean())
    assert curve[-1] == pytest.approx(ablated - clean, abs=1e-5)


def test_table_heads_are_the_heads_the_table_lists(lm, macbeth):
    windows, counts = macbeth
    result = heads.head_shares(lm, windows[:4], counts)
    listed = [
        tuple(map(int, m)) for m in re.findall(r"<td>L(\d+) H(\d+)</td>", head_table_html(result, lm.n_head))
    ]
    want = list(dict.fromkeys(listed))
    assert head_ablation.table_heads(result) == want


def test_pruning_order_is_checked(lm, macbeth):
    with pytest.raises(ValueError, match=r"heads \(order\) must list distinct"):
        head_ablation.pruning_curve(lm, macbeth[0][:1], [(0, 0), (0, 0)])
    with pytest.raises(ValueError, match=r"heads \(order\) must list distinct"):
        head_ablation.pruning_curve(lm, macbeth[0][:1], [(9, 0)])


@pytest.mark.claims
@pytest.mark.parametrize("seed", [0])
def test_one_head_dominates_and_half_the_heads_cost_less(lm, seed):
    """Section 5c's claims, on a seeded 12 of 60 windows of Macbeth spread evenly (T = 40), the draw s′ =
    seed + offset (``seeds.generator``). 20 draws (s′ = 0 … 19), measured on the 2-core AMD EPYC:

    - the most important head is L1 H3 on 20 of 20. Its Δℓ over the next head's: 3.62, 4.02, 4.33, 3.86,
      3.59, 4.03, 4.34, 3.74, 4.71, 4.51, 4.10, 4.47, 3.43, 5.00, 4.57, 3.36, 4.32, 4.04, 3.70, 3.65. Worst
      3.36, spread 1.64: asserted > 2.95.
    - Δℓ of L1 H3 minus the loss rise with the 12 least important heads ablated together (nats): 0.295,
      0.343, 0.334, 0.301, 0.259, 0.256, 0.329, 0.242, 0.183, 0.306, 0.275, 0.291, 0.198, 0.308, 0.186,
      0.332, 0.356, 0.386, 0.272, 0.309. Worst 0.183, spread 0.203: asserted > 0.13.
    - counts stated in the lesson, not asserted: the table lists L1 H3 on 2 of 20 (draws 7 and 15); the
      listed heads' mean Δℓ is below the other heads' on 18 of 20 (all but those two; listed 0.009–0.063,
      others 0.023–0.058 nats).
    The tests rerun seed 0 at the claim offsets 0 and 5 (draws 0 and 5).
    """
    pool, _ = heads.text_windows(lm, corpus.read_plays()[corpus.HELDOUT_FILES[0]], n=60, T=40)
    windows = pool[torch.randperm(60, generator=seeds.generator(seed))[:12]]
    importance = head_ablation.head_importance(lm, windows)
    ranked = sorted(
        ((a, b) for a in range(lm.n_layer) for b in range(lm.n_head)), key=lambda p: -float(importance[p])
    )
    top, second = ranked[:2]
    assert top == (1, 3) and importance[top] > 2.95 * importance[second]
    half = head_ablation.pruning_curve(lm, windows, ranked[::-1], ks=[12])
    assert float(importance[top] - half[0]) > 0.13
