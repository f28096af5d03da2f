"""Generation speed: xai_tf's cached greedy decoding against transformers' ``generate``, one run, CPU.

Same randomly initialised GPT-2-small-sized weights (124M parameters), a 16-token prompt, 100 new
tokens, greedy, float32; both keep a key/value cache. Prints tokens per second (median of several
runs, interleaved) and the ratio ours/theirs (> 1: ours is faster), plus ours without the cache.

    python benchmarks/bench_decoding.py [--runs 5] [--new-tokens 100]
"""

from __future__ import annotations

import argparse

import torch
import transformers

from xai_tf.models import GPT2
from xai_tf.transformer.decoding import greedy

from timing import median_seconds  # isort: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--new-tokens", type=int, default=100)
    args = p.parse_args()
    n = args.new_tokens

    torch.manual_seed(0)
    hf = transformers.GPT2LMHeadModel(transformers.GPT2Config()).eval()
    ours = GPT2.from_hf(hf)
    prompt = torch.randint(0, 50257, (1, 16))

    def theirs() -> list[int]:
        with torch.no_grad():
            out = hf.generate(
                prompt, max_new_tokens=n, min_new_tokens=n, do_sample=False, pad_token_id=0, use_cache=True
            )
        return out[0].tolist()

    def mine() -> list[int]:
        return greedy(ours, prompt, n, use_cache=True)

    assert mine() == theirs(), "the two greedy continuations differ"
    fns = {
        "ours": mine,
        "transformers": theirs,
        "ours, no cache": lambda: greedy(ours, prompt, n, use_cache=False),
    }
    t = median_seconds(fns, args.runs)
    print(
        f"greedy decoding, 16-token prompt + {n} new tokens, median of {args.runs} runs, "
        f"{torch.get_num_threads()} threads, transformers {transformers.__version__} "
        f"({hf.config._attn_implementation})"
    )
    for name, seconds in t.items():
        print(f"  {name:15s} {n / seconds:6.1f} tokens/s")
    print(f"  ratio ours/transformers (tokens per second): {t['transformers'] / t['ours']:.2f}")


if __name__ == "__main__":
    main()
