"""Tensors to numpy for drawing: a lesson's model may sit on a GPU (``load_model(device="auto")``), and
numpy, matplotlib and the SVG writers read only host memory."""

from __future__ import annotations

import numpy as np
import torch


def host_array(x: object, dtype: type = float) -> np.ndarray:
    """``x`` as a numpy array in host memory: a tensor on any device (CPU, CUDA, MPS), with or without
    a gradient, is detached and copied to the CPU first; anything else goes to ``np.asarray``."""
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu()
    try:
        return np.asarray(x, dtype=dtype)
    except (TypeError, ValueError) as err:
        kind = type(x).__name__
        message = f"the values to draw must be numbers (a tensor or an array), got {kind}: {err}"
        raise ValueError(message) from err
