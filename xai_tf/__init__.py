"""xai_tf: how transformers work, and how to explain them — the helpers behind the lessons."""

from xai_tf.models.hub import LoadedModel, load_model

__all__ = ["LoadedModel", "load_model"]
