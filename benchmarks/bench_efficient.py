"""The cost of attention (lesson 14): one layer of each kind as n grows, on this machine, in one run.

For n = 128 … 16384 (d = d_e = 64, batch 1, float32, no autograd) it times one forward pass of
each layer of ``xai_tf.efficient.cost.METHODS`` (--runs runs, the layers interleaved run by run,
after a warm-up; the median and the fastest run are kept, and exponents are fitted to the fastest,
which another process sharing the CPU slows least) and records the peak bytes torch allocates in one
pass. It prints, per n,
each layer's time and memory as ratios against torch's ``scaled_dot_product_attention`` (the
reference) and against full naive attention; then the exponents fitted on log-log axes over the
three largest n, next to the table's, and the recurrent layers' time per position (their work per
position is constant: an LSTM exponent above 1 is its fused kernel's speed per step, not more
work); the crossover n where linear attention becomes faster than full attention; and chunked
attention's peak memory against the naive one at the largest n.
Full naive attention is skipped (and says so) where its n × n scores do not fit in memory.

    python benchmarks/bench_efficient.py [--runs 5] [--max-n 16384] [--write]

--write stores the sweep in xai_tf/data/efficient_sweep.json, which lesson 14 plots (with the
fingerprint of the code it measured: tests/test_efficient_artifact.py checks that it is current).
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

import torch

from xai_tf import artifacts, provenance
from xai_tf._checks import available_ram
from xai_tf.efficient import cost
from xai_tf.timing import interleaved_times

ROOT = Path(__file__).resolve().parents[1]
ARTIFACT = ROOT / "xai_tf" / "data" / "efficient_sweep.json"
D = 64
WIDTH = {"convolution": 3, "restricted attention": 32, "performer": 64, "linformer": 64}


def fingerprint() -> str:
    """The measured code's fingerprint (``cost.layer`` and everything it imports): the artifact is
    current while this is unchanged."""
    return artifacts.fingerprint("xai_tf.efficient.cost")


def sweep(ns: list[int], runs: int) -> dict[str, dict[str, list[float | None]]]:
    results = {m: {"seconds": [], "median_seconds": [], "peak_bytes": []} for m in cost.METHODS}
    for n in ns:
        E = torch.randn(1, n, D, generator=torch.Generator().manual_seed(1))
        fns = {}
        for method in cost.METHODS:
            if method == "self-attention" and 4 * 3 * n * n > 0.5 * available_ram():
                print(f"  n={n}: full naive attention skipped: its scores would not fit in memory")
                continue
            run = cost.layer(method, n, D, width=min(WIDTH.get(method, 16), n))
            fns[method] = lambda run=run, E=E: run(E)
        with torch.no_grad():
            times = interleaved_times(fns, runs)
            for method in cost.METHODS:
                if method in fns:
                    results[method]["seconds"].append(min(times[method]))
                    results[method]["median_seconds"].append(statistics.median(times[method]))
                    results[method]["peak_bytes"].append(float(cost.peak_bytes(fns[method])))
                else:
                    for key in ("seconds", "median_seconds", "peak_bytes"):
                        results[method][key].append(None)
        line = "  ".join(f"{m[:10]} {results[m]['seconds'][-1] or float('nan'):.4f}s" for m in cost.METHODS)
        print(f"n={n:6d}  {line}", flush=True)
    return results


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--max-n", type=int, default=16384)
    p.add_argument("--write", action="store_true")
    args = p.parse_args()
    ns = [n for n in (128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768) if n <= args.max_n]
    threads = torch.get_num_threads()
    print(
        f"one layer, d = {D}, batch 1, float32, forward only, fastest of {args.runs}, {threads} threads, CPU"
    )
    results = sweep(ns, args.runs)

    print("\nratios at each n: time / sdpa's time, peak memory / sdpa's peak memory")
    ref = results["sdpa"]
    for method in cost.METHODS:
        t = [
            f"{a / b:7.2f}" if a else "      -"
            for a, b in zip(results[method]["seconds"], ref["seconds"], strict=True)
        ]
        m = [
            f"{a / b:7.1f}" if a else "      -"
            for a, b in zip(results[method]["peak_bytes"], ref["peak_bytes"], strict=True)
        ]
        print(f"  {method:21s} time {' '.join(t)}\n  {'':21s} mem  {' '.join(m)}")

    print("\nfitted exponents of n (three largest n measured) vs the table's")
    exponents = {}
    for method in cost.METHODS:
        pts = [
            (n, t, b)
            for n, t, b in zip(ns, results[method]["seconds"], results[method]["peak_bytes"], strict=True)
            if t
        ]
        n_, t_, b_ = zip(*pts, strict=True)
        exponents[method] = (cost.fit_exponent(n_, t_, last=3), cost.fit_exponent(n_, b_, last=3))
        table = cost.TABLE_EXPONENTS[method]
        print(
            f"  {method:21s} time n^{exponents[method][0]:.2f} (table {table[0]:g})   "
            f"memory n^{exponents[method][1]:.2f} (table {table[1]:g})"
        )

    # the recurrent layers' work per position is constant (8·d² multiply-adds for the LSTM): a fitted
    # exponent above 1 is the kernel's speed per step changing with n (lesson 14), read it per position
    for method in ("LSTM", "GRU"):
        per = " ".join(
            f"{t / n * 1e6:6.1f}" if t else "     -"
            for n, t in zip(ns, results[method]["seconds"], strict=True)
        )
        print(f"  {method:21s} µs per position {per}")

    full = [t if t else float("inf") for t in results["self-attention"]["seconds"]]
    lin = results["linear attention"]["seconds"]
    print(f"\nlinear attention faster than full naive attention from n = {cost.crossover(ns, full, lin)}")
    print(
        f"linear attention faster than sdpa (flash, CPU) from n = {cost.crossover(ns, ref['seconds'], lin)}"
    )
    big = max(i for i, b in enumerate(results["self-attention"]["peak_bytes"]) if b)
    for method in ("self-attention", "chunked", "sdpa"):
        mib = results[method]["peak_bytes"][big] / 2**20
        print(f"peak memory at n = {ns[big]}: {method:15s} {mib:9.1f} MiB")

    if args.write:
        ARTIFACT.write_text(
            json.dumps(
                {
                    "what": "benchmarks/bench_efficient.py --write: one layer, forward, float32, batch 1",
                    "fingerprint": fingerprint(),
                    **provenance.record(threads=threads),
                    "d": D,
                    "widths": WIDTH,
                    "runs": args.runs,
                    "ns": ns,
                    "results": results,
                    "exponents": exponents,
                },
                indent=1,
            )
        )
        print(f"wrote {ARTIFACT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
