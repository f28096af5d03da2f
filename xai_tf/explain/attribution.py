"""Explaining one prediction of a transformer with gradients (lesson 06).

Tokens are discrete, so we split the model as f = g ∘ e (the lecture's notation): e looks up the
sequence's token embeddings E(x) = W_e[x] ∈ ℝ^{T×d_e}, and g maps them (with the fixed position
embeddings) to a scalar F(E) — the logit, probability or log-probability of a chosen token at a
chosen position, or a classifier's class score. Every method differentiates F with respect to E and
reduces over the d_e embedding dimensions to one score per token.

Sign convention: a positive token score means the token *raises* F; negative, it lowers F.

Methods (∇_t = ∂F/∂E_t ∈ ℝ^{d_e}, the gradient; the lecture writes it g too, and code calls it g):
- gradient saliency, aggregated over d_e: G-avg = (1/d_e) Σ_j ∇_tj, G-L1 = (1/d_e) Σ_j |∇_tj|,
  G-L2 = √((1/d_e) Σ_j ∇_tj²) (see ``gradient_saliency``);
- gradient × input: Σ_j ∇_tj E_tj;
- leave-one-out (occlusion): F(x) − F(x with token t replaced or dropped);
- integrated gradients (Sundararajan et al., 2017) along the straight path from a baseline E' to E:
      IG_tj = (E_tj − E'_tj) ∫₀¹ ∂F(E' + α(E − E'))/∂E_tj dα,
  with completeness Σ_tj IG_tj = F(E) − F(E'); the integral is a quadrature, so every result carries
  its completeness error delta = Σ IG − (F(E) − F(E')). The default quadrature is Gauss–Legendre
  (as Captum's); ``method="riemann_right"`` is the lecture's (and RevLLM's) right Riemann sum
  (1/m) Σ_{k=1..m} at α = k/m, first order: at m = 50 its delta is often several % of F(E) − F(E').
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, cast

import torch
from torch import Tensor, nn

from xai_tf import _checks
from xai_tf.explain._readout import inputs_only
from xai_tf.explain.path_integral import METHODS, Scalar, path_integrated_gradients, quadrature
from xai_tf.models.architecture import CausalLM
from xai_tf.models.loaded import LoadedModel, causal

__all__ = ["METHODS", "path_integrated_gradients", "quadrature"]  # re-exported: lessons use attr.METHODS

#: What F reads from the scores: the logit itself, the log-probability log softmax, or the
#: probability softmax (RevLLM's choice); completeness holds for each with its own F.
OUTPUTS = ("logit", "logprob", "prob")


@dataclass
class IGResult:
    """Integrated gradients of one prediction: ``attributions`` [T, d], ``token_scores`` [T]
    (summed over d), F at the input and at the baseline, and the completeness error ``delta``."""

    attributions: Tensor
    token_scores: Tensor
    f_input: float
    f_baseline: float
    delta: float

    @property
    def relative_delta(self) -> float:
        """|delta| / |F(x) − F(x')| — the share of the difference the quadrature missed."""
        return abs(self.delta) / max(abs(self.f_input - self.f_baseline), 1e-12)


class Explained(Protocol):
    """What the attributions read of a network: its token embedding W_e (``embedding``, ``embed``),
    its check of token ids, F's scores from token embeddings, and its memory estimate per sequence.
    A ``CausalLM`` meets it, and so do the classifiers of ``xai_tf.tasks``."""

    @property
    def embedding(self) -> Tensor: ...

    def embed(self, input_ids: Tensor, /) -> Tensor: ...

    def backward_bytes(self, T: int, /) -> int: ...

    def check_input_ids(self, input_ids: Sequence[int] | Tensor, /) -> Tensor: ...

    def forward_embeddings(self, token_embeddings: Tensor, /) -> Tensor: ...


def _module(model: nn.Module | LoadedModel) -> Explained:
    """The network whose F is explained: a task model with ``forward_embeddings`` (a classifier on
    top of a language model, ``xai_tf.tasks``) as it is, otherwise the causal model of the handle."""
    if isinstance(model, nn.Module) and hasattr(model, "forward_embeddings"):
        return cast(Explained, model)
    return cast(Explained, causal(model, "attribution to the token embeddings").model)


def named_baselines(lm: LoadedModel) -> dict[str, str | int]:
    """The baselines x' a lesson offers by name: token 0 repeated (RevLLM), the zero embedding,
    end-of-text repeated, a space repeated."""
    lm = causal(lm, "attribution to the token embeddings")
    return {
        "token 0": "token0",
        "zeros": "zeros",
        "end-of-text": lm.eot_token,
        "space": lm.tokenizer.encode(" ")[0],
    }


def _token_ids(module: Explained, input_ids: Sequence[int] | Tensor) -> Tensor:
    if isinstance(input_ids, str) or not isinstance(input_ids, Tensor | list | tuple):
        raise TypeError(
            f"input_ids must be a list or tensor of token ids, got {type(input_ids).__name__}"
            + (": tokenize the text first (lm.to_tokens)" if isinstance(input_ids, str) else "")
        )
    ids = module.check_input_ids(input_ids)
    if ids.size(0) != 1:
        raise ValueError(f"explain one prompt at a time: input_ids has shape {tuple(ids.shape)}")
    return ids[0]


def target_function(
    model: nn.Module | LoadedModel, target: int, position: int = -1, output: str = "logit", T: int = 1
) -> Scalar:
    """F(E) for token embeddings E ``[n, T, d_e]``: the ``output`` (see ``OUTPUTS``) of token
    ``target`` at ``position`` (−T..T−1) for a language model, or of class ``target`` for a classifier
    (whose forward_embeddings returns ``[n, classes]``; position is then unused). A language model's
    logit is read as LN_f(h_L)[position] · W_U[target]: one row of the unembedding, not all T × D
    logits, and LN_f(h_L)[position] without the work it does not depend on (``CausalLM.readout``; the
    hot path of integrated gradients)."""
    module = _module(model)
    if output not in OUTPUTS:
        raise ValueError(f"output must be one of {OUTPUTS}, got {output!r}")
    _checks.integer("position", position, -T, T - 1)

    lm = module if isinstance(module, CausalLM) else None  # checked once: F runs at every path point

    def F(E: Tensor) -> Tensor:
        if lm is not None:
            W_U = lm.unembedding  # [D, d_e]
            _checks.integer("target", target, 0, W_U.size(0) - 1)
            h = lm.readout(E, position)  # [n, d_e], without the work it does not depend on
            if output == "logit":
                return h @ W_U[target]
            scores = h @ W_U.T
        else:
            scores = module.forward_embeddings(E)
            _checks.integer("target", target, 0, scores.size(-1) - 1)
        if output != "logit":
            scores = scores.log_softmax(-1) if output == "logprob" else scores.softmax(-1)
        return scores[:, target]

    return F


def baseline_ids(
    module: Explained, ids: Tensor, baseline: str | int | Sequence[int] | Tensor
) -> Tensor | None:
    """The baseline as token ids ``[T]``: "token0" (token 0 repeated, as in RevLLM), a token id
    repeated (e.g. end-of-text, or a space), or ids of the prompt's length; None for "zeros"."""
    if isinstance(baseline, str):
        if baseline == "zeros":
            return None
        if baseline != "token0":
            raise ValueError(f"baseline must be 'token0', 'zeros', a token id or token ids, got {baseline!r}")
        baseline = 0
    if isinstance(baseline, bool) or not isinstance(baseline, numbers.Integral | list | tuple | Tensor):
        raise TypeError(
            f"baseline must be 'token0', 'zeros', a token id or token ids, got {type(baseline).__name__}"
        )
    if isinstance(baseline, numbers.Integral):
        baseline = [baseline] * len(ids)
    b = torch.as_tensor(baseline, device=ids.device).long()
    if b.shape != ids.shape:
        raise ValueError(f"baseline ids have shape {tuple(b.shape)}, the prompt {tuple(ids.shape)}")
    vocab = module.embedding.size(0)
    if b.min() < 0 or b.max() >= vocab:
        raise ValueError(f"baseline ids must lie in 0..{vocab - 1}")
    return b


def _explained(
    model: nn.Module | LoadedModel, input_ids: Sequence[int] | Tensor, target: int, position: int, output: str
) -> tuple[Explained, Tensor, Scalar]:
    """The module, the prompt's ids [T] (checked), and F for the explained output."""
    module = _module(model)
    ids = _token_ids(module, input_ids)
    return module, ids, target_function(model, target, position, output, len(ids))


def _embeddings(
    module: Explained, ids: Tensor, baseline: str | int | Sequence[int] | Tensor
) -> tuple[Tensor, Tensor]:
    E = module.embed(ids).detach()
    b = baseline_ids(module, ids, baseline)
    return E, torch.zeros_like(E) if b is None else module.embed(b).detach()


def integrated_gradients(
    model: nn.Module | LoadedModel,
    input_ids: Sequence[int] | Tensor,
    target: int,
    baseline: str | int | Sequence[int] | Tensor = "token0",
    n_steps: int = 50,
    method: str = "gausslegendre",
    position: int = -1,
    output: str = "logit",
    batch_size: int | None = None,
) -> IGResult:
    """IG on the token embeddings E(x) from the baseline E(x′) with m = ``n_steps`` gradient
    evaluations (position embeddings stay fixed) — the same quantity as Captum's
    ``LayerIntegratedGradients`` on the token-embedding layer with baseline ids. ``method`` is the
    quadrature: "gausslegendre" (the default, as Captum's) or "riemann_right" (the lecture's
    (1/m) Σ_{k=1..m} at α = k/m). ``output`` picks F: "logit", "logprob" or "prob". ``batch_size``
    path points go through the model at once; None picks the most that fit ``IG_MEMORY``."""
    module, ids, F = _explained(model, input_ids, target, position, output)
    E, E_base = _embeddings(module, ids, baseline)
    if batch_size is None:
        batch_size = _fitting_batch(module, len(ids))
    with inputs_only(cast(nn.Module, module)):
        return _ig_result(F, E, E_base, n_steps, method, _checks.integer("batch_size", batch_size, 1))


#: The memory the path points of one IG batch may keep for their backward pass (Binder has 2 GB).
IG_MEMORY = 256 * 2**20


def _fitting_batch(module: Explained, T: int) -> int:
    """The most path points whose backward pass fits ``IG_MEMORY`` (at least 1)."""
    return max(1, IG_MEMORY // module.backward_bytes(T))


def _ig_result(
    F: Scalar, E: Tensor, E_base: Tensor, n_steps: int, method: str, batch_size: int | None
) -> IGResult:
    attributions = path_integrated_gradients(F, E, E_base, n_steps, method, batch_size)
    with torch.no_grad():
        f_x, f_b = (float(v) for v in F(torch.stack([E, E_base])))
    delta = float(attributions.double().sum()) - (f_x - f_b)
    return IGResult(attributions, attributions.sum(-1), f_x, f_b, delta)


def sequential_integrated_gradients(
    model: nn.Module | LoadedModel,
    input_ids: Sequence[int] | Tensor,
    target: int,
    baseline: str | int | Sequence[int] | Tensor = "token0",
    n_steps: int = 50,
    method: str = "gausslegendre",
    position: int = -1,
    output: str = "logit",
) -> tuple[Tensor, Tensor]:
    """Sequential IG (Enguehard, 2023): for each token t only E_t moves from its baseline to its
    value, the other tokens stay as they are. Returns ``(token_scores [T], deltas [T])``; token t's
    completeness is score_t = F(E) − F(E with E_t := E'_t) + delta_t (delta_t = score_t minus that
    difference, as for IG)."""
    module, ids, F = _explained(model, input_ids, target, position, output)
    E, E_base = _embeddings(module, ids, baseline)
    scores, deltas = E.new_zeros(len(ids)), E.new_zeros(len(ids))
    for t in range(len(ids)):
        start = E.clone()
        start[t] = E_base[t]
        result = _ig_result(F, E, start, n_steps, method, _fitting_batch(module, len(ids)))
        scores[t], deltas[t] = result.token_scores.sum(), result.delta
    return scores, deltas


def embedding_gradients(
    model: nn.Module | LoadedModel,
    input_ids: Sequence[int] | Tensor,
    target: int,
    position: int = -1,
    output: str = "logit",
) -> tuple[Tensor, Tensor]:
    """``(g, E)``: the gradient ∇ = ∂F/∂E ``[T, d_e]`` at the prompt's token embeddings E(x)
    ``[T, d_e]``; ``output`` picks F ("logit", "logprob" or "prob")."""
    module, ids, F = _explained(model, input_ids, target, position, output)
    E = module.embed(ids).detach().requires_grad_(True)
    (g,) = torch.autograd.grad(F(E[None]).sum(), E)
    return g, E.detach()


def gradient_saliency(g: Tensor, aggregation: str = "l2") -> Tensor:
    """One score per token from the gradient g = ∇ ``[T, d_e]``, reduced over the d_e embedding dims:

        "avg":         G-avg_t = (1/d_e) Σ_j ∇_tj          (signed: the mean direction of the gradient)
        "l1":          G-L1_t  = (1/d_e) Σ_j |∇_tj|        (the mean absolute value)
        "l2":          G-L2_t  = √((1/d_e) Σ_j ∇_tj²)      (the root mean square: lecture 000's G-L2)
        "mean-square": (1/d_e) Σ_j |∇_tj|² = (G-L2_t)²    (lecture 002's G-L2, written without the root)

    The two lectures' G-L2 rank the tokens in the same order (squaring is increasing on scores ≥ 0)
    but not on the same scale: the square stretches the gaps between large and small scores.
    Both are ‖∇_t‖₂ up to a monotone map (G-L2 = ‖∇_t‖₂ / √d_e).
    """
    reductions = {
        "avg": lambda: g.mean(-1),
        "l1": lambda: g.abs().mean(-1),
        "l2": lambda: g.pow(2).mean(-1).sqrt(),
        "mean-square": lambda: g.pow(2).mean(-1),
    }
    if aggregation not in reductions:
        raise ValueError(f"aggregation must be one of {list(reductions)}, got {aggregation!r}")
    return reductions[aggregation]()


def gradient_times_input(g: Tensor, E: Tensor) -> Tensor:
    """Σ_j ∇_tj E_tj per token (g = ∇ and E ``[T, d_e]``): to first order, how much F *drops* if
    E_t is set to 0, F(E) − F(E with E_t := 0) ≈ Σ_j ∇_tj E_tj (exact when F is linear in E_t)."""
    if g.shape != E.shape:
        raise ValueError(f"g has shape {tuple(g.shape)}, E {tuple(E.shape)}")
    return (g * E).sum(-1)


@torch.no_grad()
def leave_one_out(
    model: nn.Module | LoadedModel,
    input_ids: Sequence[int] | Tensor,
    target: int,
    replacement: int | None = 0,
    position: int = -1,
    output: str = "logit",
) -> Tensor:
    """Occlusion: score_t = F(x) − F(x with token t replaced by ``replacement``), or with token t
    dropped when ``replacement`` is None (then only for the prediction after the whole prompt,
    ``position=-1``, which is read after the shortened prompt)."""
    module, ids, F = _explained(model, input_ids, target, position, output)
    if replacement is not None:
        _checks.integer("replacement", replacement, 0, module.embedding.size(0) - 1)
    if replacement is None and (position != -1 or len(ids) == 1):
        raise ValueError(
            f"dropping tokens needs position=-1 and at least 2 tokens, got {position}, {len(ids)}"
        )
    T = len(ids)
    f_x = F(module.embed(ids)[None])
    if replacement is None:  # row t: the prompt without token t, [T, T − 1]
        keep = ~torch.eye(T, dtype=torch.bool, device=ids.device)
        changed = ids.expand(T, T)[keep].view(T, T - 1)
    else:  # row t: the prompt with token t replaced, [T, T]
        changed = ids.expand(T, T).clone()
        changed.diagonal().fill_(replacement)
    n = _fitting_batch(module, changed.size(1))  # rows per forward pass (a forward keeps less)
    f_changed = torch.cat([F(module.embed(rows)) for rows in changed.split(n)])
    return (f_x - f_changed).float()
