import math

import pytest
import torch
import torch.nn.functional as F
from conftest import random_hf_gpt2

from xai_tf.models import GPT2
from xai_tf.models.tokenization import gpt2
from xai_tf.transformer.lm_eval import loss_per_char, total_nll


def _reference_nll(model: GPT2, ids: list[int], stride: int) -> float:
    """Token by token: target t is predicted from the first window (starts 0, s, 2s, …) that
    contains it as a target, i.e. start = smallest multiple of s with t ≤ start + n_ctx."""
    n_ctx, total = model.config.n_ctx, 0.0
    for t in range(1, len(ids)):
        start = max(0, math.ceil((t - n_ctx) / stride) * stride)
        with torch.no_grad():
            logits = model(ids[start:t])[0, -1]
        total -= F.log_softmax(logits, -1)[ids[t]].item()
    return total


@pytest.mark.parametrize(("length", "stride"), [(5, 4), (9, 8), (40, 4), (41, 8), (37, 3), (30, 1)])
def test_windows_score_every_token_once(length, stride):
    model = GPT2.from_hf(random_hf_gpt2(0, vocab_size=50, n_positions=8, n_embd=16, n_layer=1, n_head=2))
    ids = torch.randint(0, 50, (length,), generator=torch.Generator().manual_seed(length)).tolist()
    assert total_nll(model, ids, stride) == pytest.approx(_reference_nll(model, ids, stride), rel=1e-5)


def test_loss_per_char_divides_by_characters():
    model = GPT2.from_hf(random_hf_gpt2(0, n_positions=16, n_embd=16, n_layer=1, n_head=2))
    enc = gpt2()
    text = "To be, or not to be, that is the question."
    ids = [enc.eot_token, *enc.encode(text)]
    assert loss_per_char(model, enc, [text]) == pytest.approx(
        _reference_nll(model, ids, 8) / len(text), rel=1e-5
    )
    with pytest.raises(ValueError, match="stride must be an integer in 1..16, got 17"):
        loss_per_char(model, enc, [text], stride=17)
    for texts in ([], [""], ["ok", 3]):  # [] used to divide by zero characters
        with pytest.raises(ValueError, match="texts must be a non-empty list of non-empty strings"):
            loss_per_char(model, enc, texts)
