"""Checkers for lesson 04: the sinusoidal position code, LayerNorm, GELU, the tied read-out (logit lens),
RMSNorm, the rotary position embedding (RoPE), the shifted next-token loss, the size of the key/value
cache and one token followed through the logit lens."""

from __future__ import annotations

import numbers
from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close
from xai_tf.explain import lens_track
from xai_tf.models import rope
from xai_tf.transformer import blocks, kv_cache_size, shifted_loss


@checker("LayerNorm", reference=blocks.layer_norm)
def check_layer_norm(fn: Callable[[Tensor, Tensor, Tensor], Tensor]) -> int:
    """Lesson 04: ``fn(u, gamma, beta)`` → γ ⊙ (u − μ) / √(σ² + 1e-5) + β over the last dim."""
    import torch.nn.functional as F

    gen = torch.Generator().manual_seed(0)
    shapes = [(8,), (3, 16), (2, 5, 32)]
    for shape in shapes:
        u = torch.randn(shape, generator=gen) * 3 + 1
        gamma, beta = torch.randn(shape[-1], generator=gen), torch.randn(shape[-1], generator=gen)
        want = F.layer_norm(u, shape[-1:], gamma, beta, 1e-5)
        got = fn(u.clone(), gamma, beta)
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want, atol=1e-4):
            unbiased = (u - u.mean(-1, keepdim=True)) / torch.sqrt(u.var(-1, keepdim=True) + 1e-5)
            if close(got, gamma * unbiased + beta, atol=1e-4):
                raise Mismatch("σ² is the biased variance (divide by d, not d − 1): var(unbiased=False)")
            plain = F.layer_norm(u, shape[-1:], None, None, 1e-5)
            if close(got, plain, atol=1e-4):
                raise Mismatch("apply the learned scale γ and shift β after normalising")
        expect_close("LN(u)", got, want, atol=1e-4)
    return len(shapes)


@checker("sinusoidal positions", reference=blocks.sinusoidal_positions)
def check_sinusoidal_positions(fn: Callable[[int, int], Tensor]) -> int:
    """Lesson 04: ``fn(n_positions, d)`` → PE ``[n_positions, d]``, PE[pos, 2i] = sin(pos / 10000^(2i/d)),
    PE[pos, 2i+1] = cos(pos / 10000^(2i/d)), positions from 0."""
    cases = [(6, 8), (50, 16)]
    for n, d in cases:
        want = blocks.sinusoidal_positions(n, d).double()
        got = fn(n, d)
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want):
            pos, j = torch.arange(n, dtype=torch.float64)[:, None], torch.arange(d, dtype=torch.float64)
            if close(got, torch.stack([want[:, 1::2], want[:, 0::2]], -1).flatten(1)):
                raise Mismatch(
                    "sin and cos are swapped: the even columns 2i hold the sines, the odd ones cosines"
                )
            own = pos / 10000.0 ** (j / d)  # every column its own frequency
            if close(got, torch.where(j % 2 == 0, own.sin(), own.cos())):
                raise Mismatch(
                    "columns 2i and 2i+1 share one frequency 10000^(−2i/d); yours gives column j 10000^(−j/d)"
                )
            if close(got, blocks.sinusoidal_positions(n + 1, d).double()[1:]):
                raise Mismatch("the positions start at 0: row 0 is sin 0 = 0 and cos 0 = 1")
        expect_close("PE", got, want)
    return len(cases)


