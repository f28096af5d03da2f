"""Train lesson 09's toy models and write xai_tf/data/toytasks.{safetensors,json}.

    .venv/bin/python scripts/train_toytasks.py                # about 10–20 minutes on one CPU thread
    .venv/bin/python scripts/train_toytasks.py --sweep-only   # keep the models, redo the α sweep

Every draw goes through ``xai_tf.seeds`` (the helpers' ``seed=`` arguments), so ``XAI_TF_SEED_OFFSET``
shifts them all; the offset is recorded. Seeded and single-threaded, so a rerun on the same CPU and torch
writes the same weights (another CPU gives other weights and nearby metrics: tests/test_toytasks.py checks
the metrics, not the bits). What it trains:
- histogram (L = 10, T = 15): W restricted to the semantic / positional block; W started in each block
  and free; each restricted model continued without the restriction (the paper's frozen → unfrozen
  check) — test accuracy on 5,000 fresh sequences and the share of W outside each block;
- Dyck_{2,4}, length 24: free attention, layer 1 uniform, attention pushed off the stack top
  (away = 1), seeds 0, 1, 2 — accuracy on 1,000 fresh strings and the stack share per head;
- the solvable model: training loss, test error and the overlaps |θ|, |m| of both minima over α = n/d at
  d = 100, 200, 400 (600 s in all on one thread of this machine, November 2026).
tests/test_toytasks.py checks that the files are current (``xai_tf.tasks.toytasks.fingerprint``, taken
when training starts: a change to the training code during the run stops it before anything is written).
"""

from __future__ import annotations

import json
import sys
import time

import torch
from safetensors.torch import save_file

from xai_tf import provenance
from xai_tf.tasks import dyck, dyck_model, histogram, solvable, toytasks

HIST_STEPS, CONTINUE_STEPS, CONTINUE_LR, DYCK_STEPS, SEEDS = 1500, 500, 1e-3, 1500, (0, 1, 2)
AWAY = 1.0
ALPHAS = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0]
SWEEP = {100: 8, 200: 4, 400: 2}  # d → seeds


def train_histograms(state: dict, out: dict) -> None:
    x_test, y_test = histogram.histogram_data(5000, seed=999)
    for block in histogram.BLOCKS:
        options = histogram.OPTIONS.replace(steps=HIST_STEPS)
        restricted, _ = histogram.train_histogram(block, restrict=True, options=options)
        free, _ = histogram.train_histogram(block, restrict=False, options=options)
        further = histogram.OPTIONS.replace(steps=CONTINUE_STEPS, lr=CONTINUE_LR)
        unfrozen, _ = histogram.train_histogram(block, options=further, init=restricted)
        W, W_free = restricted.weight().detach(), unfrozen.weight().detach()
        moved = float((W_free - W).norm() / W.norm())
        for name, model in {
            f"{block}, restricted": restricted,
            f"{block} start": free,
            f"{block}, restricted → unrestricted": unfrozen,
        }.items():
            state.update({f"histogram/{name}/{k}": v for k, v in model.state_dict().items()})
            out[name] = {
                "test accuracy": histogram.histogram_accuracy(model, x_test, y_test),
                "outside semantic block": histogram.off_block_share(model, "semantic"),
                "outside positional block": histogram.off_block_share(model, "positional"),
            }
        out[f"{block}, restricted → unrestricted"]["relative change of W"] = moved
        print(block, {k: v for k, v in out.items() if k.startswith(block)}, flush=True)


def train_dyck(state: dict, out: dict) -> None:
    test = dyck.sample_dyck(1000, 24, seed=999)
    _, top = dyck.next_close_targets(test)
    x = dyck.encode_dyck(test)
    kwargs = {
        "free attention": {},
        "layer 1 uniform": {"uniform_first": True},
        "pushed off the stack": {"away": AWAY},
    }
    for name, kw in kwargs.items():
        out[name] = []
        for seed in SEEDS:
            model, history = dyck_model.train_dyck(
                **kw, options=dyck_model.OPTIONS.replace(steps=DYCK_STEPS, seed=seed)
            )
            with torch.no_grad():
                A = model(x)[1]
            out[name].append(
                {
                    "seed": seed,
                    "test accuracy": dyck_model.dyck_accuracy(model, test),
                    "stack share": dyck_model.stack_share(A, top).tolist(),
                    "final loss": history[-1],
                }
            )
            if seed == 0:
                state.update({f"dyck/{name}/{k}": v for k, v in model.state_dict().items()})
            print(name, out[name][-1], flush=True)


def sweeps() -> dict:
    out = {}
    for d, n_sets in SWEEP.items():
        out[str(d)] = {"seeds": n_sets, **solvable.alpha_sweep(ALPHAS, d=d, seeds=n_sets)}
        print("sweep d =", d, flush=True)
    return out


def main() -> None:
    torch.set_num_threads(1)
    start = time.time()
    if "--sweep-only" in sys.argv:  # keep the trained models, redo the α sweep (same fingerprint)
        metrics = json.loads(toytasks.METRICS.read_text())
        assert metrics["fingerprint"] == toytasks.fingerprint(), (
            "the models are stale: run without --sweep-only"
        )
        metrics["sweep"], metrics["settings"]["sweep d: seeds"] = sweeps(), SWEEP
        metrics["sweep seconds"] = round(time.time() - start)
        toytasks.METRICS.write_text(json.dumps(metrics, indent=1, ensure_ascii=False) + "\n")
        print(f"rewrote the sweep in {toytasks.METRICS} in {time.time() - start:.0f} s")
        return
    code = toytasks.fingerprint()
    state, hist, dyck_out = {}, {}, {}
    train_histograms(state, hist)
    train_dyck(state, dyck_out)
    sweep = sweeps()
    if toytasks.fingerprint() != code:
        raise SystemExit("the training code changed during the run: nothing written, run it again")
    save_file({k: v.contiguous() for k, v in state.items()}, toytasks.WEIGHTS)
    settings = {
        "histogram steps": HIST_STEPS,
        "continued steps": CONTINUE_STEPS,
        "continued lr": CONTINUE_LR,
        "dyck steps": DYCK_STEPS,
        "seeds": list(SEEDS),
        "away": AWAY,
        "alphas": ALPHAS,
        "sweep": "sigma 0.5, omega 0.3, lambda 0.01, Adam 600 steps",
        "sweep d: seeds": SWEEP,
    }
    metrics = {
        "fingerprint": code,
        **provenance.record(threads=1),
        "settings": settings,
        "histogram": hist,
        "dyck": dyck_out,
        "sweep": sweep,
        "seconds": round(time.time() - start),
    }
    toytasks.METRICS.write_text(json.dumps(metrics, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {toytasks.WEIGHTS} and {toytasks.METRICS} in {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
