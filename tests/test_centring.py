"""G-avg on a LayerNorm model and on an RMSNorm one (``xai_tf.explain.centring``, issue 58 item 3), and
the steps of lesson 06's exercises (``xai_tf.explain.ig_steps``), each against an independent reference:
float64 central differences of the model's own forward pass, the Gauss–Legendre error's closed form, loops."""

import math

import pytest
import torch
import transformers
from conftest import random_hf_gpt2

import xai_tf
from xai_tf.explain import attribution as attr
from xai_tf.explain import centring, ig_steps
from xai_tf.models import GPT2
from xai_tf.models.llama import Llama

IDS, TARGET = [5, 17, 3, 41, 8, 22], 12


def _gpt2() -> GPT2:
    return GPT2.from_hf(
        random_hf_gpt2(3, vocab_size=60, n_positions=16, n_embd=24, n_layer=2, n_head=4)
    ).double()


def _llama() -> Llama:
    torch.manual_seed(3)
    config = transformers.LlamaConfig(
        vocab_size=60,
        hidden_size=24,
        intermediate_size=40,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=16,
        attn_implementation="eager",
    )
    return Llama.from_hf(transformers.LlamaForCausalLM(config).eval()).double()


def _logit(model, E: torch.Tensor) -> torch.Tensor:
    """The target's logit at the last position, by the model's full forward pass on embeddings E [n, T, d]."""
    return model.forward_embeddings(E)[:, -1, TARGET]


def _sum_of_gradient_by_differences(model, h: float = 1e-6) -> torch.Tensor:
    """Σ_j ∂F/∂E_tj for every token t by float64 central differences along the all-ones vector of row t."""
    E = model.embed(torch.tensor(IDS)).detach()[None]
    out = []
    with torch.no_grad():
        for t in range(len(IDS)):
            step = torch.zeros_like(E)
            step[0, t] = h
            out.append((_logit(model, E + step) - _logit(model, E - step)) / (2 * h))
    return torch.cat(out)


@pytest.mark.parametrize("build", [_gpt2, _llama], ids=["gpt2-layernorm", "llama-rmsnorm"])
def test_g_avg_matches_float64_differences(build):
    """G-avg_t = (1/d_e) d/dc F(E + c 1 e_tᵀ): autograd's mean over the embedding dims against differences."""
    model = build()
    g, _ = attr.embedding_gradients(model, IDS, TARGET)
    brute = _sum_of_gradient_by_differences(model) / g.size(-1)
    torch.testing.assert_close(attr.gradient_saliency(g, "avg"), brute, rtol=1e-6, atol=1e-8)


def test_g_avg_vanishes_on_layernorm_and_not_on_rmsnorm():
    on_ln, on_rms = (centring.g_avg_scale(build(), IDS, TARGET) for build in (_gpt2, _llama))
    assert on_ln.ratio < 1e-12 and on_ln.largest_shift_change < 1e-12  # float64 rounding only
    assert on_rms.ratio > 1e-3 and on_rms.largest_shift_change > 1e-3
    brute = _sum_of_gradient_by_differences(_llama()) / 24
    assert on_rms.largest_g_avg == pytest.approx(brute.abs().max().item(), rel=1e-6)
    assert on_ln.mean_abs_gradient > 1e-3  # the gradient itself is not zero: only its mean is


