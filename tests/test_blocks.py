import math

import pytest
import torch
import torch.nn.functional as F
import transformers
from transformers.models.distilbert.modeling_distilbert import create_sinusoidal_embeddings

from xai_tf.models import CONFIGS, GPT2, GPT2Config
from xai_tf.transformer.blocks import (
    batch_norm,
    gelu_exact,
    gelu_tanh,
    layer_norm,
    parameter_counts,
    rms_norm,
    sinusoidal_positions,
    unembed,
)


def test_sinusoidal_positions_match_distilbert():
    want = torch.empty(50, 16)
    create_sinusoidal_embeddings(50, 16, want)
    torch.testing.assert_close(sinusoidal_positions(50, 16), want, atol=1e-6, rtol=0)
    assert sinusoidal_positions(3, 4)[1].tolist() == pytest.approx(
        [0.8414709848, 0.5403023059, 0.0099998333, 0.9999500004]  # sin 1, cos 1, sin 0.01, cos 0.01
    )


def test_sinusoidal_positions_reject_an_odd_width():
    with pytest.raises(ValueError, match="even d ≥ 2"):
        sinusoidal_positions(4, 5)


def test_layer_norm_matches_torch():
    g = torch.Generator().manual_seed(0)
    u, gamma, beta = (torch.randn(shape, generator=g) for shape in [(3, 7, 32), (32,), (32,)])
    torch.testing.assert_close(layer_norm(u, gamma, beta), F.layer_norm(u, (32,), gamma, beta, 1e-5))


def test_batch_norm_matches_torch_in_training_mode():
    g = torch.Generator().manual_seed(2)
    u, gamma, beta = (
        torch.randn(9, 32, generator=g) * 3 - 1,
        torch.randn(32, generator=g),
        torch.randn(32, generator=g),
    )
    want = F.batch_norm(u, None, None, gamma, beta, training=True, eps=1e-5)
    torch.testing.assert_close(batch_norm(u, gamma, beta), want)


def test_rms_norm_matches_torch():
    g = torch.Generator().manual_seed(1)
    u, gamma = torch.randn(3, 7, 32, generator=g) * 4 + 1, torch.randn(32, generator=g)
    torch.testing.assert_close(rms_norm(u, gamma), F.rms_norm(u, (32,), gamma, 1e-6))


def test_gelu_forms_match_torch():
    x = torch.linspace(-6, 6, 1001, dtype=torch.float64)
    torch.testing.assert_close(gelu_exact(x), F.gelu(x))
    torch.testing.assert_close(gelu_tanh(x), F.gelu(x, approximate="tanh"))
    assert 1e-4 < (gelu_exact(x) - gelu_tanh(x)).abs().max() < 1e-3  # close, not equal


@pytest.mark.parametrize("name", list(CONFIGS))
def test_parameter_counts_match_the_models(name):
    config = CONFIGS[name]
    hf_config = transformers.GPT2Config(n_embd=config.n_embd, n_layer=config.n_layer, n_head=config.n_head)
    with torch.device("meta"):
        ours = sum(p.numel() for p in GPT2(config).parameters())
        theirs = transformers.GPT2LMHeadModel(hf_config).num_parameters()  # tied weights counted once
    assert parameter_counts(config)["total"] == ours == theirs
    if name == "gpt2":
        assert theirs == 124_439_808


def test_an_untied_unembedding_is_counted():
    config = GPT2Config(vocab_size=100, n_ctx=16, n_embd=32, n_layer=2, n_head=2, tie_word_embeddings=False)
    hf_config = transformers.GPT2Config(
        vocab_size=100, n_positions=16, n_embd=32, n_layer=2, n_head=2, tie_word_embeddings=False
    )
    with torch.device("meta"):
        ours = sum(p.numel() for p in GPT2(config).parameters())
        theirs = transformers.GPT2LMHeadModel(hf_config).num_parameters()
    assert parameter_counts(config)["total"] == ours == theirs
    assert parameter_counts(config)["unembedding W_U"] == 100 * 32


def test_the_lectures_phi_is_not_a_cdf():
    """Φ with 1/(2π) in front, integrated by mpmath: 0.199 at 0 and 1/√(2π) ≈ 0.399 at +∞."""
    import mpmath

    from xai_tf.transformer.blocks import lecture_phi

    def by_quadrature(x: float) -> float:
        breaks = [-mpmath.inf, *(b for b in (-8, 0) if b < x), x]  # the Gaussian bump sits near 0
        return float(mpmath.quad(lambda t: mpmath.exp(-(t**2) / 2), breaks) / (2 * mpmath.pi))

    xs = torch.tensor([-3.0, -0.5, 0.0, 1.0, 2.5, 40.0], dtype=torch.float64)
    assert lecture_phi(xs).tolist() == pytest.approx([by_quadrature(x) for x in xs.tolist()], rel=1e-12)
    assert lecture_phi(torch.tensor(0.0)).item() == pytest.approx(0.19947, abs=1e-5)
    assert lecture_phi(torch.tensor(40.0)).item() == pytest.approx(1 / (2 * math.pi) ** 0.5)


def test_the_lectures_position_code_by_the_formula():
    from xai_tf.transformer.blocks import lecture_positions

    code = lecture_positions(50, 8, 1024).double()
    for t in (0, 3, 49):
        for component in range(1, 9):  # the lecture's 1-based components: 2i − 1 sine, 2i cosine
            i = (component + 1) // 2
            angle = t / 1024 ** (2 * i / 8)
            expected = math.sin(angle) if component % 2 else math.cos(angle)
            assert code[t, component - 1].item() == pytest.approx(expected, abs=1e-6)
    assert not torch.allclose(code[3], sinusoidal_positions(50, 8)[3].double(), atol=0.1)


def test_the_lectures_position_code_is_a_valid_code():
    """Every position distinct, and W_p(t)·W_p(t + k) depends on the offset k only (pairs rotate)."""
    from xai_tf.transformer.blocks import lecture_positions

    code = lecture_positions(256, 16, 256).double()
    distances = torch.cdist(code, code) + torch.eye(256) * 1e9
    assert distances.min() > 1e-3
    for k in (1, 7, 40):
        dots = (code[:-k] * code[k:]).sum(-1)
        assert dots.max() - dots.min() < 1e-5


def test_unembed_gives_the_models_own_logits():
    """LN_f(f^(L)) W_eᵀ by ``unembed`` against the model's forward pass (nn.LayerNorm, tied lm head)."""
    torch.manual_seed(0)
    model = GPT2(GPT2Config(vocab_size=50, n_ctx=16, n_embd=32, n_layer=2, n_head=2)).eval()
    logits, cache = model.run_with_cache(torch.randint(0, 50, (1, 9)))
    f = cache["resid_post", 1]
    got = unembed(f, model.ln_f.weight, model.ln_f.bias, model.wte.weight, model.ln_f.eps)
    torch.testing.assert_close(got, logits, atol=1e-5, rtol=1e-5)
    with pytest.raises(ValueError, match=r"W_e must be \[D, 32\]"):
        unembed(f, model.ln_f.weight, model.ln_f.bias, model.wte.weight.T)
