"""The bundled model on this machine: files on disk, load time, 50-token generation time.

python benchmarks/bench_bundled.py
"""

from __future__ import annotations

import os
import statistics
import time
from importlib.resources import files

import xai_tf
from xai_tf.transformer.decoding import generate


def main() -> None:
    data = files("xai_tf") / "data"
    size = sum(os.path.getsize(data / f) for f in ("shakespeare.safetensors", "shakespeare.tiktoken"))
    print(f"weights + tokenizer on disk: {size / 1e6:.1f} MB (target ≤ 16 MB)")
    loads = []
    for _ in range(5):
        start = time.perf_counter()
        lm = xai_tf.load_model("shakespeare")
        loads.append(time.perf_counter() - start)
    print(f"load_model('shakespeare'): median {statistics.median(loads):.2f} s of 5 (target < 2 s)")
    prompt = lm.encode("ROMEO.\n")
    runs = []
    for seed in range(5):
        start = time.perf_counter()
        generate(lm.model, prompt, 50, temperature=0.8, top_k=40, seed=seed)
        runs.append(time.perf_counter() - start)
    print(f"50 new tokens (recomputed each step): median {statistics.median(runs):.2f} s of 5 (target < 2 s)")


if __name__ == "__main__":
    main()