@pytest.mark.parametrize("c", [1.0, -2.5])
def test_shift_response_is_the_change_of_the_full_forward_pass(c):
    model = _llama()
    E = model.embed(torch.tensor(IDS)).detach()[None]
    with torch.no_grad():
        want = torch.stack(
            [
                _logit(model, E + c * torch.nn.functional.one_hot(torch.tensor(t), len(IDS))[None, :, None])[
                    0
                ]
                for t in range(len(IDS))
            ]
        ) - _logit(model, E)
    torch.testing.assert_close(centring.shift_response(model, IDS, TARGET, c), want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("m", [1, 2, 3, 6])
def test_gauss_legendre_is_exact_to_degree_2m_minus_1_and_misses_2m_by_the_closed_form(m):
    alphas, weights = ig_steps.gauss_legendre(m)
    assert ig_steps.exact_degree(alphas, weights) == 2 * m - 1
    # the rule's error for α^(2m) on [0, 1]: (m!)⁴ / ((2m + 1) ((2m)!)²)
    want = math.factorial(m) ** 4 / ((2 * m + 1) * math.factorial(2 * m) ** 2)
    assert ig_steps.monomial_errors(alphas, weights, 2 * m)[-1].item() == pytest.approx(want, rel=1e-9)


def test_right_riemann_is_exact_for_constants_only():
    alphas, weights = attr.quadrature(4, "riemann_right")
    errors = ig_steps.monomial_errors(alphas, weights, 1)
    assert errors[0] < 1e-15 and errors[1].item() == pytest.approx(1 / 8)  # Σ (k/m)/m − 1/2 = 1/(2m)
    assert ig_steps.exact_degree(alphas, weights) == 0


def test_path_and_delta_against_loops_and_integrated_gradients():
    E_base, E, alphas = torch.randn(3, 5), torch.randn(3, 5), torch.tensor([0.0, 0.3, 1.0])
    loop = torch.stack([E_base + float(a) * (E - E_base) for a in alphas])
    torch.testing.assert_close(ig_steps.straight_path(E_base, E, alphas), loop)
    model = _gpt2()
    r = attr.integrated_gradients(model, IDS, TARGET, baseline=0, n_steps=7, method="riemann_right")
    delta = ig_steps.completeness_delta(r.attributions, r.f_input, r.f_baseline)
    assert delta.item() == pytest.approx(r.delta, rel=1e-9, abs=1e-12) and abs(r.delta) > 1e-6
    g = torch.randn(4, 6, dtype=torch.float64)
    torch.testing.assert_close(
        ig_steps.g_l1(g),
        torch.tensor([sum(abs(float(v)) for v in row) / 6 for row in g], dtype=torch.float64),
    )


def test_probability_gradient_matches_autograd_of_the_softmax():
    gen = torch.Generator().manual_seed(4)
    W, x = (
        torch.randn(9, 5, generator=gen, dtype=torch.float64),
        torch.randn(5, generator=gen, dtype=torch.float64),
    )
    x.requires_grad_(True)
    p = torch.softmax(W @ x, -1)  # logits z = W x: ∂z_v/∂x = W[v]
    (want,) = torch.autograd.grad(p[3], x)
    torch.testing.assert_close(ig_steps.probability_gradient(p.detach(), W, 3), want)


@pytest.mark.parametrize(
    "device",
    [
        "guarded-cpu",
        pytest.param(
            "cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device here")
        ),
    ],
)
def test_centring_follows_the_device_of_the_model(bundled, device):
    """As ``test_devices.py`` does for the other helpers: a tensor made without naming a device lands on
    "meta" in the guarded CPU run and fails next to the model's CPU tensors."""
    ids = bundled.encode("ROMEO.\nBut soft")
    want = centring.shift_response(bundled, ids, 7)
    if device == "cuda":
        lm = xai_tf.load_model("shakespeare", device="cuda")
        got = centring.shift_response(lm, ids, 7)
        assert got.device.type == "cuda" and centring.g_avg_scale(lm, ids, 7).ratio < 1e-5
        torch.testing.assert_close(got.cpu(), want, atol=1e-3, rtol=0)
        return
    with torch.device("meta"):
        got, scale = centring.shift_response(bundled, ids, 7), centring.g_avg_scale(bundled, ids, 7)
    torch.testing.assert_close(got, want, atol=0, rtol=0)
    assert scale == centring.g_avg_scale(bundled, ids, 7)


def test_monomial_errors_follow_the_device_of_the_rule():
    alphas, weights = ig_steps.gauss_legendre(3)
    want = ig_steps.monomial_errors(alphas, weights, 7)
    with torch.device("meta"):  # a tensor made without naming a device would land on "meta" and fail
        got = ig_steps.monomial_errors(alphas, weights, 7)
    torch.testing.assert_close(got, want, atol=0, rtol=0)
