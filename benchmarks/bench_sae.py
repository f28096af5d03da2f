"""Sparse-autoencoder training throughput (lesson 10): ``train_sae`` (through the one training loop,
with its live L0/FVU bookkeeping) against a plain PyTorch loop of the same maths, one run each,
interleaved, on the same seeded activations (d = 256, F = 1024, 1,024 tokens a step: the shipped SAE's
shape). SAELens's training step is not measured: sae-lens needs transformer-lens and a torch other than
the pinned CPU build, so it is not installed here.

    python benchmarks/bench_sae.py [--steps 50] [--runs 3] [--threads 2]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

from xai_tf.sae.activations import shuffled_batches
from xai_tf.sae.model import SAEConfig, SparseAutoencoder
from xai_tf.sae.training import train_sae
from xai_tf.training import TrainOptions

sys.path.append(str(Path(__file__).resolve().parent))
from timing import median_seconds  # noqa: E402  isort: skip

D, F, BATCH, LAM = 256, 1024, 1024, 3.0


def plain(H: torch.Tensor, steps: int) -> None:
    """The reference: the same SAE, loss and Adam, written as a bare loop."""
    sae = SparseAutoencoder(SAEConfig(D, F, LAM))
    opt = torch.optim.Adam(sae.parameters(), lr=3e-3)
    batches = shuffled_batches(H, BATCH)
    for _ in range(steps):
        h = next(batches)
        a = torch.relu(h @ sae.W_enc.T + sae.b_enc)
        s = a @ sae.W_dec.T + sae.b_dec
        loss = ((h - s) ** 2).sum(-1).mean() + LAM * (a * sae.W_dec.norm(dim=0)).sum(-1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    H = torch.randn(16 * BATCH, D, generator=torch.Generator().manual_seed(0))
    cfg = SAEConfig(D, F, LAM)
    times = median_seconds(
        {
            "xai_tf train_sae": lambda: train_sae(
                shuffled_batches(H, BATCH), cfg, TrainOptions(args.steps, 3e-3), progress=False
            ),
            "plain PyTorch loop": lambda: plain(H, args.steps),
        },
        args.runs,
    )
    tokens = args.steps * BATCH
    for name, seconds in times.items():
        print(f"{name:20s} {tokens / seconds:10,.0f} tokens/s  ({seconds:.2f} s for {args.steps} steps)")
    ratio = times["plain PyTorch loop"] / times["xai_tf train_sae"]
    print(f"xai_tf runs at {ratio:.2f} × the plain loop's throughput")


if __name__ == "__main__":
    main()
