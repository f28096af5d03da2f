"""Train lesson 11's λ-panel rationalizers (``xai_tf.rationales.grid``) and write
xai_tf/data/rationale_grid.safetensors and rationale_grid.json.

    OMP_NUM_THREADS=1 .venv/bin/python scripts/train_rationale_grid.py

For every (λ₁, λ₂) of ``grid.LAM1 × grid.LAM2``: HardKuma, 300 Adam steps on the cue task's 1,000
training sentences, seed 0 (about a second a model on one core of an Intel Xeon), then ``evaluate`` on
the 100 test sentences the panel shows. Seeded and single-threaded; run without XAI_TF_SEED_OFFSET.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict

import torch
from safetensors.torch import save_file

from xai_tf import provenance
from xai_tf.rationales import grid
from xai_tf.rationales import model as rat
from xai_tf.tasks import cues


def main() -> None:
    if os.environ.get("XAI_TF_SEED_OFFSET", "0") != "0":
        raise SystemExit("run without XAI_TF_SEED_OFFSET: the shipped grid is offset 0's draw")
    torch.set_num_threads(1)
    train, test = grid.training_data(), grid.test_data()
    weights, scores = {}, {}
    start = time.perf_counter()
    for lam1 in grid.LAM1:
        for lam2 in grid.LAM2:
            m = rat.train_rationalizer(train, len(cues.VOCAB), grid.ESTIMATOR, lam1, lam2)
            name = grid.key(lam1, lam2)
            weights |= {f"{name}/{k}": v.detach().contiguous() for k, v in m.state_dict().items()}
            try:
                scores[name] = asdict(rat.evaluate(m, test))
            except ValueError as err:  # every rationale empty
                scores[name] = {"error": str(err)}
            print(name, scores[name], flush=True)
    save_file(weights, grid.WEIGHTS)
    record = {
        "fingerprint": grid.fingerprint(),
        **provenance.record(threads=1),
        "seconds": round(time.perf_counter() - start, 1),
        "lam1": grid.LAM1,
        "lam2": grid.LAM2,
        "scores": scores,
    }
    grid.RECORD.write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
