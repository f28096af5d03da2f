"""Forward pass and loading: xai_tf's GPT2 against Hugging Face transformers, one run, CPU, float32.

Same randomly initialised GPT-2-small-sized weights (124M parameters), 128 tokens. Prints the
median time of several runs (ours / theirs) and, measured in fresh processes, the peak resident
memory of a forward pass and of loading the checkpoint (in multiples of the weights' size).

    python benchmarks/bench_forward.py [--runs 10] [--tokens 128]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import torch
import transformers

import xai_tf
from xai_tf.models import GPT2

from timing import median_seconds, peak_mb, reset_peak, rss_mb  # isort: skip


def child(which: str, checkpoint: str, tokens: int) -> dict:
    """In a fresh process: load one model, then run one forward pass; report memory."""
    reset_peak()
    start = rss_mb()
    if which == "ours":
        model = xai_tf.load_model(checkpoint).model
    else:
        model = transformers.GPT2LMHeadModel.from_pretrained(checkpoint).eval()
    load_peak = peak_mb()
    reset_peak()
    loaded = rss_mb()
    with torch.no_grad():
        model(torch.zeros(1, tokens, dtype=torch.long))
    return {"load_mb": load_peak - start, "forward_peak_mb": peak_mb() - loaded}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--tokens", type=int, default=128)
    p.add_argument("--child", nargs=2, metavar=("WHICH", "CHECKPOINT"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        print(json.dumps(child(*args.child, args.tokens)))
        return

    torch.manual_seed(0)
    hf = transformers.GPT2LMHeadModel(transformers.GPT2Config()).eval()
    ours = GPT2.from_hf(hf)
    ids = torch.randint(0, 50257, (1, args.tokens))
    with torch.no_grad():
        assert (ours(ids) - hf(ids).logits).abs().max() < 1e-3
        t = median_seconds({"ours": lambda: ours(ids), "hf": lambda: hf(ids)}, args.runs)
    t_ours, t_hf = t["ours"], t["hf"]
    print(
        f"forward, {args.tokens} tokens, median of {args.runs} runs, "
        f"{torch.get_num_threads()} threads, attention: ours fused SDPA, "
        f"transformers {transformers.__version__} {hf.config._attn_implementation}"
    )
    print(
        f"  ours {t_ours * 1e3:.1f} ms   transformers {t_hf * 1e3:.1f} ms   "
        f"ratio ours/theirs {t_ours / t_hf:.2f}"
    )

    with tempfile.TemporaryDirectory() as tmp:
        hf.save_pretrained(tmp)
        weights_mb = os.path.getsize(Path(tmp) / "model.safetensors") / 2**20
        print(f"peak resident memory in fresh processes (Linux VmHWM); weights file {weights_mb:.0f} MB")
        for which in ("ours", "transformers"):
            out = subprocess.run(
                [sys.executable, __file__, "--tokens", str(args.tokens), "--child", which, tmp],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.splitlines()[-1]
            m = json.loads(out)
            print(
                f"  {which:12s} load: {m['load_mb']:.0f} MB resident "
                f"({m['load_mb'] / weights_mb:.2f}× the weights)   "
                f"forward peak above the loaded model: {m['forward_peak_mb']:.0f} MB"
            )


if __name__ == "__main__":
    main()
