"""Lesson 20's small formulas (``xai_tf.explain.formulas``) against independent references: Captum's DeepLift
for the rescale multiplier, Shapley values by averaging over all orders of the players, Lundberg & Lee's
Theorem 2 for the Shapley kernel, integrated gradients' own delta for the completeness gap, scipy's
spearmanr for Spearman's ρ; and the claim
of lesson 20's section 3 that G-avg vanishes on a LayerNorm model and not on an RMSNorm one."""

import itertools
import math

import pytest
import torch
from captum.attr import DeepLift
from conftest import random_hf_gpt2
from scipy import stats
from torch import nn

import xai_tf
from xai_tf.explain import attribution as attr
from xai_tf.explain import formulas as fo
from xai_tf.explain import perturbation as pt
from xai_tf.models import GPT2


def _by_orders(v, T):
    """φ_i = the mean over all T! orders of i's marginal contribution (the other definition)."""
    phi = torch.zeros(T, dtype=torch.float64)
    for order in itertools.permutations(range(T)):
        z = torch.zeros(T + 1, T, dtype=torch.long)
        for step, i in enumerate(order, 1):
            z[step:, i] = 1
        values = v(z).double()
        phi[list(order)] += values[1:] - values[:-1]
    return phi / math.factorial(T)


def _game(T, seed=0):
    """Pairwise terms, a three-way one and a threshold: a symmetric weighting of the sizes alone would fit
    a pairwise game exactly, so the kernel test needs the higher orders."""
    P = torch.randn(T, T, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)

    def v(z):
        x = z.double()
        return (x @ P * x).sum(-1) + 2 * x[:, 0] * x[:, 1] * x[:, -1] + (x.sum(-1) >= T / 2).double()

    return v


@pytest.mark.parametrize("T", [2, 4, 6])
def test_shapley_of_a_game_is_the_mean_over_orders(T):
    v = _game(T, T)
    assert torch.allclose(fo.shapley_of_game(v, T), _by_orders(v, T), atol=1e-12)


@pytest.mark.parametrize("T", [3, 5, 7])
def test_the_weighted_fit_under_the_shapley_kernel_is_the_shapley_values(T):
    """Lundberg & Lee's Theorem 2, with the infinite weights as Kernel SHAP's 10⁶."""
    z, v = pt.all_coalitions(T), _game(T, 10 + T)
    weights = fo.shapley_kernel(z).clamp(max=pt.INF_WEIGHT)
    fit = pt.weighted_linear_fit(z, v(z), weights)
    want = _by_orders(v, T)
    assert (fit - want).abs().max() < 1e-6 * want.abs().max()
    if T == 3:  # C(3, 1) = C(3, 2): without the binomial the kernel is the same up to a factor
        return
    # and a wrong kernel (no binomial) does not give them
    wrong = torch.where(weights == pt.INF_WEIGHT, weights, (T - 1) / (z.sum(1) * (T - z.sum(1))).double())
    assert (pt.weighted_linear_fit(z, v(z), wrong) - want).abs().max() > 1e-3 * want.abs().max()


def test_the_shapley_kernel_summed_over_a_size_is_kernel_shaps_size_distribution():
    T = 6
    z = pt.all_coalitions(T)
    pi = fo.shapley_kernel(z)
    assert torch.isinf(pi[0]) and torch.isinf(pi[-1])
    for k in range(1, T):
        assert float(pi[z.sum(1) == k].sum()) == pytest.approx((T - 1) / (k * (T - k)), rel=1e-12)
    assert float(fo.shapley_kernel(torch.tensor([[1, 0, 0, 0], [1, 1, 0, 0]]))[1]) == pytest.approx(3 / 24)


class _Elementwise(nn.Module):
    def __init__(self, act):
        super().__init__()
        self.act = act

    def forward(self, x):
        return self.act(x).sum(-1, keepdim=True)


