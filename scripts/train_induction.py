"""Train lesson 15's 2-layer model with an induction head; write xai_tf/data/induction.{safetensors,json}.

    OMP_NUM_THREADS=1 .venv/bin/python scripts/train_induction.py     # 2000 steps: 3-8 minutes, one thread

The model, data and optimiser are ``xai_tf.circuits.induction_training``'s (a random prefix, then a
random segment of 3..12 tokens repeated to the end of 32 tokens; AdamW with a linear warm-up). Every
draw goes through ``xai_tf.seeds``, so ``XAI_TF_SEED_OFFSET`` shifts them; the offset is recorded.
Seeded and single-threaded, so a rerun on the same CPU and torch writes the same weights (another CPU
gives other weights and nearby metrics: tests/test_circuits.py checks the metrics, not the bits). The
JSON records the settings, the training code's fingerprint (``circuits.shipped.fingerprint``), the loss
curve (mean of every 100 steps), the training time and ``circuits.shipped.induction_report`` at a
repeat length seen in training (8) and at one longer than any seen (16).
"""

from __future__ import annotations

import dataclasses
import json
import time

import torch
from safetensors.torch import save_file

from xai_tf import provenance
from xai_tf.circuits import induction_training, shipped
from xai_tf.training import TrainOptions

SETTINGS = {"steps": 2000, "lr": 1e-3, "batch_size": 64, "seed": 0}
HALVES = {"trained length": 8, "unseen length": 16}


def _curve(history: list[float], every: int = 100) -> list[float]:
    return [round(sum(history[i : i + every]) / every, 4) for i in range(0, len(history), every)]


def main() -> None:
    torch.set_num_threads(1)
    start = time.perf_counter()
    model, history = induction_training.train_induction(options=TrainOptions(**SETTINGS))
    seconds = time.perf_counter() - start
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, shipped.WEIGHTS)
    lm = shipped.induction_model()
    record = {
        "fingerprint": shipped.fingerprint(),
        **provenance.record(threads=1),
        "settings": SETTINGS,
        "config": induction_training.CONFIG.to_dict(),
        "data": dataclasses.asdict(induction_training.RepeatData()),
        "seconds": round(seconds, 1),
        "loss per 100 steps": _curve(history),
        "reports": {name: shipped.induction_report(lm, half) for name, half in HALVES.items()},
    }
    shipped.METRICS.write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
