"""The next-token loss of one text from its logits (lecture 004, "Training"): position t predicts
token t + 1, so the logits and the targets are shifted by one before the cross-entropy.

    L = −(1/(T−1)) Σ_{t=1}^{T−1} log softmax(z_t)_{x_{t+1}}

for logits z ``[T, D]`` of the text x_1..x_T (the row of the last token predicts past the text and is
not used). ``xai_tf.tasks.language_model.next_token_loss`` is the same number computed by the model.
"""

from __future__ import annotations

from torch import Tensor

from xai_tf import _checks


def shifted_cross_entropy(logits: Tensor, ids: Tensor) -> Tensor:
    """L = −(1/(T−1)) Σ_t log softmax(logits[t])[ids[t+1]], t = 0..T−2, for ``logits`` ``[T, D]`` and
    ``ids`` ``[T]`` (integers in 0..D−1, T ≥ 2): the mean negative log-likelihood of each next token."""
    logits, ids = _checks.tensor("logits", logits), _checks.tensor("ids", ids)
    if logits.dim() != 2 or ids.shape != logits.shape[:1] or len(ids) < 2:
        raise ValueError(
            f"logits must be [T, D] and ids [T] with T ≥ 2, got {tuple(logits.shape)} and {tuple(ids.shape)}"
        )
    if ids.is_floating_point() or not bool(((ids >= 0) & (ids < logits.size(1))).all()):
        raise ValueError(f"ids must be integer token ids in 0..{logits.size(1) - 1}")
    log_p = logits[:-1].log_softmax(-1)
    return -log_p.gather(-1, ids[1:, None].long()).mean()
