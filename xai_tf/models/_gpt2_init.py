"""GPT-2's initialisation (Radford et al., 2019, §2.3), applied by ``GPT2.__init__`` (``gpt2.py``) to a
model trained from scratch (the bundled model, lessons 04 and 15's toys)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from torch import nn

if TYPE_CHECKING:
    from xai_tf.models.gpt2 import GPT2


def init_weights(model: GPT2) -> None:
    """GPT-2's initialisation (Radford et al., 2019, §2.3): N(0, 0.02) weights and zero biases, except
    the residual projections (``c_proj`` of attention and MLP, the 2L layers that write into the
    residual stream), drawn from N(0, 0.02/√(2L)) so that the stream's variance does not grow with
    depth."""
    for name, module in model.named_modules():
        if isinstance(module, (nn.Linear, nn.Embedding)):
            residual = name.endswith("c_proj")
            nn.init.normal_(
                module.weight, std=0.02 / math.sqrt(2 * model.config.n_layer) if residual else 0.02
            )
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)
