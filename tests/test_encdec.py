"""Lesson 17's blocks against ``torch.nn.Transformer`` (the independent reference), the masks, and one
cross-attention computed by hand."""

import pytest
import torch
from torch import nn

from xai_tf.encdec import EncoderDecoder, from_torch, source_mask, target_mask, to_torch


def _torch_transformer(norm_first: bool, dtype: torch.dtype, seed: int = 0) -> nn.Transformer:
    torch.manual_seed(seed)
    t = nn.Transformer(
        d_model=16,
        nhead=4,
        num_encoder_layers=2,
        num_decoder_layers=2,
        dim_feedforward=24,
        dropout=0.0,
        batch_first=True,
        norm_first=norm_first,
    )
    for p in t.parameters():  # biases and LN gains away from their 0 / 1 initialisation
        p.data += 0.1 * torch.randn_like(p)
    return t.to(dtype).eval()


def _inputs(dtype: torch.dtype):
    g = torch.Generator().manual_seed(1)
    src, tgt = (
        torch.randn(3, 7, 16, generator=g, dtype=dtype),
        torch.randn(3, 5, 16, generator=g, dtype=dtype),
    )
    src_visible = torch.arange(7) < torch.tensor([7, 4, 2])[:, None]
    return src, tgt, src_visible


pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_equal_to_torch_transformer(norm_first, dtype):
    theirs = _torch_transformer(norm_first, dtype)
    ours = from_torch(theirs).eval()
    src, tgt, src_visible = _inputs(dtype)
    causal = nn.Transformer.generate_square_subsequent_mask(5, dtype=dtype)
    with torch.enable_grad():  # keeps torch's fast path (nested tensors) off
        expected = theirs(
            src,
            tgt,
            tgt_mask=causal,
            src_key_padding_mask=~src_visible,
            memory_key_padding_mask=~src_visible,
            tgt_is_causal=True,
        )
        got, maps = ours(src, tgt, src_visible)
    assert got.dtype == dtype
    err = (got - expected).abs().max().item()
    assert err < 1e-5, err
    memory, _ = ours.encode(src, src_visible)
    memory_torch = theirs.encoder(src, src_key_padding_mask=~src_visible)
    assert (memory - memory_torch)[src_visible].abs().max() < 1e-5
    assert maps.cross.shape == (2, 3, 4, 5, 7)
    assert maps.cross[:, 2, :, :, 2:].abs().max() == 0  # the third sentence's pads get no attention


def test_to_torch_round_trip():
    theirs = _torch_transformer(True, torch.float64)
    ours = from_torch(theirs)
    fresh = _torch_transformer(True, torch.float64, seed=5)
    to_torch(ours, fresh)
    for a, b in zip(theirs.parameters(), fresh.parameters(), strict=True):
        assert torch.equal(a, b)


def test_post_ln_and_pre_ln_differ():
    src, tgt, v = _inputs(torch.float64)
    a = from_torch(_torch_transformer(False, torch.float64)).eval()
    b = from_torch(_torch_transformer(True, torch.float64)).eval()
    assert (a(src, tgt, v)[0] - b(src, tgt, v)[0]).abs().max() > 0.1


def test_masks():
    visible = torch.tensor([[True, True, False]])
    assert source_mask(visible).shape == (1, 1, 1, 3)
    M = target_mask(visible)[0, 0]
    assert M.tolist() == [[True, False, False], [True, True, False], [True, True, False]]


def test_decoder_position_sees_no_future():
    """Changing target token t changes no decoder output before t (the causal mask)."""
    model = from_torch(_torch_transformer(False, torch.float64)).eval()
    src, tgt, v = _inputs(torch.float64)
    changed = tgt.clone()
    changed[:, 3] += 1.0
    a, b = model(src, tgt, v)[0], model(src, changed, v)[0]
    assert (a - b)[:, :3].abs().max() < 1e-12 and (a - b)[:, 3:].abs().max() > 1e-3


def test_cross_attention_by_hand():
    """One head, d_e = 2, identity projections, zero biases: A = softmax(x yᵀ / √2) over visible keys."""
    model = EncoderDecoder(d_e=2, n_heads=1, n_encoder=1, n_decoder=1, d_ff=2)
    attn = model.decoder[0].attn[1]
    with torch.no_grad():
        for W in (attn.W_q, attn.W_k, attn.W_v, attn.W_o):
            W.copy_(torch.eye(2))
    x = torch.tensor([[[1.0, 0.0]]])
    y = torch.tensor([[[2.0, 0.0], [0.0, 1.0], [5.0, 5.0]]])
    out, A = attn(x, y, source_mask(torch.tensor([[True, True, False]])))
    e = torch.tensor([2.0, 0.0]) / 2**0.5
    p = torch.exp(e) / torch.exp(e).sum()  # the third key is padding
    assert torch.allclose(A[0, 0, 0], torch.tensor([p[0], p[1], 0.0]))
    assert torch.allclose(out[0, 0], p[0] * torch.tensor([2.0, 0.0]) + p[1] * torch.tensor([0.0, 1.0]))
