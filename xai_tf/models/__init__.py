"""Models (every lesson): the handle (``loaded``), what every architecture answers and what every causal
language model answers (``architecture``: ``Architecture``, ``CausalLM``), hooks and the activation cache
(``hooks``), the architectures (``gpt2``, ``llama``, ``bert``), the key/value cache (``kv_cache``) and
loading by name (``hub``) or directory (``checkpoints``).
"""

from xai_tf.models.architecture import Architecture, CausalLM, HeadWeights, Sizes
from xai_tf.models.bert import BertEncoder
from xai_tf.models.gpt2 import CONFIGS, GPT2, GPT2Config
from xai_tf.models.hooks import ActivationCache
from xai_tf.models.kv_cache import KVCache
from xai_tf.models.loaded import LoadedModel, as_model, causal

__all__ = [
    "CONFIGS",
    "GPT2",
    "ActivationCache",
    "Architecture",
    "BertEncoder",
    "CausalLM",
    "GPT2Config",
    "HeadWeights",
    "KVCache",
    "LoadedModel",
    "Sizes",
    "as_model",
    "causal",
]
