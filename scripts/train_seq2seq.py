"""Train lesson 16's encoder–decoders over seeds; write xai_tf/data/seq2seq.{safetensors,json}.

    OMP_NUM_THREADS=1 .venv/bin/python scripts/train_seq2seq.py --workers 16 --out DIR

For each model of ``shipped.NAMES`` (no attention; dot, scaled dot, bilinear, additive, MLP scores)
and each seed 0..``SEEDS[name]``−1 (20 each), ``training.train`` with ``SETTINGS`` on
``data.make_corpus(0)``, one thread per worker process (about 45 s a model on one core of a 16-core
Xeon; several minutes on a busy 2-core machine). Every draw is scored on the test split: exact match,
BLEU, both by source length, AER of argmax attention, word accuracy per position under teacher
forcing and free running; the dev AER every ``CURVE_EVERY`` steps; the seed-0 models also by beam
search (width 5, α = 0 and 1) on the test split's first ``BEAM_PAIRS`` pairs (``--beam-draws --only
none,additive`` retrains seeds 1–19, checks each loss curve against the record, and adds their beam rows
to ``seq2seq.json``; a log of each goes to ``build/seq2seq_beam_draws.jsonl``). Each finished draw is
appended to ``draws.jsonl`` in the output folder at once (a cut-off run keeps what finished); at the
end the seed-0 weights go to ``seq2seq.safetensors`` and everything to ``seq2seq.json``.
``--only`` and ``--first-seed`` add draws to an earlier run (their draws.jsonl is merged by hand).
Seeded and single-threaded: a rerun on the same CPU and torch gives the same numbers; another CPU
gives nearby ones (the tests check the recorded metrics of the shipped weights, not the bits).
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
from xai_tf.seq2seq import data, decoding, evaluate, metrics, shipped, training
from xai_tf.training import TrainOptions

SETTINGS = {"steps": 1200, "batch_size": 32, "lr": 0.005, "d_h": 32}
SEEDS = {"none": 20, "additive": 20, "dot": 20, "scaled_dot": 20, "bilinear": 20, "mlp": 20}
CURVE_EVERY = 100
BEAM_PAIRS = 150
BEAM_DRAWS_LOG = Path("build/seq2seq_beam_draws.jsonl")


def _one(job: tuple[str, int, str]) -> dict:
    try:
        return _draw(*job)
    except Exception as error:  # one broken draw must not lose the others: report it and go on
        print("FAILED", job, repr(error), flush=True)
        return {}


def _draw(name: str, seed: int, out: str) -> dict:
    torch.set_num_threads(1)
    start = time.perf_counter()
    options = TrainOptions(SETTINGS["steps"], SETTINGS["lr"], SETTINGS["batch_size"], seed)
    trained = training.train(None if name == "none" else name, options, SETTINGS["d_h"], CURVE_EVERY)
    seconds = time.perf_counter() - start
    corpus, model = trained.corpus, trained.model
    record: dict = {"name": name, "seed": seed, "seconds": round(seconds, 1)}
    record.update(evaluate.scores(model, corpus, corpus.test))
    forced, free, n = decoding.position_accuracy(model, corpus, corpus.test)
    record.update(forced=forced.tolist(), free=free.tolist(), n=n.tolist())
    record["loss_curve"] = _loss_curve(trained.losses)
    if name != "none":
        curve = {}
        for step, state in sorted(trained.snapshots.items()):
            model.load_state_dict(state)
            curve[step] = evaluate.attention_aer(model, corpus, corpus.dev)
        record["dev_aer_curve"] = curve
    if seed == 0:
        record["beam"] = _beam(model, corpus)
        torch.save(model.state_dict(), Path(out) / f"{name}.pt")
    with open(Path(out) / "draws.jsonl", "a") as f:
        f.write(json.dumps(record) + "\n")
    print(name, seed, round(seconds, 1), round(record["exact"], 3), record.get("aer"), flush=True)
    return record


def _beam(model: torch.nn.Module, corpus: data.Corpus) -> dict:
    """Greedy and beam search (width 5, α = 0 and 1) on the test split's first ``BEAM_PAIRS`` pairs."""
    refs = [p.target for p in corpus.test[:BEAM_PAIRS]]
    hyps, _ = decoding.greedy(model, corpus, [p.source for p in corpus.test[:BEAM_PAIRS]])
    rows = {"greedy": _beam_row(hyps, refs)}
    for alpha in (0.0, 1.0):
        hyps = [decoding.beam_translate(model, corpus, p.source, 5, alpha) for p in corpus.test[:BEAM_PAIRS]]
        rows[f"beam5 alpha={alpha:g}"] = _beam_row(hyps, refs)
    return rows


