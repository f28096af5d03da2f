"""Integrated gradients: xai_tf against Captum's LayerIntegratedGradients, one run, CPU, float32.

50 right-Riemann steps on a 32-token prompt, target = the most likely next token's logit, token-0
baseline, each with its default batching (ours: the path points that fit ``IG_MEMORY`` at a time;
Captum: all 50 at once). Models: the bundled model, a randomly initialised GPT-2-small-sized one
(124M), and a random Llama of the bundled Llama's shape (6 layers, d = 256, 4 query over 2 key/value
heads, SwiGLU 768 wide, tied 4,096-token vocabulary). Prints median times (interleaved runs after a
warm-up, ``xai_tf.timing``), the ratio ours/Captum (< 1: ours is faster), and the peak resident memory
of one attribution above the loaded model, each measured in a fresh process (Linux VmHWM), with its
ratio. It also counts each attribution's floating-point operations in its matrix products
(``torch.utils.flop_counter``'s formulas; about two thirds of ours' CPU time on the bundled model, the
rest elementwise work that both sides do alike per position): both run the same kernels, so the time
ratio stays near the FLOP ratio unless ours computes less — and ours already skips the T × D logits
Captum's forward computes (and their backward) and the last block's work at the positions other than
the explained one.

    python benchmarks/bench_attribution.py [--runs 5] [--threads 1,2]

Each thread count is measured in the same run (default 1 and 2), so their ratios share the machine's load.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable

import torch
import transformers
from captum.attr import LayerIntegratedGradients
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import flop_registry

import xai_tf
from xai_tf.explain.attribution import integrated_gradients
from xai_tf.models import GPT2
from xai_tf.models.llama import Llama, LlamaConfig

from timing import median_seconds, peak_mb, reset_peak, rss_mb  # isort: skip


MODELS = ("bundled", "gpt2-small-size", "llama-bundled-size")


def _model(name: str) -> GPT2 | Llama:
    if name == "bundled":
        return xai_tf.load_model("shakespeare").model
    torch.manual_seed(0)
    if name == "llama-bundled-size":
        shape = dict(vocab_size=4096, n_ctx=256, n_embd=256, n_layer=6, n_head=4, n_kv_head=2, d_mlp=768)
        llama = Llama(LlamaConfig(**shape, tie_word_embeddings=True)).eval()
        for p in llama.parameters():
            torch.nn.init.normal_(p, std=0.05)
        return llama
    return GPT2.from_hf(transformers.GPT2LMHeadModel(transformers.GPT2Config()))


def _attributions(model: GPT2 | Llama) -> dict:
    """The two attribution functions on the same prompt and target."""
    ids = torch.randint(0, model.config.vocab_size, (32,), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        target = int(model(ids)[0, -1].argmax())
    embedding = model.wte if isinstance(model, GPT2) else model.embed_tokens
    lig = LayerIntegratedGradients(lambda b: model(b)[:, -1, target], embedding)
    return {
        "ours": lambda: (
            integrated_gradients(model, ids, target, n_steps=50, method="riemann_right").attributions
        ),
        "captum": lambda: lig.attribute(
            ids[None], torch.zeros_like(ids)[None], n_steps=50, method="riemann_right"
        )[0],
    }


def child(model_name: str, which: str) -> dict:
    """In a fresh process: load the model, then one attribution; its peak memory above the model."""
    fn = _attributions(_model(model_name))[which]
    reset_peak()
    loaded = rss_mb()
    fn()
    return {"peak_mb": peak_mb() - loaded}


class _Flops(TorchDispatchMode):
    """Sums the FLOP of every operator torch's flop counter knows (its formulas, ``flop_registry``),
    without ``FlopCounterMode``'s module tracking, whose backward hooks break Captum's gradient call
    on the Llama."""

    total = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        out = func(*args, **(kwargs or {}))
        if func._overloadpacket in flop_registry:
            self.total += flop_registry[func._overloadpacket](*args, **(kwargs or {}), out_val=out)
        return out


def flops(fn: Callable[[], object]) -> int:
    """The floating-point operations of ``fn``'s matrix products (forward and backward)."""
    with _Flops() as counter:
        fn()
    return counter.total


def compare(model_name: str, runs: int) -> None:
    fns = _attributions(_model(model_name))
    flop = {which: flops(fn) for which, fn in fns.items()}
    assert (fns["ours"]() - fns["captum"]()).abs().max() <= 1e-4 * fns["captum"]().abs().max()
    t = median_seconds(fns, runs)
    peaks = {}
    for which in fns:
        out = subprocess.run(
            [
                sys.executable,
                __file__,
                "--child",
                model_name,
                which,
                "--threads",
                str(torch.get_num_threads()),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        peaks[which] = json.loads(out.stdout.splitlines()[-1])["peak_mb"]
    print(
        f"{model_name}: ours {t['ours'] * 1e3:.0f} ms, Captum {t['captum'] * 1e3:.0f} ms, "
        f"ratio ours/Captum {t['ours'] / t['captum']:.2f}; peak memory above the model: "
        f"ours {peaks['ours']:.0f} MB, Captum {peaks['captum']:.0f} MB, "
        f"ratio {peaks['ours'] / peaks['captum']:.2f}; matrix-product GFLOP: ours {flop['ours'] / 1e9:.1f}, "
        f"Captum {flop['captum'] / 1e9:.1f}, ratio {flop['ours'] / flop['captum']:.2f}"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--threads", default="1,2", help="comma-separated torch thread counts (default 1,2)")
    p.add_argument("--child", nargs=2, metavar=("MODEL", "WHICH"), help=argparse.SUPPRESS)
    args = p.parse_args()
    for threads in (int(n) for n in args.threads.split(",")):
        torch.set_num_threads(threads)
        if args.child:
            print(json.dumps(child(*args.child)))
            return
        print(f"IG, 50 steps, 32 tokens, median of {args.runs} runs, {threads} threads")
        for model_name in MODELS:
            compare(model_name, args.runs)


if __name__ == "__main__":
    main()
