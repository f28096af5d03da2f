"""K-composition between two heads, and its chance level (lesson 15; Elhage et al. 2021, §"Virtual weights").

In row-vector convention (a token's residual vector x is a row; the pre-attention norm's gain γ is
folded in, biases and the norm's centring and scaling left out; ``CausalLM.head_weights``) head h of
layer l has

    W_QK^h = diag(γ) W_Q^h (diag(γ) W_K^h)ᵀ ∈ ℝ^{d×d}   (score of query x_i on key x_j: x_i W_QK x_jᵀ)
    W_OV^h = diag(γ) W_V^h W_O^h ∈ ℝ^{d×d}              (what it writes: Σ_j A_ij x_j W_OV)

A later head B *K-composes* with an earlier head A when B's keys read what A wrote: a key x W_OV^A
gives scores q W_QK^B (W_OV^A)ᵀ xᵀ, and the K-composition score is

    C_K(A, B) = ‖W_QK^B (W_OV^A)ᵀ‖_F / (‖W_QK^B‖_F ‖W_OV^A‖_F)  ∈ [0, 1].

Under rotary positions (RoPE: Llama, Mistral, Qwen2) q and k are rotated by their positions before the
score, so a head has one W_QK per offset δ = i − j between query and key: W_QK(δ) = diag(γ) W_Q^h R_δ
(diag(γ) W_K^h)ᵀ (``HeadWeights.rotation``). ``qk_ov(…, offset=δ)`` gives it, and C_K at one offset is
exact for keys at that offset only: a single number for the head (offset 0, the default) is an
approximation there, where GPT-2's (learned positions in the stream) is not. Under grouped-query
attention W_K^h and W_V^h are those of the key/value head that query head h shares.

The baseline: the same score for random matrices of the same factored shapes (W_QK = U Vᵀ and
W_OV = U' V' with standard normal U, V, U' ∈ ℝ^{d×d_h}, V' ∈ ℝ^{d_h×d}), averaged over draws.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from xai_tf import _checks, seeds
from xai_tf.circuits import limits
from xai_tf.models.loaded import LoadedModel, causal


def _head(lm: LoadedModel, layer: object, head: object) -> tuple[int, int]:
    return (
        _checks.integer("layer", layer, 0, lm.n_layer - 1),
        _checks.integer("head", head, 0, lm.n_head - 1),
    )


def qk_ov(model: LoadedModel | nn.Module, layer: int, head: int, offset: int = 0) -> tuple[Tensor, Tensor]:
    """``(W_QK, W_OV)``, each ``[d, d]``, of one head (the norm's gain folded in); under RoPE W_QK is the
    one of keys ``offset`` positions before the query (0..T_max−1; without RoPE it does not depend on it)."""
    lm = causal(model, "the QK and OV circuits of a head")
    layer, head = _head(lm, layer, head)
    offset = _checks.integer("offset", offset, 0, lm.n_ctx - 1)
    w = lm.model.head_weights(layer)
    W_q = w.W_Q[head] if w.rotation is None else w.W_Q[head] @ w.rotation(offset).to(w.W_Q.dtype)
    return W_q @ w.W_K[head].t(), w.W_V[head] @ w.W_O[head]


def k_composition(W_QK: Tensor, W_OV: Tensor) -> Tensor:
    """C_K = ‖W_QK (W_OV)ᵀ‖_F / (‖W_QK‖_F ‖W_OV‖_F): reading head's W_QK, writing head's W_OV."""
    W_QK, W_OV = _checks.tensor("W_QK", W_QK), _checks.tensor("W_OV", W_OV)
    if W_QK.dim() != 2 or W_QK.shape != W_OV.shape or W_QK.size(0) != W_QK.size(1) or not W_QK.numel():
        raise ValueError(
            f"W_QK and W_OV must be square [d, d] of one shape, got {tuple(W_QK.shape)}, {tuple(W_OV.shape)}"
        )
    W_QK, W_OV = _checks.real_tensor("W_QK", W_QK), _checks.real_tensor("W_OV", W_OV)
    dtype = _checks.compute_dtype(torch.empty(0, dtype=torch.promote_types(W_QK.dtype, W_OV.dtype)))
    # C_K does not change when either matrix is scaled: divide by the largest entry first, so that
    # 1e20·I (whose Frobenius norm overflows float32) is scored like I
    scaled = []
    for name, W in (("W_QK", W_QK), ("W_OV", W_OV)):
        peak = W.abs().max()
        if peak == 0:
            raise ValueError(f"{name} is all zeros: a head that reads or writes nothing has no composition")
        scaled.append(W.to(dtype) / peak.to(dtype))
    A, B = scaled
    return torch.linalg.matrix_norm(A @ B.t()) / (torch.linalg.matrix_norm(A) * torch.linalg.matrix_norm(B))


def k_composition_baseline(d: int, d_h: int, samples: int = 200, seed: int = 0) -> tuple[float, float]:
    """Mean and standard deviation of C_K over ``samples`` random W_QK = U Vᵀ, W_OV = U' V' (rank d_h)."""
    d = _checks.integer("d", d, 1, 8192)
    d_h = _checks.integer("d_h", d_h, 1, d)
    samples = _checks.integer("samples", samples, 2, 100_000)
    limits.within(
        f"the K-composition baseline of {samples} samples at d = {d}, d_h = {d_h}",
        4.0 * samples * (4 * d * d + 4 * d * d_h),
        samples * (2 * 2 * d * d * d_h + 2 * d * d * d),
        "use fewer samples or a smaller d",
    )
    g = seeds.generator(seed)
    U, V, U2 = (torch.randn(samples, d, d_h, generator=g, device="cpu") for _ in range(3))
    V2 = torch.randn(samples, d_h, d, generator=g, device="cpu")
    W_QK, W_OV = U @ V.transpose(1, 2), U2 @ V2
    scores = torch.linalg.matrix_norm(W_QK @ W_OV.transpose(1, 2)) / (
        torch.linalg.matrix_norm(W_QK) * torch.linalg.matrix_norm(W_OV)
    )
    return float(scores.mean()), float(scores.std())
