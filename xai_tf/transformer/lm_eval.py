"""How well a language model predicts held-out text, in nats per character (the bundled model's card,
``scripts/train_shakespeare.py``; lesson 04's loss).

    loss_per_char = Σ_t −log p(x_t | x_<t) / (number of characters)

Each text is encoded as ``<|endoftext|>`` followed by its tokens, so every token of the text is
predicted and the characters counted are exactly the text's. Dividing by characters instead of
tokens makes models with different tokenizers comparable. Texts longer than the context are read
in windows of ``n_ctx`` tokens that overlap by ``n_ctx − stride``; each token is scored once, in the
first window where it has at least ``n_ctx − stride`` tokens of context (or the first window).
"""

from __future__ import annotations

from collections.abc import Iterable

import tiktoken
import torch
import torch.nn.functional as F
from torch import nn

from xai_tf import _checks
from xai_tf.models.loaded import LoadedModel, causal


@torch.no_grad()
def total_nll(model: LoadedModel | nn.Module, ids: list[int], stride: int) -> float:
    """Σ −log p(ids[t] | ids[:t]) over t = 1..len(ids)−1, in windows of the model's context."""
    lm = causal(model, "scoring text")
    n_ctx = lm.n_ctx
    _checks.integer("stride", stride, 1, n_ctx)
    tokens = torch.tensor(ids, device=lm.device)
    nll, scored, start = 0.0, 1, 0  # tokens[:scored] are done; the first is given, not predicted
    while scored < len(ids):
        end = min(start + n_ctx + 1, len(ids))
        window = tokens[start:end]
        logits = lm(window[:-1])[0]  # predicts tokens[start + 1 : end]
        new = end - scored
        nll += F.cross_entropy(logits[-new:].float(), window[-new:], reduction="sum").item()
        scored, start = end, start + stride
    return nll


def loss_per_char(
    model: LoadedModel | nn.Module,
    encoding: tiktoken.Encoding,
    texts: Iterable[str],
    stride: int | None = None,
) -> float:
    """Nats per character of ``texts`` under ``model`` (see the module docstring)."""
    lm = causal(model, "scoring text")
    texts = list(texts)
    if not texts or not all(isinstance(text, str) and text for text in texts):
        raise ValueError("texts must be a non-empty list of non-empty strings")
    eot = encoding.eot_token
    nll = chars = 0.0
    for text in texts:
        nll += total_nll(lm, [eot, *encoding.encode_ordinary(text)], stride or lm.n_ctx // 2)
        chars += len(text)
    return nll / chars
