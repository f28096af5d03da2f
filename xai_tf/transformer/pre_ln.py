"""One pre-LN block as two residual updates (lesson 04, sections 4–5): GPT-2 normalises the *input* of each
sub-layer and adds its output to the stream,

    f'^{(l)} = f^{(l-1)} + Attn(LN_1(f^{(l-1)})),      f^{(l)} = f'^{(l)} + MLP(LN_2(f'^{(l)})),

where the original Transformer (post-LN) normalised after each sum, f' = LN_1(f + Attn(f)). The sub-layers
are passed as functions of the stream ``[..., T, d]``, so the same two lines run a real model's block or
toy stand-ins.
"""

from __future__ import annotations

from collections.abc import Callable

from torch import Tensor

from xai_tf import _checks

SubLayer = Callable[[Tensor], Tensor]


def pre_ln_block(f: Tensor, ln_1: SubLayer, attn: SubLayer, ln_2: SubLayer, mlp: SubLayer) -> Tensor:
    """f' = f + attn(ln_1(f)), then f' + mlp(ln_2(f')): the stream after one pre-LN block, ``[..., T, d]``
    like ``f``."""
    f = _checks.tensor("f", f)
    for name, fn in (("ln_1", ln_1), ("attn", attn), ("ln_2", ln_2), ("mlp", mlp)):
        if not callable(fn):
            raise TypeError(f"{name} must be a function of the stream [..., T, d], got {type(fn).__name__}")
    f_mid = f + attn(ln_1(f))
    return f_mid + mlp(ln_2(f_mid))
