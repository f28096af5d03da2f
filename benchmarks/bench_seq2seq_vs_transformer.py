"""Lesson 16's GRU with additive attention against lesson 17's pre-LN Transformer, on one machine: the
time of a training step of each (wall and CPU, interleaved in one process, one torch thread, the same
batch size) and the estimated seconds each needs to reach a dev word accuracy.

    OMP_NUM_THREADS=1 python benchmarks/bench_seq2seq_vs_transformer.py [--steps 10] [--rounds 5]
        [--target 0.9] [--no-curve]

Each model trains with its shipped settings (``seq2seq.json``'s for the GRU: d_h 32, Adam lr 5e-3,
32 pairs a step; ``encdec.runs.settings("pre")`` for the Transformer: d_e 64, 4 heads, 2 + 2 blocks,
warm-up and decay, 32 pairs a step): ``--rounds`` rounds, each ``--steps`` steps of the GRU then of the
Transformer from fresh weights (seed = the round), after one warm-up round; ms/step is the median over
rounds. Steps to the target: the Transformer's from its recorded dev curves (``encdec.shipped.steps_to``,
every recorded draw of "pre"); ``seq2seq.json`` records no dev word-accuracy curve, so the GRU's is
measured here — seed 0 retrained with its shipped settings, its teacher-forced word accuracy on the
same 200 dev pairs (``encdec.runs.CURVE_PAIRS``) at every snapshot, the definition of
``encdec.runs.word_accuracy`` — unless ``--no-curve``. Seconds to the target = steps × s/step.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from xai_tf.encdec import runs, shipped
from xai_tf.encdec import training as encdec_training
from xai_tf.seq2seq import data
from xai_tf.seq2seq import shipped as rnn_shipped
from xai_tf.seq2seq import training as rnn_training
from xai_tf.seq2seq.model import Config, Seq2Seq
from xai_tf.training import TrainOptions

CURVE_EVERY = 100


def _gru_options(steps: int, seed: int) -> TrainOptions:
    s = rnn_shipped.recorded()["settings"]
    return TrainOptions(steps, s["lr"], s["batch_size"], seed)


def _gru(steps: int, seed: int) -> None:
    rnn_training.train("additive", _gru_options(steps, seed), rnn_shipped.recorded()["settings"]["d_h"])


def _transformer(steps: int, seed: int, corpus: data.Corpus) -> None:
    encdec_training.train(runs.build("pre", corpus, seed), corpus, runs.settings("pre", steps), seed=seed)


def _timed(fn) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


@torch.no_grad()
def _word_accuracy(model: Seq2Seq, pairs: list[data.Pair], corpus: data.Corpus) -> float:
    """Teacher-forced share of target words and <eos> whose argmax is right (``runs.word_accuracy``'s)."""
    b = data.batch(pairs, corpus)
    word = model.eval()(b.source, b.source_mask, b.target_in)[0].argmax(-1)
    keep = b.target_out != 0
    return (word == b.target_out)[keep].float().mean().item()


def gru_curve(corpus: data.Corpus) -> list[tuple[int, float, float]]:
    """The GRU's dev curve [(step, 0, accuracy)] (no seconds recorded), seed 0, shipped settings."""
    s = rnn_shipped.recorded()["settings"]
    trained = rnn_training.train("additive", _gru_options(s["steps"], 0), s["d_h"], CURVE_EVERY)
    model = Seq2Seq(
        Config(len(corpus.source_vocab), len(corpus.target_vocab), d_h=s["d_h"], score="additive")
    )
    curve = []
    for step in sorted(trained.snapshots):
        model.load_state_dict(trained.snapshots[step])
        curve.append((step, 0.0, _word_accuracy(model, corpus.dev[: runs.CURVE_PAIRS], corpus)))
    return curve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10, help="steps per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--target", type=float, default=0.9, help="dev word accuracy")
    parser.add_argument("--no-curve", action="store_true", help="skip measuring the GRU's dev curve")
    args = parser.parse_args()
    torch.set_num_threads(1)
    corpus = data.make_corpus(0)
    fns = {
        "GRU + additive": lambda seed: _gru(args.steps, seed),
        "Transformer pre-LN": lambda seed: _transformer(args.steps, seed, corpus),
    }
    for fn in fns.values():
        fn(1000)  # warm-up
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in fns}
    for r in range(args.rounds):
        for name, fn in fns.items():
            times[name].append(_timed(lambda fn=fn, r=r: fn(r)))
    per_step = {}
    print(f"{args.rounds} interleaved rounds of {args.steps} steps, batch 32, 1 thread; median per step:")
    for name, t in times.items():
        wall = statistics.median(w for w, _ in t) / args.steps
        cpu = statistics.median(c for _, c in t) / args.steps
        per_step[name] = (wall, cpu)
        print(f"  {name:20s} {1e3 * wall:7.1f} ms wall  {1e3 * cpu:7.1f} ms CPU")
    (gw, gc), (tw, tc) = per_step.values()
    print(f"  Transformer / GRU: {tw / gw:.2f} (wall)  {tc / gc:.2f} (CPU)")
    steps_tf = [s for s in shipped.steps_to("pre", args.target) if s is not None]
    n_tf = len(shipped.draws("pre"))
    print(f"dev word accuracy ≥ {args.target}:")
    if steps_tf:
        med = statistics.median(steps_tf)
        print(
            f"  Transformer: recorded draws reaching it {len(steps_tf)} of {n_tf}, first at steps {steps_tf} "
            f"(median {med:g}) → ≈ {med * tw:.0f} s wall, {med * tc:.0f} s CPU here"
        )
    else:
        print(f"  Transformer: none of the {n_tf} recorded draws reached it")
    if args.no_curve:
        return
    start = time.process_time()
    curve = gru_curve(corpus)
    print(f"  GRU seed 0 dev curve (measured here, {time.process_time() - start:.0f} s CPU):")
    print("   ", " ".join(f"{step}:{acc:.3f}" for step, _, acc in curve))
    hit = shipped.reached(curve, args.target)
    if hit is None:
        print("  GRU: did not reach it in its shipped steps")
    else:
        print(f"  GRU: first at step {hit[0]} → ≈ {hit[0] * gw:.0f} s wall, {hit[0] * gc:.0f} s CPU here")


if __name__ == "__main__":
    main()
