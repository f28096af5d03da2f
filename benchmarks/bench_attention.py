"""Sparse attention maps: xai_tf against the entmax package, forward + backward, one run, CPU.

Batch [64, 1024] float32 scores; median of several interleaved runs after a warm-up (xai_tf.timing);
prints the time ratio (ours / entmax) at each thread count in one run (default 1 and 2: a shared
machine's load moves both sides of a ratio alike, not its absolute times).

    python benchmarks/bench_attention.py [--runs 30] [--threads 1,2]
"""

from __future__ import annotations

import argparse

import entmax
import torch

from xai_tf import attention as att

from timing import median_seconds  # isort: skip

PAIRS = {
    "sparsemax": (att.sparsemax, lambda z: entmax.sparsemax(z, -1)),
    "entmax 1.5 (sort)": (lambda z: att.entmax(z, 1.5), lambda z: entmax.entmax15(z, -1)),
    "entmax 1.3 (Newton)": (lambda z: att.entmax(z, 1.3), lambda z: entmax.entmax_bisect(z, 1.3, -1)),
}


def forward_backward(fn, z: torch.Tensor, grad: torch.Tensor):
    """One forward and backward pass of ``fn`` on a fresh leaf copy of the scores z."""
    return lambda: fn(z.clone().requires_grad_()).backward(grad)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--threads", default="1,2", help="comma-separated torch thread counts (default 1,2)")
    args = p.parse_args()
    g = torch.Generator().manual_seed(0)
    z, grad = torch.randn(64, 1024, generator=g), torch.randn(64, 1024, generator=g)
    for threads in (int(n) for n in args.threads.split(",")):
        torch.set_num_threads(threads)
        print(f"forward + backward on [64, 1024] float32, median of {args.runs}, {threads} threads")
        compare(z, grad, args.runs)


def compare(z: torch.Tensor, grad: torch.Tensor, runs: int) -> None:
    """One line per pair of ``PAIRS``: both times and the ratio ours / entmax."""
    for name, (ours, theirs) in PAIRS.items():
        t = median_seconds(
            {"ours": forward_backward(ours, z, grad), "entmax": forward_backward(theirs, z, grad)}, runs
        )
        print(
            f"  {name:20s} ours {t['ours'] * 1e3:6.2f} ms   entmax {t['entmax'] * 1e3:6.2f} ms   "
            f"ratio ours/entmax {t['ours'] / t['entmax']:.2f}"
        )


if __name__ == "__main__":
    main()
