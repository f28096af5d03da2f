"""Attention read with vector norms (Kobayashi, Kuribayashi, Yokoi and Inui, 2020; lesson 07).

Lecture 001 cites the paper beside Brunner et al. (2020) under "token identifiability across layers". In
the paper's notation (row vectors; x_j the attention layer's input at token j, after GPT-2's LN_1; W^V,
b^V the head's value map and W^O the head's d_h rows of the output projection), one head writes at
query i

    y_i = Σ_j α_ij f(x_j),    f(x) = (x W^V + b^V) W^O,

and the layer adds the heads' y_i and the output bias b^O (once per layer: it comes from no token). So
token j adds the *vector* α_ij f(x_j) to what query i receives, and the size of that contribution is

    ‖α_ij f(x_j)‖ = α_ij ‖f(x_j)‖          (α_ij ≥ 0),

the reading the paper sets against α_ij. A large weight on a token whose f(x) is small moves little:
Kobayashi et al. find, on BERT, that heads putting much α on [CLS], [SEP] and punctuation give those
tokens small ‖f(x)‖, so the norms' share on them is far smaller than α's.

Read through the protocol (``models/architecture.py``), for GPT-2, Llama and BERT alike:
- α is the hook ``attn``, and v_j = x_j W^V + b^V the hook ``v`` ([batch, H_kv, T, d_h]; under
  grouped-query attention a key/value head serves H / H_kv query heads and is repeated for each);
- W^O: a causal model gives it (``CausalLM.head_weights``). An encoder's is read through the hooks: the
  attention output is affine in the heads' outputs z (hook ``z``, [batch, H, T, d_h]),
  attn_out = Σ_h z_h W^O_h + b^O, so feeding z = e_{h,k} (1 at head h's coordinate k, 0 elsewhere) and
  subtracting the output for z = 0 gives row k of W^O_h: every layer at once, in one forward pass of a
  batch of H d_h + 1 one-token sequences (``hook_projections``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.models.architecture import CausalLM
from xai_tf.models.loaded import LoadedModel


@dataclass(frozen=True)
class NormBased:
    """One prompt's attention and its norm-based reading, every layer and head: ``attn`` α
    ``[L, H, T, T]``, ``f_norms`` ‖f(x_j)‖ ``[L, H, T]`` and ``norms`` ‖α_ij f(x_j)‖ ``[L, H, T, T]``."""

    attn: Tensor
    f_norms: Tensor
    norms: Tensor


def _loaded(lm: object) -> LoadedModel:
    if not isinstance(lm, LoadedModel):
        raise TypeError(f"lm must be the model handle of xai_tf.load_model, got {type(lm).__name__}")
    return lm


def output_projections(lm: LoadedModel) -> Tensor:
    """W^O of every head, ``[L, H, d_h, d]``: head h of layer l writes z_h W^O[l, h] (row vectors). A causal
    model gives it through the protocol (``CausalLM.head_weights``); an encoder's is read through the hooks
    (``hook_projections``)."""
    model = _loaded(lm).model
    if isinstance(model, CausalLM):
        return torch.stack([model.head_weights(layer).W_O for layer in range(model.sizes.n_layer)])
    return hook_projections(lm)


@torch.no_grad()
def hook_projections(lm: LoadedModel) -> Tensor:
    """W^O of every head, ``[L, H, d_h, d]``, read from the hook ``attn_out`` with ``z`` replaced by unit
    vectors (the module's docstring): any architecture, at the cost of one forward pass of H d_h + 1
    one-token sequences."""
    model = _loaded(lm).model
    L, H, d_h = model.sizes.n_layer, model.sizes.n_head, model.sizes.d_head
    p = next(model.parameters())
    n = H * d_h
    basis = torch.cat(
        [torch.zeros(1, n, dtype=p.dtype, device=p.device), torch.eye(n, dtype=p.dtype, device=p.device)]
    )
    z = basis.view(1 + n, H, 1, d_h)  # (B, nh, T=1, hs): sequence 1 + h d_h + k is e_{h,k}
    ids = torch.zeros(1 + n, 1, dtype=torch.long, device=p.device)
    outs: dict[int, Tensor] = {}

    def keep(layer: int) -> Callable[[Tensor], Tensor]:
        def hook(a: Tensor) -> Tensor:
            outs[layer] = a[:, 0]  # [1 + H d_h, d]
            return a

        return hook

    hooks = {("z", layer): lambda _: z for layer in range(L)}
    model(
        ids, hooks=hooks | {("attn_out", layer): keep(layer) for layer in range(L)}
    )  # no cache: less memory
    out = torch.stack([outs[layer] for layer in range(L)])  # [L, 1 + H d_h, d]
    return (out[:, 1:] - out[:, :1]).reshape(L, H, d_h, -1)


def weighted_norms(attn: Tensor, v: Tensor, W_O: Tensor) -> Tensor:
    """‖α_ij f(x_j)‖ = α_ij ‖v_j W^O_h‖ for every head → ``[..., H, T, T]``, from ``attn`` α
    ``[..., H, T, T]`` (rows: queries i), ``v`` the values v_j = x_j W^V + b^V ``[..., H, T, d_h]`` and
    ``W_O`` ``[..., H, d_h, d]``."""
    attn, v, W_O = (_checks.real_tensor(n, x) for n, x in (("attn", attn), ("v", v), ("W_O", W_O)))
    if attn.dim() < 3 or attn.size(-1) != attn.size(-2):
        raise ValueError(f"attn must be [..., H, T, T], got {tuple(attn.shape)}")
    H, T = attn.shape[-3:-1]
    if v.dim() < 3 or v.shape[-3:-1] != (H, T):
        raise ValueError(
            f"v must be [..., {H}, {T}, d_h] to match attn {tuple(attn.shape)}, got {tuple(v.shape)}"
        )
    if W_O.dim() < 3 or W_O.shape[-3:-1] != (H, v.size(-1)):
        raise ValueError(f"W_O must be [..., {H}, {v.size(-1)}, d] to match v, got {tuple(W_O.shape)}")
    if (attn < 0).any():
        raise ValueError("attn must be attention weights ≥ 0")
    f_norms = (v @ W_O).norm(dim=-1)  # ‖f(x_j)‖ [..., H, T]
    return attn * f_norms.unsqueeze(-2)


@torch.no_grad()
def norm_based(lm: LoadedModel, input_ids: Tensor | Sequence[int]) -> NormBased:
    """α, ‖f(x_j)‖ and ‖α_ij f(x_j)‖ of every layer and head for one prompt (``NormBased``), read through
    the hooks ``attn`` and ``v`` and ``output_projections``."""
    model = _loaded(lm).model
    ids = model.check_input_ids(input_ids)
    if ids.size(0) != 1:
        raise ValueError(f"input_ids must be one prompt, got a batch of shape {tuple(ids.shape)}")
    _, cache = model.run_with_cache(ids)
    attn, v = cache.stack("attn")[:, 0], cache.stack("v")[:, 0]  # [L, H, T, T], [L, H_kv, T, d_h]
    v = v.repeat_interleave(model.sizes.n_head // model.sizes.n_kv_head, dim=1)
    f_norms = (v @ output_projections(lm)).norm(dim=-1)
    return NormBased(attn, f_norms, attn * f_norms.unsqueeze(-2))


def column_share(weights: Tensor, columns: Sequence[int]) -> Tensor:
    """The share of each row's total that goes to ``columns`` S, averaged over the rows:
    mean_i Σ_{j∈S} w_ij / Σ_k w_ik, for ``weights`` ``[..., T, T]`` ≥ 0 → ``[...]``. For α (rows sum
    to 1) it is the attention S receives per query; for ‖α_ij f(x_j)‖ the share of the norms."""
    weights = _checks.real_tensor("weights", weights)
    if weights.dim() < 2 or weights.size(-1) != weights.size(-2):
        raise ValueError(f"weights must be [..., T, T], got {tuple(weights.shape)}")
    if (weights < 0).any():
        raise ValueError("weights must be ≥ 0 (attention weights or norms)")
    S = _checks.indices("columns", columns, weights.size(-1))
    if not S:
        raise ValueError("columns is empty: name at least one token position")
    total = weights.sum(-1)
    if (total <= 0).any():
        raise ValueError("weights has a row that sums to 0: a share of it is undefined")
    return (weights[..., S].sum(-1) / total).mean(-1)