@checker("GELU", reference=blocks.gelu_exact)
def check_gelu(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 04: ``fn(x)`` → GELU(x) = x Φ(x), Φ(x) = ½ (1 + erf(x / √2)) the standard normal CDF."""
    xs = [torch.linspace(-4, 4, 81), torch.randn(3, 5, generator=torch.Generator().manual_seed(1)) * 2]
    for x in xs:
        want = blocks.gelu_exact(x.double())
        got = fn(x.clone())
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want):
            if close(got, x.double() * blocks.lecture_phi(x.double())):
                raise Mismatch(
                    "that is x times the lecture's Φ, with 1/(2π) in front: the normal CDF has 1/√(2π), "
                    "so Φ(+∞) = 1 (the errata)"
                )
            if close(got, blocks.gelu_tanh(x.double())):
                raise Mismatch("that is GPT-2's tanh approximation: write the exact x Φ(x) with torch.erf")
            if close(got, want / x.double().masked_fill(x == 0, 1.0)):
                raise Mismatch("that is Φ(x): GELU multiplies it by x")
        expect_close("GELU(x)", got, want)
    return len(xs)


@checker("tied read-out", reference=blocks.unembed)
def check_unembed(fn: Callable[[Tensor, Tensor, Tensor, Tensor], Tensor]) -> int:
    """Lesson 04: ``fn(f, gamma, beta, W_e)`` → logits LN_f(f) W_eᵀ (LayerNorm with γ, β, ε = 1e-5)."""
    g = torch.Generator().manual_seed(2)
    shapes = [(5, 8), (2, 3, 8)]
    W_e = torch.randn(11, 8, generator=g)
    for shape in shapes:
        f = torch.randn(shape, generator=g) * 3 + 1
        gamma, beta = torch.rand(8, generator=g) + 0.5, torch.randn(8, generator=g)
        want = blocks.unembed(f.double(), gamma.double(), beta.double(), W_e.double())
        got = fn(f.clone(), gamma, beta, W_e)
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want, atol=1e-4):
            if close(got, f @ W_e.T, atol=1e-4):
                raise Mismatch("apply the final LayerNorm LN_f (with its γ and β) before multiplying by W_eᵀ")
            if close(got, want.softmax(-1), atol=1e-4):
                raise Mismatch("those are probabilities: the logits are LN_f(f) W_eᵀ, before any softmax")
            plain = blocks.layer_norm(f.double(), torch.ones(8).double(), torch.zeros(8).double())
            if close(got, plain @ W_e.double().T, atol=1e-4):
                raise Mismatch("LN_f has its own γ and β: scale and shift before W_eᵀ")
        expect_close("logits", got, want, atol=1e-4)
    return len(shapes)


@checker("RMSNorm", reference=blocks.rms_norm)
def check_rms_norm(fn: Callable[[Tensor, Tensor, float], Tensor]) -> int:
    """Lesson 04: ``fn(u, gamma, eps)`` → γ ⊙ u / √((1/d) Σ_j u_j² + ε) over the last dim."""
    g = torch.Generator().manual_seed(3)
    cases = [((8,), 3.0, 1e-6), ((3, 16), 3.0, 1e-5), ((2, 8), 1e-3, 1e-6)]  # the last: ε matters
    for shape, scale, eps in cases:
        u = (torch.randn(shape, generator=g) + 0.5) * scale
        gamma = torch.rand(shape[-1], generator=g) + 0.5
        u64, g64 = u.double(), gamma.double()
        want = blocks.rms_norm(u64, g64, eps)
        got = fn(u.clone(), gamma, eps)
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want, atol=1e-4):
            centred = u64 - u64.mean(-1, keepdim=True)
            if close(got, g64 * centred / (centred.pow(2).mean(-1, keepdim=True) + eps).sqrt(), atol=1e-4):
                raise Mismatch("RMSNorm does not subtract the mean: divide u itself by its root mean square")
            if close(got, g64 * u64 / (u64.pow(2).sum(-1, keepdim=True) + eps).sqrt(), atol=1e-4):
                raise Mismatch(
                    "that divides by the norm ‖u‖: the root *mean* square takes the mean of u², not the sum"
                )
            if close(got, g64 * u64 / (u64.pow(2).mean(-1, keepdim=True).sqrt() + eps), atol=1e-4):
                raise Mismatch("ε goes inside the square root: √(mean(u²) + ε)")
        expect_close("RMS(u)", got, want, atol=1e-4)
    return len(cases)


def _turned(
    x: Tensor, positions: Tensor, theta: float, step: int = 2, sign: float = 1.0, pairs: str = "half"
) -> Tensor:
    """R_p x in float64 with each pair (a, b) turned by sign · p θ^(−step·c/d_h): pairs
    (c, c + d_h/2) (``"half"``, the lesson's layout) or (2c, 2c + 1) (``"adjacent"``): the checker's reference
    and its mistakes."""
    x, d = x.double(), x.size(-1)
    c = torch.arange(d // 2, dtype=torch.float64)
    angles = positions.double()[:, None] * theta ** (-step * c / d)  # [T, d_h/2]
    cos, sin = angles.cos(), sign * angles.sin()
    a, b = (x[..., 0::2], x[..., 1::2]) if pairs == "adjacent" else x.chunk(2, -1)
    ra, rb = a * cos - b * sin, a * sin + b * cos
    return torch.stack([ra, rb], -1).flatten(-2) if pairs == "adjacent" else torch.cat([ra, rb], -1)


@checker("RoPE rotation", reference=rope.rotary)
def check_rotary(fn: Callable[[Tensor, Tensor, float], Tensor]) -> int:
    """Lesson 04: ``fn(x, positions, theta)`` → R_p x for ``x`` ``[..., T, d_h]`` at ``positions`` ``[T]``:
    dimensions c and c + d_h/2 turn by p θ^(−2c/d_h), c = 0..d_h/2 − 1 (rotate-half layout)."""
    g = torch.Generator().manual_seed(4)
    cases = [((5, 8), 10000.0), ((2, 3, 7, 16), 500.0)]
    for shape, theta in cases:
        x = torch.randn(shape, generator=g)
        positions = torch.arange(shape[-2]) * 3 + 2
        want = _turned(x, positions, theta)
        got = fn(x.clone(), positions.clone(), theta)
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want, atol=1e-4):
            if close(got, _turned(x, positions, theta, pairs="adjacent"), atol=1e-4):
                raise Mismatch(
                    "that turns adjacent pairs (2c, 2c + 1): this layout pairs dimension c with c + d_h/2 "
                    "(x.chunk(2, -1))"
                )
            if close(got, _turned(x, positions, theta, sign=-1.0), atol=1e-4):
                raise Mismatch(
                    "that turns the wrong way: the first half gets x₁ cos − x₂ sin, "
                    "the second x₂ cos + x₁ sin"
                )
            if close(got, _turned(x, positions, theta, step=1), atol=1e-4):
                raise Mismatch(
                    "pair c turns by p θ^(−2c/d_h): yours uses θ^(−c/d_h), the exponent needs the 2"
                )
        expect_close("R_p x", got, want, atol=1e-4)
    return len(cases)


@checker("next-token loss", reference=shifted_loss.shifted_cross_entropy)
def check_shifted_cross_entropy(fn: Callable[[Tensor, Tensor], Tensor]) -> int:
    """Lesson 04: ``fn(logits, ids)`` → L = −(1/(T−1)) Σ_t log softmax(logits[t])[ids[t+1]], t = 0..T−2,
    for logits ``[T, D]`` and ids ``[T]``: a 0-d tensor."""
    import torch.nn.functional as F

    g = torch.Generator().manual_seed(5)
    cases = [(6, 10), (12, 30)]
    for T, D in cases:
        logits = torch.randn(T, D, generator=g) * 2
        ids = torch.randint(D, (T,), generator=g)
        z = logits.double()
        want = F.cross_entropy(z[:-1], ids[1:])
        got = fn(logits.clone(), ids.clone())
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want, atol=1e-4):
            if close(got, F.cross_entropy(z, ids), atol=1e-4) or close(
                got, F.cross_entropy(z[1:], ids[:-1]), atol=1e-4
            ):
                raise Mismatch("position t predicts token t + 1: score logits[:-1] against ids[1:]")
            if close(got, want * (T - 1), atol=1e-4):
                raise Mismatch("that is the lecture's sum L_sum: L is the mean over the T − 1 predictions")
            if close(got, -want, atol=1e-4):
                raise Mismatch("the loss is the *negative* log-likelihood: put a minus in front of the log")
        expect_close("L", got, want, atol=1e-4)
    return len(cases)


@checker("key/value cache size", reference=kv_cache_size.kv_cache_size)
def check_kv_cache_size(fn: Callable[[int, int, int, int, int, int], object]) -> int:
    """Lesson 04: ``fn(n_layer, T, n_head, n_kv_head, d_head, bytes_per_number)`` → 2 · L · T · H_kv · d_h ·
    bytes per number, a whole number (int, float or a 0-d tensor)."""
    cases = [(4, 10, 8, 2, 16, 4), (2, 7, 6, 3, 8, 2), (3, 5, 4, 4, 12, 4)]  # the last: multi-head
    for L, T, H, H_kv, d_h, size in cases:
        want = 2 * L * T * H_kv * d_h * size
        got = fn(L, T, H, H_kv, d_h, size)
        if got is None:
            raise Mismatch("bytes is None: did you forget to `return` it?")
        if isinstance(got, Tensor) and got.dim() == 0:
            got = got.item()
        if not isinstance(got, numbers.Real):
            raise Mismatch(f"bytes should be a number, got {type(got).__name__}")
        got = float(got)
        wrong = {
            want // 2: "the cache keeps keys *and* values: the factor 2",
            want // H_kv * H: "each layer caches the H_kv key/value heads, not the H query heads",
            want // size: "that counts numbers: multiply by the bytes per number",
        }
        if abs(got - want) > 0.5:
            for value, message in wrong.items():
                if abs(got - value) <= 0.5 and value != want:
                    raise Mismatch(message)
            raise Mismatch(
                f"bytes for L={L}, T={T}, H={H}, H_kv={H_kv}, d_h={d_h}, {size} bytes: {got}, expected {want}"
            )
    return len(cases)


@checker("the final token through the lens", reference=lens_track.final_token_probability)
def check_final_token_probability(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 04: ``fn(z)`` → p ``[L + 1]``, p_l = softmax(z[l])[v*], v* = argmax z[-1], for lens logits
    ``z`` ``[L + 1, D]``."""
    g = torch.Generator().manual_seed(6)
    shapes = [(4, 9), (7, 40)]
    for shape in shapes:
        z = torch.randn(shape, generator=g) * 2
        z64 = z.double()
        want = z64.softmax(-1)[:, z64[-1].argmax()]
        got = fn(z.clone())
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want):
            if close(got, z64.softmax(-1).max(-1).values):
                raise Mismatch(
                    "that is each layer's own top probability: follow the token the *last* layer ranks first"
                )
            if close(got, z64[:, z64[-1].argmax()]):
                raise Mismatch("those are logits: take the softmax over the vocabulary first")
            if close(got, z64.softmax(0)[:, z64[-1].argmax()]):
                raise Mismatch("the softmax ran over the layers (dim 0): take it over the vocabulary, dim=-1")
        expect_close("p", got, want)
    return len(shapes)
