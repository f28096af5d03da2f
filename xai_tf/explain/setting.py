"""The attribution setting (lessons 06, 08, 20): what every token attribution of ``xai_tf.explain`` reads.

Tokens are discrete, so a model is split as f = g ∘ e (the lecture's notation): e looks up the token
embeddings E(x) = W_e[x] ∈ ℝ^{T×d_e}, and g maps them (with the fixed position embeddings) to a scalar
F(E) — the logit, probability or log-probability of a chosen token at a chosen position, or a
classifier's class score. This module holds the pieces every method shares:

- ``Explained``, what a method reads of a network, and ``explained_module``, the network of a handle;
- ``target_function``, F; ``OUTPUTS``, what F reads of the scores;
- ``baseline_ids`` and ``named_baselines``, the reference x′, and ``embeddings``, E and E′ = E(x′);
- ``explained``, the three at once for one prompt; ``fitting_batch``, how many path points fit
  ``IG_MEMORY``.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Protocol, cast

import torch
from torch import Tensor, nn

from xai_tf import _checks
from xai_tf.explain.path_integral import Scalar
from xai_tf.models.architecture import CausalLM
from xai_tf.models.loaded import LoadedModel, causal

#: What F reads from the scores: the logit itself, the log-probability log softmax, or the
#: probability softmax (RevLLM's choice); completeness holds for each with its own F.
OUTPUTS = ("logit", "logprob", "prob")


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


def explained_module(model: nn.Module | LoadedModel) -> Explained:
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


def token_ids(module: Explained, input_ids: Sequence[int] | Tensor) -> Tensor:
    if isinstance(input_ids, str) or not isinstance(input_ids, Tensor | list | tuple):
        raise TypeError(
            f"input_ids must be a list or tensor of token ids, got {type(input_ids).__name__}"
            + (": tokenize the text first (lm.encode(text))" if isinstance(input_ids, str) else "")
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
    module = explained_module(model)
    if output not in OUTPUTS:
        raise ValueError(f"output must be one of {OUTPUTS}, got {output!r}")
    _checks.integer("position", position, -T, T - 1)

    lm = module if isinstance(module, CausalLM) else None  # checked once: F runs at every path point
    if lm is not None:  # a classifier's class count is known once it has run (checked in F)
        _checks.integer("target", target, 0, lm.unembedding.size(0) - 1)

    def F(E: Tensor) -> Tensor:
        if lm is not None:
            W_U = lm.unembedding  # [D, d_e]; target was checked against D when F was made
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


def explained(
    model: nn.Module | LoadedModel, input_ids: Sequence[int] | Tensor, target: int, position: int, output: str
) -> tuple[Explained, Tensor, Scalar]:
    """The module, the prompt's ids [T] (checked), and F for the explained output."""
    module = explained_module(model)
    ids = token_ids(module, input_ids)
    return module, ids, target_function(model, target, position, output, len(ids))


def embeddings(
    module: Explained, ids: Tensor, baseline: str | int | Sequence[int] | Tensor
) -> tuple[Tensor, Tensor]:
    E = module.embed(ids).detach()
    b = baseline_ids(module, ids, baseline)
    return E, torch.zeros_like(E) if b is None else module.embed(b).detach()


#: The memory the path points of one IG batch may keep for their backward pass (Binder has 2 GB).
IG_MEMORY = 256 * 2**20


def fitting_batch(module: Explained, T: int) -> int:
    """The most path points whose backward pass fits ``IG_MEMORY`` (at least 1)."""
    return max(1, IG_MEMORY // module.backward_bytes(_checks.integer("T", T, 1)))
