"""Score greedy and beam search (``beam_sweep.GRID``) for lesson 17's shipped models; write
xai_tf/data/encdec_beam.json.

    OMP_NUM_THREADS=1 python scripts/beam_encdec.py [--pairs N] [--out FILE]
    OMP_NUM_THREADS=1 python scripts/beam_encdec.py --draws 20 [--workers 2]

``--draws N`` instead retrains seeds 1..N−1 of the shipped variants (``runs.run``, the recipe of
``encdec.json``; each retrained model's loss curve is compared with its recorded draw, and the record
says whether it matched), scores ``beam_sweep.DRAW_GRID`` on the same pairs, and adds the rows to the
record's ``"draws"`` (seed 0's rows are the shipped models' own). Each draw is appended to
``build/encdec_beam_draws.jsonl`` as it finishes, so a cut-off run keeps what it did.

Deterministic given the weights (no sampling); another CPU or torch build may break a near-tie
differently, so the test compares the spot-check translations allowing one difference.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from pathlib import Path

import torch

from xai_tf import provenance
from xai_tf.encdec import beam, beam_sweep, runs, shipped

DRAWS_LOG = Path("build/encdec_beam_draws.jsonl")


def _draw(job: tuple[str, int, int]) -> dict:
    name, seed, n_pairs = job
    torch.set_num_threads(1)
    start = time.perf_counter()
    model, record = runs.run(name, seed)
    corpus = shipped.corpus()
    recorded = next(d for d in shipped.draws(name) if d["seed"] == seed)
    rows = [
        {"beam": b, "alpha": a, **beam.scores(model, corpus.test[:n_pairs], corpus, b, a)}
        for b, a in beam_sweep.DRAW_GRID
    ]
    row = {
        "name": name,
        "seed": seed,
        "reproduced": record["loss_curve"] == recorded["loss_curve"],
        "rows": rows,
    }
    row["seconds"] = round(time.perf_counter() - start, 1)
    with open(DRAWS_LOG, "a") as f:
        f.write(json.dumps(row) + "\n")
    print(
        name, seed, row["seconds"], "s", "reproduced" if row["reproduced"] else "NOT reproduced", flush=True
    )
    return row


def draws(n: int, workers: int, out: Path) -> None:
    """Seeds 1..n−1 of every shipped variant into the record at ``out`` (``--draws``)."""
    record = json.loads(out.read_text())
    jobs = [(name, seed, record["pairs"]) for seed in range(1, n) for name in shipped.NAMES]
    DRAWS_LOG.parent.mkdir(exist_ok=True)
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        rows = list(pool.imap_unordered(_draw, jobs))
    record["draws grid"] = beam_sweep.DRAW_GRID
    record["draws"] = sorted(rows, key=lambda r: (shipped.NAMES.index(r["name"]), r["seed"]))
    out.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=200, help="score the first N test pairs (of 700)")
    parser.add_argument("--out", default=str(beam_sweep.RECORD))
    parser.add_argument("--draws", type=int, default=0, help="add seeds 1..N−1 (retrained) to the record")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    if args.draws:
        draws(args.draws, args.workers, Path(args.out))
        return
    torch.set_num_threads(1)
    corpus = shipped.corpus()
    pairs = corpus.test[: args.pairs]
    record: dict = {
        **provenance.record(threads=1),
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