@pytest.mark.parametrize("act", [nn.Sigmoid(), nn.Tanh(), nn.ReLU()], ids=["sigmoid", "tanh", "relu"])
def test_the_rescale_multiplier_is_captums_deeplift_on_one_elementwise_layer(act):
    g = torch.Generator().manual_seed(3)
    x, x_ref = (
        torch.randn(4, 7, generator=g, dtype=torch.float64),
        torch.randn(4, 7, generator=g, dtype=torch.float64),
    )
    x_ref[:, :2] = x[:, :2]  # z = z′: the multiplier is the gradient there
    captum = DeepLift(_Elementwise(act).double()).attribute(x, baselines=x_ref, target=0)
    m = fo.rescale_multiplier(act, x, x_ref)
    assert torch.allclose(captum[:, 2:] / (x - x_ref)[:, 2:], m[:, 2:], atol=1e-9)
    at = x.clone().requires_grad_(True)
    (slope,) = torch.autograd.grad(act(at).sum(), at)
    assert torch.allclose(m[:, :2], slope[:, :2])
    assert torch.allclose(m * (x - x_ref), act(x) - act(x_ref), atol=1e-12)  # Δy = m Δz exactly


def test_the_completeness_gap_is_integrated_gradients_own_delta():
    model = GPT2.from_hf(random_hf_gpt2(0, vocab_size=50, n_positions=16, n_embd=16, n_layer=2, n_head=2))
    r = attr.integrated_gradients(model, [3, 7, 1, 9], 5, "token0", n_steps=8)
    delta = fo.completeness_delta(r.token_scores, r.f_input, r.f_baseline)
    assert float(delta) == pytest.approx(r.delta, abs=1e-6)
    assert float(fo.completeness_delta(torch.tensor([1.0, 2.0]), 5.0, 1.5)) == pytest.approx(-0.5)


def test_g_avg_vanishes_with_layernorm_and_not_with_rmsnorm():
    """Lesson 20's section 3 leaves G-avg out where max |G-avg| / mean |∇| < 1e-4: every LayerNorm
    subtracts the mean, so F(E_t + c·1) = F(E_t); RMSNorm does not."""
    ratios = {}
    for name in ("shakespeare", "shakespeare_llama"):
        lm = xai_tf.load_model(name)
        g, _ = attr.embedding_gradients(lm, lm.encode("ROMEO.\nBut soft, what"), 7)
        ratios[name] = float(attr.gradient_saliency(g, "avg").abs().max() / g.abs().mean())
    assert ratios["shakespeare"] < 1e-5 and ratios["shakespeare_llama"] > 1e-3, ratios


@pytest.mark.parametrize("seed", range(4))
def test_spearman_rho_is_scipys_with_and_without_ties(seed):
    g = torch.Generator().manual_seed(seed)
    a, b = torch.randn(9, generator=g, dtype=torch.float64), torch.randint(0, 4, (9,), generator=g).double()
    for x, y in ((a, b), (b, a), (a, a**3), (b, b.flip(0))):
        assert float(fo.spearman_rho(x, y)) == pytest.approx(
            stats.spearmanr(x.numpy(), y.numpy()).statistic, abs=1e-12
        )


def test_contrastive_gradient_x_input_is_gradient_x_input_of_the_logit_difference():
    """Σ_j (∂z_target/∂E_tj − ∂z_foil/∂E_tj) E_tj against autograd of gradcam.contrast_function's
    z_target − z_foil, differentiated in one backward pass."""
    from xai_tf.explain import gradcam as gc

    model = GPT2.from_hf(random_hf_gpt2(0, vocab_size=50, n_positions=16, n_embd=16, n_layer=2, n_head=2))
    ids = [3, 7, 1, 9]
    g_target, E = attr.embedding_gradients(model, ids, 5)
    g_foil, _ = attr.embedding_gradients(model, ids, 11)
    X = E.clone().requires_grad_(True)
    (g_c,) = torch.autograd.grad(gc.contrast_function(model, 5, 11, len(ids))(X[None]).sum(), X)
    want = (g_c * E).sum(-1)
    got = fo.contrastive_gradient_x_input(g_target, g_foil, E)
    assert torch.allclose(got, want, atol=1e-6, rtol=1e-5)
    assert not torch.allclose(got, attr.gradient_times_input(g_target, E), atol=1e-3)  # the foil counts
