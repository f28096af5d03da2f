"""Train lesson 18's hierarchical and flat document classifiers over seeds; write
xai_tf/data/hierarchy.json (numbers only: the lesson retrains seed 0 itself in seconds).

    OMP_NUM_THREADS=1 .venv/bin/python scripts/train_hierarchy.py --seeds 10

For each kind of ``hierarchy.MODELS`` and seed 0..``--seeds``−1, ``hierarchy.train`` with its defaults
(200 Adam steps of 32 documents; a few seconds to half a minute a model on one core of an Intel Xeon),
recording the test accuracy every 25 steps. Seeded and single-threaded.
"""

from __future__ import annotations

import argparse
import json
import time

import torch

from xai_tf import artifacts, provenance
from xai_tf.structured import hierarchy

METRICS = hierarchy.METRICS


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=10)
    args = parser.parse_args()
    torch.set_num_threads(1)
    draws = []
    for seed in range(args.seeds):
        for kind in hierarchy.MODELS:
            start = time.perf_counter()
            trained = hierarchy.train(kind, hierarchy.OPTIONS.replace(seed=seed))
            seconds = round(time.perf_counter() - start, 1)
            draws.append({"kind": kind, "seed": seed, "seconds": seconds, "curve": trained.curve})
            print(kind, seed, seconds, trained.curve, flush=True)
    record = {
        "fingerprint": artifacts.fingerprint(*hierarchy.TRAINED_BY),
        **provenance.record(threads=1),
        "draws": draws,
    }
    METRICS.write_text(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
