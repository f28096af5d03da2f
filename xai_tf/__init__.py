"""xai_tf: how transformers work, and how to explain them — the helpers behind the lessons."""

from xai_tf.models.hub import load_model
from xai_tf.models.loaded import LoadedModel

__all__ = ["LoadedModel", "load_model"]
