"""Lesson 08's panel: one sentence explained four ways (attention, gradient, leave-one-out, IG) with
Kendall's τ against attention, the ε-adversary's attention, and an erasure stepper."""

from __future__ import annotations

import html
import warnings
from collections.abc import Mapping, Sequence

import ipywidgets as widgets
import torch

from xai_tf import viz
from xai_tf._threads import one_thread
from xai_tf.faithfulness.adversary import epsilon_adversary
from xai_tf.faithfulness.correlation import kendall
from xai_tf.faithfulness.erasure import erase, removal_order, sentence_states
from xai_tf.faithfulness.importance import IGToleranceWarning, explanations, vocabulary_size
from xai_tf.tasks.recurrent import AttentionClassifier
from xai_tf.tasks.words import Example, Vocabulary, check_examples, same_vocabulary
from xai_tf.widgets._panel import Panel

#: The importance every other is compared with (Kendall's τ).
REFERENCE = "attention"
#: The longest sentence the panel explains (IG and the adversary grow with T).
MAX_WORDS = 60


def _row(words: Sequence[str], scores: Sequence[float], title: str) -> str:
    """One highlighted sentence that wraps at the panel's width: the widget's HTML does not wrap
    text (white-space: nowrap), so the words' spans are laid out as wrapping flex items."""
    row = viz.html_token_scores(words, scores).replace(
        "<div style='line-height:2'>", "<div style='line-height:2;display:flex;flex-wrap:wrap'>", 1
    )
    return f"<div style='font-weight:bold'>{html.escape(title)}</div>{row}"


def faithfulness_panel(
    models: Mapping[str, AttentionClassifier], vocab: Vocabulary, data: Sequence[Example]
) -> Panel:
    """Pick a model and a test sentence (or type one); move ε for the adversary and step the erasure.
    ``models`` (name → classifier) must all read ``vocab``, the Vocabulary ``data`` were encoded with
    (another vocabulary's words would be shown silently)."""
    if not isinstance(models, Mapping) or not models:
        raise TypeError(
            f"models must be a non-empty dict name → AttentionClassifier, got {type(models).__name__}"
        )
    for m in models.values():
        same_vocabulary(vocab, vocabulary_size(m))
    data = check_examples("data", data, len(vocab), classes=None)
    model = widgets.Dropdown(options=list(models), description="model")
    instance = widgets.IntSlider(value=0, min=0, max=len(data) - 1, description="sentence #")
    text = widgets.Text(
        value="", placeholder="or type a sentence", continuous_update=False, description="text"
    )
    epsilon = widgets.FloatLogSlider(value=0.01, base=10, min=-3, max=-0.5, description="ε")
    erased = widgets.IntSlider(value=0, min=0, max=MAX_WORDS - 1, description="erased")

    def render() -> str:
        m = models[model.value]
        ids = vocab.encode(text.value) if text.value.strip() else data[instance.value].ids
        if not 2 <= len(ids) <= MAX_WORDS:
            raise ValueError(f"the panel explains sentences of 2..{MAX_WORDS} words, this one has {len(ids)}")
        words = [f" {w}" for w in vocab.decode(ids)]
        with one_thread():
            # the defaults (float64, the paper's detached gradient) but IG at a fixed 32 nodes, not up to
            # 256: a redraw's time budget; its delta is shown next to it instead of a warning
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", IGToleranceWarning)
                found = explanations(m, ids, ig_steps=32, ig_max_steps=32)
            adv = epsilon_adversary(m, ids, epsilon.value)
            h, alpha = sentence_states(m, ids)
            kept = erase(alpha, removal_order(m, ids, "attention")[: min(erased.value, len(ids) - 1)])
            with torch.no_grad():
                p, p_erased = (
                    m.readout(h.expand(2, -1, -1), torch.stack([alpha, kept])).softmax(-1)[:, 1].tolist()
                )
        parts = [f"<p>f(x) = P(positive) = {p:.3f}</p>"]
        alpha_scores = found.pop(REFERENCE).scores
        parts.append(_row(words, alpha_scores.tolist(), f"{REFERENCE} α"))
        for method, e in found.items():
            tau = kendall(alpha_scores, e.scores)[0]
            parts.append(
                _row(words, e.scores.tolist(), f"{method}   τ with {REFERENCE} = {tau:+.2f}   {e.note}")
            )
        parts.append(
            _row(
                words,
                adv.alpha_adv.tolist(),
                f"ε-adversary: JSD = {adv.jsd:.3f}, f = {adv.f_adv:.3f} (|Δf| < {epsilon.value:.3g})",
            )
        )
        k = min(erased.value, len(ids) - 1)
        flipped = "flipped" if (p_erased > 0.5) != (p > 0.5) else "unchanged"
        title = f"after zeroing the {k} highest weights: f = {p_erased:.3f}, decision {flipped}"
        parts.append(_row(words, kept.tolist(), title))
        return "".join(parts)

    controls = {"model": model, "instance": instance, "text": text, "epsilon": epsilon, "erased": erased}
    rows = [["model", "instance"], ["text"], ["epsilon", "erased"]]
    return Panel(controls, render, rows, slow=True)
