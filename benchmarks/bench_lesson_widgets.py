"""Every control of the lesson panels (lessons 04–20) on the bundled model: the median time one change
takes (the panel's computation and markup), wall and CPU time of this process, one torch thread.

Each control is moved through a few values (a slider across its range, a menu through its options, a
button clicked) and back; a change counts once the panel has rendered. Panels whose lesson trains its
own models (08, 11, 12, 13) get untrained models of the lesson's shapes, as their tests do, so those
rows time the computation, not a trained model's behaviour; lessons 16–18 use the shipped models
(lesson 17's beam panel on its longest test sentence, where a search takes longest).
Lesson 19's panel only redraws tables the lesson computed once: it gets tables of the lesson's shape
(its labels × 7 layers) filled with made-up numbers. Lesson 20's methods menu is moved through each
method alone (the other controls are timed with the panel's three default methods), so its median and
max tell the cheap methods from the sampled ones.
A row above the 300 ms budget is marked "!" when its panel does not show that it is working
(``Panel(slow=True)``: "computing…"). CPU time is the fairer figure on a loaded machine.

    python benchmarks/bench_lesson_widgets.py [--lessons 04 06] [--changes 6]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Iterator

import ipywidgets as widgets
import torch

BUDGET_S = 0.3


def _values(control: widgets.Widget, n: int) -> list:
    """Up to ``n`` values other than the current one, then the current one again."""
    now = control.value
    if isinstance(control, widgets.Checkbox):
        return [not now, now] * (n // 2)
    if isinstance(control, widgets.SelectMultiple):  # each option alone, then the selection again
        return [(o,) for o in control.options] + [now]
    if hasattr(control, "options") and control.options:
        labels = [o[1] if isinstance(o, tuple) else o for o in control.options]
        return [v for v in labels if v != now][: n - 1] + [now]
    if isinstance(control, widgets.FloatLogSlider):
        lo, hi = control.min, control.max
        return [control.base ** (lo + (hi - lo) * k / (n - 1)) for k in range(n - 1)] + [now]
    if isinstance(control, (widgets.IntSlider, widgets.FloatSlider, widgets.BoundedIntText)):
        hi = (
            min(control.max, control.min + 50) if isinstance(control, widgets.BoundedIntText) else control.max
        )
        raw = [control.min + (hi - control.min) * k / (n - 1) for k in range(n - 1)]
        step = getattr(control, "step", 1) or 1
        vals = [round(v / step) * step for v in raw]
        vals = [int(v) if isinstance(now, int) else v for v in vals]
        return [v for v in vals if v != now] + [now]
    return []


def time_control(control: widgets.Widget, n: int) -> tuple[float, float, float, int] | None:
    """Median (wall s, CPU s) and the largest CPU s of a change of ``control``, and the number of
    changes; None if not timed."""
    if isinstance(control, widgets.Button):
        changes: list[Callable[[], None]] = [control.click] * n
    else:
        changes = [lambda v=v: setattr(control, "value", v) for v in _values(control, n)]
    if not changes:
        return None
    wall, cpu = [], []
    for change in changes:
        w, c = time.perf_counter(), time.process_time()
        change()
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return statistics.median(wall), statistics.median(cpu), max(cpu), len(changes)


def panels(lessons: set[str]) -> Iterator[tuple[str, str, Callable[[], widgets.Widget]]]:
    """(lesson, panel name, builder) of every lesson panel, built on demand."""
    import xai_tf
    from xai_tf.encdec import shipped as encdec_shipped
    from xai_tf.probing import data as probing_data
    from xai_tf.seq2seq import data, shipped
    from xai_tf.widgets import (
        attribution,
        attribution_map,
        blocks,
        cbm,
        circuits,
        crate,
        decoding,
        efficient,
        encdec,
        faithfulness,
        probing,
        rationales,
        sae,
        seq2seq,
        structured,
        toytasks,
        wordlevel,
    )

    lm = xai_tf.load_model("shakespeare")
    prompt = "ROMEO.\nBut soft, what light through yonder"

    def cue_classifier():  # lessons 08 and 11: an attention classifier over the cue vocabulary
        from xai_tf.tasks import cues, recurrent

        torch.manual_seed(0)
        return recurrent.AttentionClassifier(recurrent.RecurrentConfig(vocab_size=len(cues.VOCAB)))

    def faith():
        from xai_tf.tasks import cues

        m = cue_classifier()
        return faithfulness.faithfulness_panel({"a": m, "b": m}, cues.VOCAB, cues.cue_sentences(20, seed=1))

    def eraser():
        from xai_tf.rationales import model as rat
        from xai_tf.tasks import cues

        r = rat.train_rationalizer(
            cues.cue_sentences(40, seed=0), len(cues.VOCAB), "hardkuma", options=rat.OPTIONS.replace(steps=5)
        )
        return rationales.eraser_panel(cue_classifier(), {"R": r}, cues.VOCAB, cues.cue_sentences(20, seed=1))

    def lam():
        from xai_tf.tasks import cues

        return rationales.rationale_panel(
            cues.cue_sentences(1000, seed=0), cues.cue_sentences(200, seed=1)[:100], cues.VOCAB
        )

    def steering():
        from pathlib import Path

        from xai_tf.sae import activations, browse
        from xai_tf.sae.model import load

        s, extra = load(Path(xai_tf.__file__).parent / "data" / "sae_shakespeare")
        ids = extra["heldout_ids"][:16].long()
        H = activations.collect(lm, ids, s.config.layer).float() * s.config.scale
        return sae.steering_panel(lm, s, browse.max_codes(s, H), j=1)

    def concept():
        from xai_tf.cbm import arthritis, training

        train, test = arthritis.arthritis(300, seed=0), arthritis.arthritis(20, seed=1)
        return cbm.concept_panel(
            {"sequential": training.train("sequential", train, options=training.OPTIONS.replace(steps=30))},
            test,
            example=3,
        )

    def crate_layer():
        from xai_tf.crate import model, study

        _, Y, _, comps = study.test_set(40)
        torch.manual_seed(0)
        return crate.layer_panel(model.Classifier("crate", 24, 4, 4, 2, 4), Y, comps)

    def hist():
        from xai_tf.tasks import histogram

        return toytasks.histogram_panel({"a": histogram.HistogramModel()})

    def dyck():
        from xai_tf.tasks import dyck_model

        return toytasks.dyck_panel({"free": dyck_model.DyckModel()})

    def maps():
        from xai_tf.structured import bias

        corpus = data.make_corpus(0)
        pairs = corpus.test[:20]
        return structured.maps_panel(bias.forced_scores(shipped.model("additive"), corpus, pairs), pairs)

    def probe_tables():
        layers = lm.model.sizes.n_layer + 1
        rows = [f"{k} {w}" for k in ("linear", "mlp") for w in ("task", "control", "selectivity")]
        rows += ["majority", "mdl task", "mdl control"]
        made_up = {r: [0.5 + 0.01 * i for i in range(layers)] for r in rows}
        return probing.probing_panel({name: made_up for name in probing_data.LABELS})

    def longest_beam():  # lesson 17: the panel on its longest test sentence, the slowest search
        corpus = encdec_shipped.corpus()
        longest = max(range(len(corpus.test)), key=lambda i: len(corpus.test[i].source))
        return encdec.beam_panel(encdec_shipped.model("pre"), corpus, index=longest)

    table = [
        ("04", "head pattern", lambda: blocks.head_pattern_panel(lm, prompt)),
        ("04", "logit lens", lambda: blocks.logit_lens_panel(lm, prompt)),
        ("05", "decoding", lambda: decoding.decoding_panel(lm)),
        ("06", "attribution", lambda: attribution.attribution_panel(lm, prompt)),
        ("07", "word attention", lambda: wordlevel.word_attention_panel(lm, prompt)),
        ("08", "faithfulness", faith),
        ("09", "histogram", hist),
        ("09", "dyck", dyck),
        ("10", "steering", steering),
        ("11", "eraser", eraser),
        ("11", "rationalizer λ", lam),
        ("12", "concepts", concept),
        ("13", "CRATE layer", crate_layer),
        ("13", "ISTA", lambda: crate.ista_panel()),
        ("14", "efficiency", lambda: efficient.efficiency_panel()),
        (
            "15",
            "patching",
            lambda: circuits.patching_panel(lm, "Enter Romeo and", "Enter Hamlet and", " Romeo", " Hamlet"),
        ),
        (
            "16",
            "translation",
            lambda: seq2seq.translation_panel(
                {n: shipped.model(n) for n in ("none", "dot", "additive")}, data.make_corpus(0)
            ),
        ),
        ("17", "beam", longest_beam),
        (
            "17",
            "cross-attention",
            lambda: encdec.cross_attention_panel(encdec_shipped.model("pre"), encdec_shipped.corpus()),
        ),
        ("18", "maps", maps),
        ("19", "probing", probe_tables),
        ("20", "attribution map", lambda: attribution_map.attribution_map_panel(lm)),
    ]
    for lesson, name, build in table:
        if not lessons or lesson in lessons:
            yield lesson, name, build


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lessons", nargs="*", default=[])
    p.add_argument("--changes", type=int, default=6)
    args = p.parse_args()
    torch.set_num_threads(1)
    columns = f"{'wall ms':>8} {'CPU ms':>7} {'max CPU':>7} {'n':>3}"
    print(f"{'lesson':6} {'panel':16} {'control':10} {columns}  slow-marked")
    for lesson, name, build in panels(set(args.lessons)):
        try:
            panel = build()
        except Exception as err:  # a panel that cannot be built here is reported, not timed
            print(f"{lesson:6} {name:16} not built: {type(err).__name__}: {err}", flush=True)
            continue
        for control_name, control in panel.controls.items():
            if isinstance(control, (widgets.Text, widgets.Textarea)):
                continue  # typing: one change per edit, timed by the rows of the other controls
            timed = time_control(control, args.changes)
            if timed is None:
                continue
            wall, cpu, most, n = timed
            flag = "!" if min(wall, cpu) > BUDGET_S and not panel._slow else ""
            print(
                f"{lesson:6} {name:16} {control_name:10} {wall * 1e3:8.0f} {cpu * 1e3:7.0f} "
                f"{most * 1e3:7.0f} {n:3d}  "
                f"{'yes' if panel._slow else 'no'} {flag}",
                flush=True,
            )


if __name__ == "__main__":
    main()
