"""Attention flow: xai_tf (scipy's exact max-flow) against a plain networkx reference, one run, CPU.

6 layers × 32 tokens, 12 heads of random attention (rows softmax-normalised, seeded): the full
[32, 32] flow matrix, i.e. 1,024 max-flow problems on a graph of 224 nodes and 6,144 edges.
networkx is timed on all of them once; ours as the median of several runs. Also prints rollout.

    python benchmarks/bench_wordlevel.py [--runs 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import networkx as nx
import torch

from xai_tf.explain.wordlevel import attention_flow, attention_rollout

sys.path.append(str(Path(__file__).resolve().parents[1] / "tests"))
from references import networkx_flow  # noqa: E402  isort: skip
from timing import median_seconds  # noqa: E402  isort: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args()
    g = torch.Generator().manual_seed(0)
    attentions = (torch.randn(6, 12, 32, 32, generator=g) * 2).softmax(-1).double()
    start = time.perf_counter()
    reference = networkx_flow(attentions)
    t_nx = time.perf_counter() - start
    error = (attention_flow(attentions) - reference).abs().max().item()
    t = median_seconds(
        {"flow": lambda: attention_flow(attentions), "rollout": lambda: attention_rollout(attentions)},
        args.runs,
    )
    print(f"attention flow, 6 layers × 32 tokens (1,024 max-flows), networkx {nx.__version__}")
    print(
        f"  ours {t['flow']:.3f} s   networkx {t_nx:.1f} s   speed-up {t_nx / t['flow']:.0f}×   "
        f"max |Δ| {error:.1e}"
    )
    print(f"  rollout {t['rollout'] * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
