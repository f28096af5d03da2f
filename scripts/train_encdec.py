"""Train lesson 17's Transformers over seeds; write xai_tf/data/encdec.{safetensors,json}.

    OMP_NUM_THREADS=1 python scripts/train_encdec.py [--workers 16] [--seeds 20] [--steps N] [--out DIR]
        [--variants a,b] [--draws-only | --assemble]

For each seed 0..seeds−1 and each variant of ``runs.VARIANTS`` (pre-LN and post-LN with and without
warm-up, decoder-only, label smoothing, dropout, constant learning rate, encoder-only), ``runs.run``
trains it on ``data.make_corpus(0)`` with one thread per worker process, and ``runs.measure`` scores it on
the test split. Each finished draw is appended to ``draws.jsonl`` in the output folder at once (a cut-off
run keeps what finished); at the end the seed-0 weights of ``shipped.NAMES`` go to ``encdec.safetensors``
and every draw to ``encdec.json`` with the settings and the code's fingerprint (so a run of some
``--variants`` must include the shipped ones unless ``--out`` holds their seed-0 weights already, and
``--draws-only`` appends draws to a run's folder without assembling). Seeded and
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

from xai_tf import provenance
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


def assemble(out: Path, steps: int | None = None, workers: int = 1) -> None:
    """``encdec.safetensors`` and ``encdec.json`` from a (maybe cut-off) run's folder (``workers``: the
    size of the process pool that trained the draws, for the record)."""
    weights = {}
    for name in shipped.NAMES:
        weights |= {f"{name}/{k}": v for k, v in load_file(out / f"{name}.safetensors").items()}
    save_file(weights, out / "encdec.safetensors")
    draws = [json.loads(line) for line in (out / "draws.jsonl").read_text().splitlines()]
    draws.sort(key=lambda d: (d["seed"], list(runs.VARIANTS).index(d["name"])))
    settings = {**runs.SETTINGS, "steps": steps or runs.SETTINGS["steps"]}
    record = {
        **provenance.record(threads=1, workers=workers),
        "settings": settings,
        "variants": runs.VARIANTS,
        "fingerprint": shipped.fingerprint(),
        "draws": draws,
    }
    (out / "encdec.json").write_text(json.dumps(record, indent=1) + "\n")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line, refused at once (before any training) where the assemble step could not run:
    it needs the seed-0 weights of every shipped variant, trained by this run or already in ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--steps", type=int, default=None, help="override the step count (a smoke test)")
    parser.add_argument("--out", default="xai_tf/data")
    parser.add_argument("--variants", default=",".join(runs.VARIANTS), help="comma-separated, in order")
    parser.add_argument("--assemble", action="store_true", help="only gather a cut-off run's draws")
    parser.add_argument(
        "--draws-only", action="store_true", help="only append draws to OUT/draws.jsonl (no assemble step)"
    )
    args = parser.parse_args(argv)
    args.variants = args.variants.split(",")
    if unknown := [v for v in args.variants if v not in runs.VARIANTS]:
        parser.error(f"--variants: unknown {', '.join(unknown)}; choose from {','.join(runs.VARIANTS)}")
    if args.seeds < 1:
        parser.error(f"--seeds must be at least 1 (seed 0 gives the shipped weights), got {args.seeds}")
    if args.assemble and args.draws_only:
        parser.error("--assemble only assembles and --draws-only never does: pass one of them")
    if args.assemble and not (Path(args.out) / "draws.jsonl").is_file():
        parser.error(f"--assemble gathers {args.out}/draws.jsonl, which does not exist: check --out")
    if not args.draws_only and (missing := _missing(args)):
        files = ", ".join(f"{n}.safetensors" for n in missing)
        needs = f"the seed-0 weights of every shipped variant ({', '.join(shipped.NAMES)})"
        if args.assemble:
            parser.error(
                f"--assemble needs {needs}, and {args.out} lacks {files}: "
                f"train them first (--variants {','.join(missing)} --out {args.out})"
            )
        parser.error(
            f"the assemble step needs {needs}; this run does not train {', '.join(missing)} "
            f"and {args.out} lacks {files}: add them to --variants "
            f"(--variants {','.join([*args.variants, *missing])}), or pass --draws-only "
            f"to only append draws to {args.out}/draws.jsonl"
        )
    return args


def _missing(args: argparse.Namespace) -> list[str]:
    """The shipped variants whose seed-0 weights the assemble step would not find."""
    trained = set() if args.assemble else set(args.variants)
    return [
        n for n in shipped.NAMES if n not in trained and not (Path(args.out) / f"{n}.safetensors").is_file()
    ]


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not args.assemble:
        jobs = [(name, seed, args.steps, str(out)) for seed in range(args.seeds) for name in args.variants]
        with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
            pool.map(_one, jobs, chunksize=1)
    if not args.draws_only:
        assemble(out, args.steps, args.workers)


if __name__ == "__main__":
    main()
