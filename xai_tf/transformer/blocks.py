"""The pieces of a GPT-2 block written out as formulas, to set beside ``torch``'s fused versions
(lesson 04).

Notation of the lecture: width d, positions pos = 0..n−1, a vector u ∈ ℝ^d.
"""

from __future__ import annotations

import math
from typing import Protocol

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.models.architecture import Sizes


def sinusoidal_positions(n_positions: int, d: int) -> Tensor:
    """The Transformer's fixed position code ``[n_positions, d]`` (Vaswani et al., 2017):

        PE[pos, 2i] = sin(pos / 10000^(2i/d)),   PE[pos, 2i+1] = cos(pos / 10000^(2i/d)).

    GPT-2 does not use it: its position embeddings W_P are learned like the token embeddings.
    """
    if n_positions < 1 or d < 2 or d % 2:
        raise ValueError(f"need n_positions ≥ 1 and an even d ≥ 2, got {n_positions} and {d}")
    pos = torch.arange(n_positions, dtype=torch.float64)[:, None]
    freq = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    pe = torch.empty(n_positions, d, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * freq), torch.cos(pos * freq)
    return pe.float()


def layer_norm(u: Tensor, gamma: Tensor, beta: Tensor, eps: float = 1e-5) -> Tensor:
    """LN(u) = γ ⊙ (u − μ) / √(σ² + ε) + β over the last dim, with μ = mean(u) and σ² the biased
    variance (1/d) Σ (u_j − μ)²."""
    d = _checks.tensor("u", u).size(-1)
    if _checks.tensor("gamma", gamma).shape != (d,) or _checks.tensor("beta", beta).shape != (d,):
        raise ValueError(
            f"gamma and beta must be [{d}] (the last dim of u), got {tuple(gamma.shape)}, {tuple(beta.shape)}"
        )
    mu = u.mean(-1, keepdim=True)
    var = ((u - mu) ** 2).mean(-1, keepdim=True)
    return gamma * (u - mu) / torch.sqrt(var + eps) + beta


def unembed(f: Tensor, gamma: Tensor, beta: Tensor, W_e: Tensor, eps: float = 1e-5) -> Tensor:
    """GPT-2's read-out with tied weights: logits = LN_f(f) W_eᵀ, LN_f = ``layer_norm`` with the final
    norm's γ, β; ``f [..., d]``, ``W_e [D, d]`` (the token embedding, vocabulary first) → ``[..., D]``.
    Applied to the stream after every block it is the logit lens, z^(l) = LN_f(f^(l)) W_eᵀ."""
    d = _checks.tensor("f", f).size(-1)
    if _checks.tensor("W_e", W_e).dim() != 2 or W_e.size(1) != d:
        raise ValueError(f"W_e must be [D, {d}] (vocabulary × the last dim of f), got {tuple(W_e.shape)}")
    return layer_norm(f, gamma, beta, eps) @ W_e.T


def batch_norm(u: Tensor, gamma: Tensor, beta: Tensor, eps: float = 1e-5) -> Tensor:
    """BN(u) = γ ⊙ (u − μ_B) / √(σ_B² + ε) + β for ``u [n, d]``, with μ_B and σ_B² the mean and biased
    variance of each feature over the n examples of the batch (Ioffe & Szegedy 2015, training mode):
    LayerNorm's formula taken over the other axis, so one example's output depends on its batch."""
    u = _checks.tensor("u", u)
    if u.dim() != 2 or u.size(0) < 1:
        raise ValueError(f"u must be [n, d] (a batch of n examples), got {tuple(u.shape)}")
    d = u.size(-1)
    if _checks.tensor("gamma", gamma).shape != (d,) or _checks.tensor("beta", beta).shape != (d,):
        raise ValueError(
            f"gamma and beta must be [{d}] (the last dim of u), got {tuple(gamma.shape)}, {tuple(beta.shape)}"
        )
    mu = u.mean(0, keepdim=True)
    var = ((u - mu) ** 2).mean(0, keepdim=True)
    return gamma * (u - mu) / torch.sqrt(var + eps) + beta


def rms_norm(u: Tensor, gamma: Tensor, eps: float = 1e-6) -> Tensor:
    """RMS_γ(u) = γ ⊙ u / √((1/d) Σ_j u_j² + ε) over the last dim (Zhang & Sennrich 2019): LayerNorm
    without the centring and without β; the norm of lecture 004's recap block."""
    d = _checks.tensor("u", u).size(-1)
    if _checks.tensor("gamma", gamma).shape != (d,):
        raise ValueError(f"gamma must be [{d}] (the last dim of u), got {tuple(gamma.shape)}")
    eps = _checks.positive("eps", eps)
    return gamma * u / torch.sqrt(u.pow(2).mean(-1, keepdim=True) + eps)


