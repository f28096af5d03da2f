"""Models: GPT-2 from scratch, a BERT-family wrapper, and loading by name."""

from xai_tf.models.bert import BertEncoder
from xai_tf.models.gpt2 import CONFIGS, GPT2, ActivationCache, GPT2Config, KVCache

__all__ = ["CONFIGS", "GPT2", "ActivationCache", "BertEncoder", "GPT2Config", "KVCache"]
