"""Device rows for lessons 06, 07 and 20: gradients, integrated gradients, leave-one-out,
word-level attention, the method registry and the map of attribution methods (collected by
``test_devices.py``)."""

from collections.abc import Callable

import device_kit as kit
import torch

import xai_tf
from xai_tf.explain import attribution as attr
from xai_tf.explain import norm_based as nbm
from xai_tf.explain import wordlevel as wl
from xai_tf.tasks import sentiment


def _classifier_ig(lm: xai_tf.LoadedModel) -> torch.Tensor:
    clf = kit.trained("classifier", lm)
    return attr.integrated_gradients(clf, lm.encode("Thou art a vile knave."), 1, n_steps=8).attributions


def _registry(lm: xai_tf.LoadedModel) -> list:
    """Every method of the registry on every kind it declares, one small model per kind."""
    from references import tiny_bert

    from xai_tf.explain import registry
    from xai_tf.models.bert import BertEncoder
    from xai_tf.tasks import cues, recurrent
    from xai_tf.tasks.sentiment import SequenceClassifier

    with torch.device("cpu"):
        bert = BertEncoder(tiny_bert())
        classifier = recurrent.AttentionClassifier(recurrent.RecurrentConfig(len(cues.VOCAB)))
        head = torch.nn.Linear(lm.d_model, 2)
    sequence = SequenceClassifier(lm.model, 2).eval()
    sequence.head.load_state_dict(head.state_dict())  # the same head on every device
    models = {
        "causal": (lm, lm.encode(kit.PROMPT)[:8], 5),
        "attention": (classifier.to(lm.device), [2, 3, 4, 5], None),
        "sequence": (sequence, lm.encode("Thou art a vile knave."), None),
        "encoder": (xai_tf.LoadedModel(bert.to(lm.device), None, "tiny-bert"), [1, 5, 6, 7, 2], None),
    }
    return [registry.explain(r["id"], *models[k]).scores for r in registry.table() for k in r["kinds"]]


def _attribution_map(lm: xai_tf.LoadedModel) -> list:
    from xai_tf.explain import catalogue
    from xai_tf.explain import properties as pr
    from xai_tf.explain.registry import ATTRIBUTIONS

    ids = lm.encode("But soft, what light")
    found = [
        ATTRIBUTIONS.explain(m, lm, ids, 5, n_samples=8, n_steps=4).scores for _, m, *_ in catalogue.ENTRIES
    ]
    with pr.randomised_top_blocks(lm, 2):
        found.append(ATTRIBUTIONS.explain("occlusion", lm, ids, 5).scores)
    return [*found, pr.completeness_gap(lm, ids, 5, found[0])[0]]


def _train_sentiment(lm: xai_tf.LoadedModel) -> list[torch.Tensor]:
    return list(
        sentiment.train_classifier(
            lm, sentiment.sentiment_phrases()[0][::8], options=sentiment.OPTIONS.replace(steps=3)
        ).parameters()
    )


CALLS: dict[str, Callable[[xai_tf.LoadedModel], object]] = {
    "integrated_gradients riemann": lambda lm: (
        attr.integrated_gradients(
            lm, lm.encode(kit.PROMPT), 5, n_steps=8, batch_size=3, method="riemann_right"
        ).attributions
    ),
    "integrated_gradients gauss-legendre": lambda lm: (
        attr.integrated_gradients(
            lm, lm.encode(kit.PROMPT), 5, baseline="zeros", n_steps=6, method="gausslegendre"
        ).attributions
    ),
    "sequential_integrated_gradients": lambda lm: attr.sequential_integrated_gradients(
        lm, lm.encode(kit.PROMPT), 5, n_steps=4
    ),
    "embedding_gradients + saliency": lambda lm: attr.gradient_saliency(
        attr.embedding_gradients(lm, lm.encode(kit.PROMPT), 5)[0], "l2"
    ),
    "leave_one_out replace": lambda lm: attr.leave_one_out(lm, lm.encode(kit.PROMPT), 5),
    "leave_one_out drop": lambda lm: attr.leave_one_out(lm, lm.encode(kit.PROMPT), 5, replacement=None),
    "classifier + IG": _classifier_ig,
    "word attention, rollout, flow, statistics": lambda lm: (
        lambda tokens, groups, words, A: (
            wl.word_attention(A, groups),
            wl.aggregate_heads(A, "max"),
            wl.attention_rollout(A),
            wl.attention_flow(A[:2, :, :5, :5].softmax(-1)),
            wl.head_statistics(A, tokens),
        )
    )(*wl.attention_of(lm, kit.PROMPT)),
    "norm-based attention": lambda lm: (
        lambda r: (r.attn, r.f_norms, r.norms, nbm.column_share(r.norms, [0]), nbm.hook_projections(lm))
    )(nbm.norm_based(lm, lm.encode(kit.PROMPT))),
    "the method registry, every method on every kind (issue 41)": _registry,
    "the map of attribution methods (lesson 20)": lambda lm: _attribution_map(lm),
}

TRAINERS: dict[str, Callable[[xai_tf.LoadedModel], list[torch.Tensor]]] = {
    "sentiment.train_classifier": _train_sentiment,
}
