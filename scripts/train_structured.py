"""Train lesson 18's structured decoders over seeds; write xai_tf/data/structured.{safetensors,json}.

    OMP_NUM_THREADS=1 .venv/bin/python scripts/train_structured.py --workers 2 --seeds 5 --out DIR

For each normalizer of ``decoder.NORMALIZERS`` (softmax, sparsemax, fusedmax, sigmoid, CRF marginals, CRF
marginals normalised to sum to 1) and seed ``--first-seed``..``--seeds``−1, ``training.train`` with
``training.SETTINGS`` on the 3–12-word pairs of ``data.make_corpus(0)``, one thread per worker process
(20–45 ms a step on an idle core of an Intel Xeon; 100–300 s a model on the busy 2-core machine that made
the first record). Every draw is scored on the test split's 3–12-word pairs (``training.scores``) and
appended to ``draws.jsonl`` in the output folder at once; at the end (or with ``--write-only``, after runs
with ``--only`` into one folder) the seed-0 weights go to ``structured.safetensors`` and everything to
``structured.json``. To add seeds to a record, put its draws in ``draws.jsonl`` and its seed-0 weights in
``NAME.pt`` in the folder and start at ``--first-seed``. Seeded and single-threaded: a rerun on the same
CPU and torch gives the same numbers; another CPU gives nearby ones.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from pathlib import Path

import torch
from safetensors.torch import save_file

from xai_tf import provenance
from xai_tf.seq2seq import data
from xai_tf.structured import shipped, training
from xai_tf.structured.decoder import NORMALIZERS


def _draw(job: tuple[str, int, str]) -> dict:
    normalizer, seed, out = job
    torch.set_num_threads(1)
    start = time.perf_counter()
    model, losses = training.train(
        normalizer,
        training.OPTIONS.replace(seed=seed),
        training.SETTINGS["d_h"],
        training.SETTINGS["max_length"],
    )
    seconds = time.perf_counter() - start
    corpus = data.make_corpus(0)
    record: dict = {"normalizer": normalizer, "seed": seed, "seconds": round(seconds, 1)}
    test = training.short(corpus.test, training.SETTINGS["max_length"])
    record.update({k: round(v, 5) for k, v in training.scores(model, corpus, test).items()})
    record["loss_curve"] = [round(sum(losses[i : i + 50]) / 50, 4) for i in range(0, len(losses), 50)]
    if seed == 0:
        torch.save(model.state_dict(), Path(out) / f"{normalizer}.pt")
    with open(Path(out) / "draws.jsonl", "a") as f:
        f.write(json.dumps(record) + "\n")
    print(normalizer, seed, record["seconds"], record["exact"], record["aer"], flush=True)
    return record


def write(out: Path, wall: float | None = None, workers: int = 1) -> None:
    """structured.safetensors from the seed-0 models and structured.json from draws.jsonl in ``out``
    (``workers``: the size of the process pool that trained the draws, for the record)."""
    draws = [json.loads(line) for line in (out / "draws.jsonl").read_text().splitlines()]
    weights = {}
    for name in NORMALIZERS:
        state = torch.load(out / f"{name}.pt", weights_only=True)
        weights.update({f"{name}/{k}": v.contiguous() for k, v in state.items()})
    save_file(weights, shipped.WEIGHTS)
    record = {
        "fingerprint": shipped.fingerprint(),
        **provenance.record(threads=1, workers=workers),
        "settings": training.SETTINGS,
        "wall seconds": wall,
        "draws": sorted(draws, key=lambda d: (NORMALIZERS.index(d["normalizer"]), d["seed"])),
    }
    shipped.METRICS.write_text(json.dumps(record) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seeds", type=int, default=5, help="train seeds --first-seed .. --seeds − 1")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--out", default="build/structured")
    parser.add_argument("--only", default=",".join(NORMALIZERS), help="these normalizers (comma-separated)")
    parser.add_argument("--write-only", action="store_true", help="only write the artifacts from --out")
    args = parser.parse_args()
    out = Path(args.out)
    if args.write_only:
        write(out, workers=args.workers)
        return
    out.mkdir(parents=True, exist_ok=True)
    data.make_corpus(0)
    only = args.only.split(",")
    seeds = range(args.first_seed, args.seeds)
    jobs = [(name, seed, str(out)) for seed in seeds for name in NORMALIZERS if name in only]
    start = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        list(pool.imap_unordered(_draw, jobs))
    write(out, round(time.perf_counter() - start, 1), args.workers)


if __name__ == "__main__":
    main()
