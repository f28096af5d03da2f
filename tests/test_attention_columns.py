"""Lecture 004's column form of attention against torch's own layers, in float64."""

import pytest
import torch
from torch.nn import functional as F

from xai_tf.attention.columns import mhatt, satt


def _draw(d=6, T=5, p=3, H=2):
    g = torch.Generator().manual_seed(0)
    X = torch.randn(d, T, generator=g, dtype=torch.float64)
    heads = [tuple(torch.randn(p, d, generator=g, dtype=torch.float64) for _ in range(3)) for _ in range(H)]
    return X, heads, torch.randn(d, H * p, generator=g, dtype=torch.float64)


@pytest.mark.parametrize("scale", [True, False])
def test_one_head_is_torchs_attention_on_the_transposes(scale):
    X, [(Q, K, V), _], _ = _draw()
    want = F.scaled_dot_product_attention((Q @ X).T, (K @ X).T, (V @ X).T, scale=None if scale else 1.0)
    assert torch.allclose(satt(X, Q, K, V, scale), want.T, atol=1e-12)


def test_with_the_scale_it_is_torchs_multi_head_attention_transposed():
    X, heads, A = _draw()
    layer = torch.nn.MultiheadAttention(6, 2, bias=False, dtype=torch.float64)
    with torch.no_grad():
        layer.in_proj_weight.copy_(torch.cat([torch.cat([h[i] for h in heads]) for i in range(3)]))
        layer.out_proj.weight.copy_(A)
    want, _ = layer(X.T, X.T, X.T, need_weights=False)
    assert torch.allclose(mhatt(X, heads, A, scale=True), want.T, atol=1e-12)
    assert not torch.allclose(mhatt(X, heads, A), want.T, atol=1e-3)  # the notes' form, without 1/√p


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda X, h, A: satt(X[0], *h[0]), r"X must be \[d, T\]"),
        (lambda X, h, A: satt(X, h[0][0][:, :4], *h[0][1:]), r"Q must be \[p, d\] with d = 6"),
        (lambda X, h, A: satt(X, h[0][0][:2], *h[0][1:]), "Q and K must have the same number of rows p"),
        (lambda X, h, A: mhatt(X, [], A), "heads must hold at least one"),
        (lambda X, h, A: mhatt(X, h, A[:, :5]), r"A must be \[d_o, 6\]"),
    ],
)
def test_bad_shapes_are_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call(*_draw())