def gelu_exact(x: Tensor) -> Tensor:
    """GELU(x) = x Φ(x), Φ the standard normal CDF: Φ(x) = ½ (1 + erf(x / √2))."""
    _checks.tensor("x", x)
    return x * 0.5 * (1 + torch.erf(x / math.sqrt(2)))


def lecture_positions(n_positions: int, d_e: int, T_max: int) -> Tensor:
    """The position code **as the lecture writes it** (lesson 04), ``[n_positions, d_e]``:

        W_p(t)_{2i} = cos(t / T_max^{2i/d_e}),   W_p(t)_{2i−1} = sin(t / T_max^{2i/d_e}),   i = 1..d_e/2

    with components numbered 1..d_e (i = 0 would need component −1), so the pair (2i−1, 2i) is
    (sin, cos) of one frequency T_max^{−2i/d_e}. Against Vaswani et al.'s ``sinusoidal_positions``: the
    base is T_max instead of 10,000, the frequencies start one step lower (i = 1, not 0) and each pair
    is (sin, cos) in the other order of indices. It is still a valid code: each pair rotates with t,
    so W_p(t + k) is a fixed rotation of W_p(t), and the slowest pair's period 2π T_max exceeds the context.
    """
    if n_positions < 1 or d_e < 2 or d_e % 2:
        raise ValueError(f"need n_positions ≥ 1 and an even d_e ≥ 2, got {n_positions} and {d_e}")
    if T_max < 2:
        raise ValueError(f"T_max must be at least 2 (the context length), got {T_max}")
    t = torch.arange(n_positions, dtype=torch.float64)[:, None]
    i = torch.arange(1, d_e // 2 + 1, dtype=torch.float64)
    angle = t / float(T_max) ** (2 * i / d_e)
    code = torch.empty(n_positions, d_e, dtype=torch.float64)
    code[:, 0::2], code[:, 1::2] = torch.sin(angle), torch.cos(angle)  # components 2i−1, 2i (from 1)
    return code.float()


def lecture_phi(x: Tensor) -> Tensor:
    """Φ **as the lecture writes it** (lesson 04's errata): (1/(2π)) ∫_{−∞}^x e^{−t²/2} dt.

    The standard normal CDF has 1/√(2π) in front; with 1/(2π) the integral is Φ(x) / √(2π), so it
    rises from 0 to 1/√(2π) ≈ 0.399 instead of 1 (and is 0.199 at 0, not ½): not a CDF, and
    x · lecture_phi(x) tends to 0.4 x, not to x, for large x.
    """
    _checks.tensor("x", x)
    return 0.5 * (1 + torch.erf(x / math.sqrt(2))) / math.sqrt(2 * math.pi)


def gelu_tanh(x: Tensor) -> Tensor:
    """GPT-2's approximation: ½ x (1 + tanh(√(2/π) (x + 0.044715 x³)))."""
    _checks.tensor("x", x)
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


class _Shaped(Protocol):
    @property
    def sizes(self) -> Sizes: ...

    tie_word_embeddings: bool


def parameter_counts(config: _Shaped) -> dict[str, int]:
    """Parameters of a GPT-2 by part, from its config's ``sizes`` (V vocabulary, n context, d width, L
    layers) and whether W_U is tied to W_E (a ``GPT2Config``, e.g. ``CONFIGS['gpt2']``):

    token embeddings W_E: V d (also the unembedding: weight tying; else W_U: V d more)   positions W_P: n d
    per block: LN 2·2d + attention (d·3d + 3d) + (d·d + d) + MLP (d·4d + 4d) + (4d·d + d)
    final LN: 2d
    """
    if not isinstance(getattr(config, "sizes", None), Sizes):
        raise TypeError(
            f"config must be a model config with sizes (e.g. CONFIGS['gpt2']), got {type(config).__name__}"
        )
    s = config.sizes
    V, n, d, L = s.vocab_size, s.n_ctx, s.d_model, s.n_layer
    block = 4 * d + (3 * d * d + 3 * d) + (d * d + d) + (4 * d * d + 4 * d) + (4 * d * d + d)
    counts = {"token embeddings": V * d, "position embeddings": n * d, "blocks": L * block, "final LN": 2 * d}
    if not config.tie_word_embeddings:
        counts["unembedding W_U"] = V * d  # a checkpoint whose lm_head is not W_E
    return counts | {"total": sum(counts.values())}
