"""Lesson 11's panels: ERASER's comprehensiveness and sufficiency of one sentence's top-k words under
each of ``eraser.explanations`` (or a rationalizer's own selection), and the λ₁/λ₂ trade-off of a
rationalizer (compactness against contiguity): shipped for the lesson's cue task (``rationales.grid``),
trained live otherwise."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache

import ipywidgets as widgets
from torch import Tensor

from xai_tf import seeds, viz
from xai_tf._threads import one_thread
from xai_tf.faithfulness.importance import METHODS
from xai_tf.rationales import eraser, grid
from xai_tf.rationales import model as rat
from xai_tf.tasks.recurrent import AttentionClassifier
from xai_tf.tasks.words import Example, Vocabulary, check_examples, same_vocabulary
from xai_tf.widgets._panel import Panel

SHOWN = 4  # sentences drawn in the λ panel


def _marked(words: Sequence[str], scores: Sequence[float], chosen: Sequence[int], title: str) -> str:
    """The sentence shaded by ``scores``, the chosen words in [brackets]."""
    tokens = [f" [{w}]" if t in chosen else f" {w}" for t, w in enumerate(words)]
    return viz.html_token_scores(tokens, scores, title)


def eraser_panel(
    model: AttentionClassifier,
    rationalizers: Mapping[str, rat.Rationalizer],
    vocab: Vocabulary,
    data: Sequence[Example],
) -> Panel:
    """Pick a sentence, an explanation (``eraser.explanations``: the importances, the random floor,
    each rationalizer) and k: the top-k words ([bracketed]), their comprehensiveness and sufficiency.
    A rationalizer's selection is its own (k unused), scored on the classifier. One sentence's
    explanations are computed once."""
    m = eraser.classifier_probabilities(model)
    rationalizers = rat.check_rationalizers(rationalizers)
    same_vocabulary(vocab, model.config.vocab_size)
    data = check_examples("data", data, model.config.vocab_size, classes=None)
    instance = widgets.IntSlider(value=0, min=0, max=len(data) - 1, description="sentence #")
    method = widgets.Dropdown(options=[*METHODS, eraser.RANDOM, *rationalizers], description="explanation")
    k = widgets.IntSlider(value=2, min=1, max=10, description="k")

    @cache
    def explained(index: int) -> tuple[dict[str, Tensor], dict[str, list[int]]]:
        """The sentence's scores by name, and each rationalizer's own selection."""
        with one_thread():
            scores = eraser.explanations(
                model, data[index].ids, METHODS, rationalizers, seeds.generator(index)
            )
        return scores, {name: scores[name].nonzero()[:, 0].tolist() for name in rationalizers}

    def render() -> str:
        e = data[instance.value]
        scores, selections = explained(instance.value)
        chosen = selections.get(method.value)
        if chosen is None:  # a scoring explanation: its top k
            chosen = eraser.top_k(scores[method.value], k.value)
        with one_thread():
            comp = eraser.comprehensiveness(m, e.ids, chosen) if len(chosen) < len(e.ids) else float("nan")
            suff = eraser.sufficiency(m, e.ids, chosen)
        p = m(e.ids)
        title = (
            f"{method.value}: {len(chosen)} of {len(e.ids)} words; P(predicted) = {float(p.max()):.3f}; "
            f"comprehensiveness {comp:+.3f}, sufficiency {suff:+.3f}"
        )
        return _marked(vocab.decode(e.ids), scores[method.value].tolist(), chosen, title)

    return Panel({"sentence": instance, "method": method, "k": k}, render, rows=[["sentence", "method", "k"]])


def rationale_panel(
    train: Sequence[Example], test: Sequence[Example], vocab: Vocabulary, estimator: str = "hardkuma"
) -> Panel:
    """Move λ₁ (compactness) and λ₂ (contiguity) over ``grid.LAM1 × grid.LAM2``: the rationalizer of that
    setting, its precision, recall and sparsity on ``test`` and a few rationales (planted cues shaded,
    selected words [bracketed]). On the lesson's cue task (``grid.covers``) each setting's rationalizer is
    the shipped one (loaded, not trained); on other data it is trained (300 steps, cached per setting)."""
    if not isinstance(vocab, Vocabulary):
        raise TypeError(f"vocab must be a Vocabulary, got {type(vocab).__name__}")
    train, test = check_examples("train", train, len(vocab)), check_examples("test", test, len(vocab))
    lam1 = widgets.SelectionSlider(options=grid.LAM1, value=0.02, description="λ₁ (compact)")
    lam2 = widgets.SelectionSlider(options=grid.LAM2, value=0.01, description="λ₂ (contiguous)")
    shipped = grid.covers(train, estimator)

    @cache
    def trained(l1: float, l2: float) -> rat.Rationalizer:
        if shipped:
            return grid.model(l1, l2)
        return rat.train_rationalizer(train, len(vocab), estimator, l1, l2)

    def render() -> str:
        model = trained(lam1.value, lam2.value)
        s = rat.evaluate(model, test)
        head = (
            f"<div><b>{estimator}</b>: accuracy {s.accuracy:.2f}, precision {s.precision:.2f}, "
            f"recall {s.recall:.2f}, words kept {s.sparsity:.0%}</div>"
        )
        rows = []
        for e in test[:SHOWN]:
            chosen = rat.rationale(model, e.ids)
            rows.append(_marked(vocab.decode(e.ids), [float(c) for c in e.cues], chosen, ""))
        return head + "".join(rows)

    return Panel({"lam1": lam1, "lam2": lam2}, render, rows=[["lam1", "lam2"]], slow=not shipped)
