"""The encoder–decoder Transformer (lesson 17): ``blocks`` (multi-head attention with biases, encoder and
decoder blocks in post-LN and pre-LN order), ``stack`` (the two stacks and their masks), ``torch_parity``
(weights to and from ``torch.nn.Transformer``)."""

from xai_tf.encdec.blocks import DecoderBlock, EncoderBlock, MultiHeadAttention
from xai_tf.encdec.stack import Attentions, EncoderDecoder, source_mask, target_mask
from xai_tf.encdec.torch_parity import from_torch, to_torch

__all__ = [
    "Attentions",
    "DecoderBlock",
    "EncoderBlock",
    "EncoderDecoder",
    "MultiHeadAttention",
    "from_torch",
    "source_mask",
    "target_mask",
    "to_torch",
]