def _beam_draw(job: tuple[str, int]) -> dict:
    """``--beam-draws``: retrain a recorded draw, check its loss curve against the record, then ``_beam``."""
    name, seed = job
    torch.set_num_threads(1)
    options = TrainOptions(SETTINGS["steps"], SETTINGS["lr"], SETTINGS["batch_size"], seed)
    trained = training.train(None if name == "none" else name, options, SETTINGS["d_h"], CURVE_EVERY)
    recorded = next(d for d in shipped.recorded()["draws"] if d["name"] == name and d["seed"] == seed)
    row = {"name": name, "seed": seed, "reproduced": _loss_curve(trained.losses) == recorded["loss_curve"]}
    row["beam"] = _beam(trained.model, trained.corpus)
    with open(BEAM_DRAWS_LOG, "a") as f:
        f.write(json.dumps(row) + "\n")
    print(name, seed, "reproduced" if row["reproduced"] else "NOT reproduced", flush=True)
    return row


def beam_draws(names: list[str], workers: int) -> None:
    """Seeds 1..``SEEDS[name]``−1 of ``names``: each draw's ``beam`` rows into ``seq2seq.json`` (seed 0
    has them)."""
    jobs = [(name, seed) for name in names for seed in range(1, SEEDS[name])]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        rows = {(r["name"], r["seed"]): r for r in pool.imap_unordered(_beam_draw, jobs)}
    record = shipped.recorded()
    for d in record["draws"]:
        if (d["name"], d["seed"]) in rows:
            d["beam"] = rows[(d["name"], d["seed"])]["beam"]
            d["beam reproduced"] = rows[(d["name"], d["seed"])]["reproduced"]
    shipped.METRICS.write_text(json.dumps(record) + "\n")


def _loss_curve(losses: list[float]) -> list[float]:
    """The training loss averaged over each 50 steps, as the record keeps it."""
    return [round(sum(losses[i : i + 50]) / 50, 4) for i in range(0, len(losses), 50)]


def _beam_row(hyps: list[list[str]], refs: list[list[str]]) -> dict:
    return {
        "bleu": metrics.bleu(hyps, refs),
        "exact": metrics.exact_match(hyps, refs),
        "length_ratio": sum(map(len, hyps)) / sum(map(len, refs)),
    }


def write(out: Path, wall: float | None = None, workers: int = 1) -> None:
    """seq2seq.safetensors from the seed-0 models and seq2seq.json from draws.jsonl in ``out`` (``workers``:
    the size of the process pool that trained the draws, for the record)."""
    draws = [json.loads(line) for line in (out / "draws.jsonl").read_text().splitlines()]
    weights = {}
    for name in shipped.NAMES:
        state = torch.load(out / f"{name}.pt", weights_only=True)
        weights.update({f"{name}/{k}": v.contiguous() for k, v in state.items()})
    save_file(weights, shipped.WEIGHTS)
    record = {
        "fingerprint": shipped.fingerprint(),
        **provenance.record(threads=1, workers=workers),
        "settings": SETTINGS,
        "wall seconds": wall,
        "draws": sorted(draws, key=lambda d: (shipped.NAMES.index(d["name"]), d["seed"])),
    }
    shipped.METRICS.write_text(json.dumps(record) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--steps", type=int, default=SETTINGS["steps"], help="fewer for a smoke run only")
    parser.add_argument(
        "--seeds", type=int, default=None, help="at most this many seeds a model (a smoke run)"
    )
    parser.add_argument("--out", default="build/seq2seq")
    parser.add_argument("--only", default=",".join(shipped.NAMES), help="these models (comma-separated)")
    parser.add_argument(
        "--first-seed", type=int, default=0, help="skip the seeds below (a run that adds draws)"
    )
    parser.add_argument(
        "--write-only", action="store_true", help="only write the artifacts from --out's draws"
    )
    parser.add_argument(
        "--beam-draws", action="store_true", help="retrain seeds 1-19 of --only and add their beam rows"
    )
    args = parser.parse_args()
    if args.beam_draws:
        beam_draws(args.only.split(","), args.workers)
        return
    out = Path(args.out)
    if args.write_only:
        write(out, workers=args.workers)
        return
    out.mkdir(parents=True, exist_ok=True)
    data.make_corpus(0)
    SETTINGS["steps"] = args.steps
    jobs = [
        (name, seed, str(out))
        for seed in range(max(SEEDS.values()))
        for name in shipped.NAMES
        if name in args.only.split(",")
        and args.first_seed <= seed < min(SEEDS[name], args.seeds or SEEDS[name])
    ]
    start = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        list(pool.imap_unordered(_one, jobs))
    if args.first_seed == 0:
        write(out, round(time.perf_counter() - start, 1), args.workers)


if __name__ == "__main__":
    main()
