"""Train lesson 17's Transformers over seeds; write xai_tf/data/encdec.{safetensors,json}.

    OMP_NUM_THREADS=1 python scripts/train_encdec.py [--workers 16] [--seeds 20] [--steps N] [--out DIR]

For each seed 0..seeds−1 and each variant of ``runs.VARIANTS`` (pre-LN and post-LN with and without
warm-up, decoder-only, label smoothing, dropout, constant learning rate, encoder-only), ``runs.run``
trains it on ``data.make_corpus(0)`` with one thread per worker process, and ``runs.measure`` scores it on
the test split. Each finished draw is appended to ``draws.jsonl`` in the output folder at once (a cut-off
run keeps what finished); at the end the seed-0 weights of ``shipped.NAMES`` go to ``encdec.safetensors``
and every draw to ``encdec.json`` with the settings and the code's fingerprint. Seeded and
single-threaded: another CPU gives nearby numbers, not the same bits (the tests re-score the shipped
weights).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from xai_tf import seeds
from xai_tf.encdec import runs, shipped
from xai_tf.seq2seq import data


def _one(job: tuple[str, int, int | None, str]) -> dict:
    name, seed, steps, out = job
    torch.set_num_threads(1)
    model, record = runs.run(name, seed, steps)
    corpus = data.make_corpus(0)
    start = time.perf_counter()
    record.update(runs.measure(model, corpus.test, corpus))
    record["measure_seconds"] = round(time.perf_counter() - start, 1)
    if seed == 0 and name in shipped.NAMES:
        save_file({k: v.contiguous() for k, v in model.state_dict().items()}, f"{out}/{name}.safetensors")
    with open(f"{out}/draws.jsonl", "a") as f:
        f.write(json.dumps(record) + "\n")
    print(name, seed, record["seconds"], "s", f"exact {record['exact']:.3f}", flush=True)
    return record


def assemble(out: Path, steps: int | None = None) -> None:
    """``encdec.safetensors`` and ``encdec.json`` from a (maybe cut-off) run's folder."""
    weights = {}
    for name in shipped.NAMES:
        weights |= {f"{name}/{k}": v for k, v in load_file(out / f"{name}.safetensors").items()}
    save_file(weights, out / "encdec.safetensors")
    draws = [json.loads(line) for line in (out / "draws.jsonl").read_text().splitlines()]
    draws.sort(key=lambda d: (d["seed"], list(runs.VARIANTS).index(d["name"])))
    settings = {**runs.SETTINGS, "steps": steps or runs.SETTINGS["steps"]}
    record = {
        "seed offset": seeds.offset(),
        "machine": "Intel Xeon, 2 cores shared with other work (the load varied), one thread per draw",
        "settings": settings,
        "variants": runs.VARIANTS,
        "fingerprint": shipped.fingerprint(),
        "draws": draws,
    }
    (out / "encdec.json").write_text(json.dumps(record, indent=1) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--steps", type=int, default=None, help="override the step count (a smoke test)")
    parser.add_argument("--out", default="xai_tf/data")
    parser.add_argument("--variants", default=",".join(runs.VARIANTS), help="comma-separated, in order")
    parser.add_argument("--assemble", action="store_true", help="only gather a cut-off run's draws")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not args.assemble:
        jobs = [
            (name, seed, args.steps, str(out))
            for seed in range(args.seeds)
            for name in args.variants.split(",")
        ]
        with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
            pool.map(_one, jobs, chunksize=1)
    assemble(out, args.steps)


if __name__ == "__main__":
    main()
