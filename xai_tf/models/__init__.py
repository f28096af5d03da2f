"""Models (every lesson): the handle (``loaded``), what every architecture answers (``architecture``),
hooks and the activation cache (``hooks``), the architectures (``gpt2``, ``bert``), the key/value cache
(``kv_cache``) and loading by name (``hub``).
"""

from xai_tf.models.architecture import Architecture, Sizes
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
    "GPT2Config",
    "KVCache",
    "LoadedModel",
    "Sizes",
    "as_model",
    "causal",
]
