"""Wiegreffe & Pinter (2019), section 4, "attention distributions are not primarily dependent on the
contextual encoder" (lesson 08): freeze a learned attention and hand it to a model with no context,
a per-word MLP (the ``"none"`` encoder of ``xai_tf.tasks.recurrent``),

    h_t = ReLU(W_h e_t + b_h),   c = Σ_t α_t h_t,   s = W_c c + b_c,   α fixed (no gradient),

then train the MLP's embeddings, W_h and W_c. If the frozen weights carry what the task needs, the
MLP does better with them than with uniform weights (α_t = 1/T) and about as well as an MLP that
learns its own attention; an adversary's weights (W&P's model-consistent adversary), which predict
like the base model inside the BiLSTM, should help the MLP less if attention says something about
the words themselves rather than about how the BiLSTM happened to use them.
"""

from __future__ import annotations

from collections.abc import Sequence

from torch import Tensor

from xai_tf.faithfulness._training import checked
from xai_tf.faithfulness.importance import vocabulary_size
from xai_tf.tasks.recurrent import OPTIONS, AttentionClassifier, Guide, accuracy, train_attention_classifier
from xai_tf.tasks.words import Example
from xai_tf.training import TrainOptions

#: The attentions W&P's table 3 compares, in its order.
GUIDES = ("uniform", "trained MLP", "base", "adversary")


def frozen_guide(model: AttentionClassifier) -> Guide:
    """``(ids, lengths) ↦ α``: ``model``'s attention on padded ids, to be used frozen."""
    if not isinstance(model, AttentionClassifier):
        raise TypeError(f"model must be an AttentionClassifier, got {type(model).__name__}")

    def guide(ids: Tensor, lengths: Tensor | None) -> Tensor:
        return model.run(ids, lengths)[1].detach()

    return guide


def guided_mlp(
    train: Sequence[Example],
    vocab_size: int,
    guide: AttentionClassifier,
    options: TrainOptions = OPTIONS,
) -> AttentionClassifier:
    """A per-word MLP trained with ``guide``'s attention frozen in place of its own (``guide`` must
    read the same vocabulary)."""
    guide_fn = frozen_guide(guide)
    if vocabulary_size(guide) != vocab_size:
        raise ValueError(
            f"guide reads {vocabulary_size(guide)} words, vocab_size is {vocab_size}: one vocabulary"
        )
    (train,) = checked(options, vocab_size, train=train)
    return train_attention_classifier(train, vocab_size, "none", options=options, guide=guide_fn)


def mlp_diagnostic(
    base: AttentionClassifier,
    adversary: AttentionClassifier,
    train: Sequence[Example],
    test: Sequence[Example],
    options: TrainOptions = OPTIONS,
) -> dict[str, float]:
    """Test accuracy ``{guide: accuracy}`` of the per-word MLP with each of ``GUIDES``: uniform α,
    its own trained α, ``base``'s α frozen, ``adversary``'s α frozen."""
    size = vocabulary_size(base)
    if vocabulary_size(adversary) != size:
        raise ValueError(
            f"base and adversary must share a vocabulary, got {size} and {adversary.config.vocab_size}"
        )
    train, test = checked(options, size, train=train, test=test)
    models = {
        "uniform": train_attention_classifier(train, size, "none", "uniform", options=options),
        "trained MLP": train_attention_classifier(train, size, "none", options=options),
        "base": guided_mlp(train, size, base, options),
        "adversary": guided_mlp(train, size, adversary, options),
    }
    return {name: accuracy(model, test) for name, model in models.items()}
