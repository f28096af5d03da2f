"""One token followed through the logit lens (lecture 004, lesson 04 §9): from the lens logits
z^(0..L) ``[L + 1, D]`` of one position, the probability each layer gives to the token the last layer
ranks first,

    p_l = softmax(z^(l))_{v*},   v* = argmax_v z^(L)_v,

which shows at which layer the model's own prediction appears.
"""

from __future__ import annotations

from torch import Tensor

from xai_tf import _checks


def final_token_probability(z: Tensor) -> Tensor:
    """p ``[L + 1]``: p_l = softmax(z[l])[v*] with v* = argmax z[-1], for lens logits ``z`` ``[L + 1, D]``
    (``xai_tf.explain.lens.logit_lens``)."""
    z = _checks.tensor("z", z)
    if z.dim() != 2 or z.size(1) < 2 or not z.is_floating_point():
        raise ValueError(f"z must be float logits [L + 1, D] with D ≥ 2, got {z.dtype} {tuple(z.shape)}")
    return z.softmax(-1)[:, z[-1].argmax()]
