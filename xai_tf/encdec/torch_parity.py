"""Weights between ``torch.nn.Transformer`` and ``xai_tf.encdec.EncoderDecoder`` (lesson 17's parity check).

``torch.nn.MultiheadAttention`` stores W_q, W_k, W_v stacked as ``in_proj_weight [3 d_e, d_e]`` (same
[out, in] orientation as the lecture's W_q ∈ ℝ^{d_att×d_e}, so Q = E W_qᵀ) and W_o as ``out_proj``; its
masks say True = *hidden*, ours True = visible. ``from_torch`` copies a ``torch.nn.Transformer`` (ReLU MLP,
batch_first, any norm_first, the default ``layer_norm_eps`` 10⁻⁵ and ``bias=True``: ours has those fixed, so
any other is refused by name) into a new ``EncoderDecoder``; ``to_torch`` copies the other way.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor, nn

from xai_tf.encdec.stack import EncoderDecoder


def _attention_pairs(ours: Any, theirs: Any) -> list[tuple[Tensor, Tensor]]:
    """(ours, theirs) for a ``MultiHeadAttention`` and a ``torch.nn.MultiheadAttention``."""
    W = theirs.in_proj_weight.chunk(3)
    b = theirs.in_proj_bias.chunk(3)
    return [
        (ours.W_q, W[0]),
        (ours.W_k, W[1]),
        (ours.W_v, W[2]),
        (ours.b_q, b[0]),
        (ours.b_k, b[1]),
        (ours.b_v, b[2]),
        (ours.W_o, theirs.out_proj.weight),
        (ours.b_o, theirs.out_proj.bias),
    ]


def _norm_pairs(ours: Any, theirs: Any) -> list[tuple[Tensor, Tensor]]:
    return [(ours.gamma, theirs.weight), (ours.beta, theirs.bias)]


def _block_pairs(ours: Any, theirs: Any) -> list[tuple[Tensor, Tensor]]:
    """An encoder or decoder block's (ours, theirs) parameter pairs."""
    names = ["self_attn", "multihead_attn"][: len(ours.attn)]
    pairs = [
        p
        for a, name in zip(ours.attn, names, strict=True)
        for p in _attention_pairs(a, getattr(theirs, name))
    ]
    pairs += [(ours.mlp.lin1.weight, theirs.linear1.weight), (ours.mlp.lin1.bias, theirs.linear1.bias)]
    pairs += [(ours.mlp.lin2.weight, theirs.linear2.weight), (ours.mlp.lin2.bias, theirs.linear2.bias)]
    for i, norm in enumerate(ours.norms):
        pairs += _norm_pairs(norm, getattr(theirs, f"norm{i + 1}"))
    return pairs


def _check_fixed_settings(theirs: nn.Transformer) -> None:
    """ValueError unless every LayerNorm of ``theirs`` has ε = 10⁻⁵ and a bias (ours: ``blocks.LayerNorm``)
    and its linear maps have biases."""
    norms = [m for m in theirs.modules() if isinstance(m, nn.LayerNorm)]
    eps = sorted({m.eps for m in norms} - {1e-5})
    if eps:
        raise ValueError(f"layer_norm_eps must be 1e-05 (ours is fixed there), got {eps[0]:g}")
    linears = [m for m in theirs.modules() if isinstance(m, nn.Linear | nn.LayerNorm)]
    if any(m.bias is None for m in linears):
        raise ValueError("bias=False is not supported: ours has a bias in every linear map and LayerNorm")


def _pairs(ours: EncoderDecoder, theirs: nn.Transformer):
    if not isinstance(theirs, nn.Transformer):
        raise TypeError(f"theirs must be a torch.nn.Transformer, got {type(theirs).__name__}")
    _check_fixed_settings(theirs)
    enc, dec = theirs.encoder.layers, theirs.decoder.layers
    if (len(enc), len(dec)) != (len(ours.encoder), len(ours.decoder)):
        raise ValueError(
            f"layer counts differ: torch has {len(enc)} + {len(dec)}, "
            f"ours {len(ours.encoder)} + {len(ours.decoder)}"
        )
    pairs = [p for a, b in zip(ours.encoder, enc, strict=True) for p in _block_pairs(a, b)]
    pairs += [p for a, b in zip(ours.decoder, dec, strict=True) for p in _block_pairs(a, b)]
    pairs += _norm_pairs(ours.encoder_norm, theirs.encoder.norm)
    pairs += _norm_pairs(ours.decoder_norm, theirs.decoder.norm)
    return pairs


def _describe(t: nn.Transformer) -> dict:
    layer = t.encoder.layers[0]
    if layer.activation_relu_or_gelu != 1:
        raise ValueError("only the ReLU MLP (activation='relu', the default) is supported")
    if not layer.self_attn.batch_first:
        raise ValueError("build the torch.nn.Transformer with batch_first=True")
    return {
        "d_e": layer.self_attn.embed_dim,
        "n_heads": layer.self_attn.num_heads,
        "n_encoder": len(t.encoder.layers),
        "n_decoder": len(t.decoder.layers),
        "d_ff": layer.linear1.out_features,
        "dropout": float(layer.dropout.p),
        "norm_first": bool(layer.norm_first),
    }


@torch.no_grad()
def from_torch(theirs: nn.Transformer) -> EncoderDecoder:
    """A new ``EncoderDecoder`` with the weights (and dtype) of ``theirs``."""
    if not isinstance(theirs, nn.Transformer):
        raise TypeError(f"theirs must be a torch.nn.Transformer, got {type(theirs).__name__}")
    dtype = theirs.encoder.layers[0].linear1.weight.dtype
    ours = EncoderDecoder(**_describe(theirs)).to(dtype)
    for mine, other in _pairs(ours, theirs):
        mine.copy_(other)
    return ours.train(theirs.training)


@torch.no_grad()
def to_torch(ours: EncoderDecoder, theirs: nn.Transformer) -> nn.Transformer:
    """Copy the weights of ``ours`` into ``theirs`` (same sizes), in place; returns ``theirs``."""
    if not isinstance(ours, EncoderDecoder):
        raise TypeError(f"ours must be an EncoderDecoder, got {type(ours).__name__}")
    for mine, other in _pairs(ours, theirs):
        other.copy_(mine)
    return theirs
