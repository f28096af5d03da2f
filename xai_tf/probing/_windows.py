"""Token windows ``[n, T]`` checked where a probing helper takes them, each refusal naming the caller's
argument (``windows``, ``ids``) rather than the model's own ``input_ids``."""

from __future__ import annotations

from torch import Tensor

from xai_tf.models.loaded import LoadedModel, as_model, causal


def checked(lm: LoadedModel, windows: object, name: str = "windows") -> Tensor:
    """``windows`` as a long tensor ``[n, T]`` on the model's device: integer ids in the model's
    vocabulary, T ≥ 1 within its context (the model's own check, renamed)."""
    try:
        return lm.model.check_input_ids(windows)  # type: ignore[arg-type]
    except (TypeError, ValueError) as e:
        raise type(e)(str(e).replace("input_ids", name)) from None


def loaded(lm: object, task: str | None = None) -> LoadedModel:
    """``lm`` as a ``LoadedModel`` (``as_model``; a causal one where ``task`` says what needs it), each
    refusal naming the argument ``lm``."""
    try:
        return as_model(lm) if task is None else causal(lm, task)  # type: ignore[arg-type]
    except TypeError as e:
        raise TypeError(str(e).replace("model must be", "lm must be", 1)) from None
