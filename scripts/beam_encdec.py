"""Score greedy and beam search (``beam_sweep.GRID``) for lesson 17's shipped models; write
xai_tf/data/encdec_beam.json.

    OMP_NUM_THREADS=1 python scripts/beam_encdec.py [--pairs N] [--out FILE]

Deterministic given the weights (no sampling); another CPU or torch build may break a near-tie
differently, so the test compares the spot-check translations allowing one difference.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch

from xai_tf.encdec import beam, beam_sweep, shipped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=200, help="score the first N test pairs (of 700)")
    parser.add_argument("--out", default=str(beam_sweep.RECORD))
    args = parser.parse_args()
    torch.set_num_threads(1)
    corpus = shipped.corpus()
    pairs = corpus.test[: args.pairs]
    record: dict = {
        "machine": "Intel Xeon, 2 cores shared with other work, one thread",
        "pairs": len(pairs),
        "grid": {"beams": beam_sweep.BEAMS, "alphas": beam_sweep.ALPHAS},
        "fingerprint": beam_sweep.fingerprint(),
        "models": {},
        "check": {},
    }
    b, a = beam_sweep.CHECK
    for name in shipped.NAMES:
        start = time.perf_counter()
        model = shipped.model(name)
        record["models"][name] = beam_sweep.sweep(model, pairs, corpus)
        record["check"][name] = [
            beam.translate(model, corpus, p.source, b, a) for p in corpus.test[: beam_sweep.CHECK_PAIRS]
        ]
        print(name, f"{time.perf_counter() - start:.0f} s", flush=True)
    Path(args.out).write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
