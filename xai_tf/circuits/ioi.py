"""The indirect-object task on GPT-2 small (lesson 15; Wang et al. 2022, "Interpretability in the Wild").

A clean prompt names two people, the indirect object IO and the subject S, then repeats S:

    clean:     "When Mary and John went to the store, John gave a drink to"       answer " Mary" (IO)
    corrupted: "When Mary and John went to the store, Mary gave a drink to"       (the second S is IO)

The corruption swaps one name, so both prompts have the same length in tokens, and the logit
difference LD = z[IO] − z[S] flips sign. Patching each head's output z^{l,h} (all positions) from the
clean run into the corrupted one (denoising, ``patching.activation_patching`` with component "z")
and averaging the normalised LD over prompt pairs gives a [layers, heads] grid; the paper's
*name-mover heads* (``NAME_MOVERS``: 9.6, 9.9, 10.0) copy the IO name to the answer.

Names and places are GPT-2 single tokens (a leading space); ``ioi_pairs`` refuses a tokenizer that
splits one.
"""

from __future__ import annotations

import torch
from huggingface_hub import try_to_load_from_cache
from torch import Tensor, nn

from xai_tf import _checks, seeds
from xai_tf.circuits import limits, metrics, patching
from xai_tf.models.hub import GPT2_FILES, HUB_REPOS
from xai_tf.models.loaded import LoadedModel, causal

NAMES = (" Mary", " John", " Tom", " James", " Dan", " Sid", " Martin", " Amy", " Alice", " Paul")
TEMPLATES = (
    "When{IO} and{S} went to the store,{S2} gave a drink to",
    "When{IO} and{S} went to the park,{S2} gave a ball to",
    "After{IO} and{S} went to the office,{S2} handed a letter to",
    "Then,{IO} and{S} had a long argument, and afterwards{S2} said to",
)
#: The name-mover heads Wang et al. (2022) report for GPT-2 small, as (layer, head).
NAME_MOVERS = ((9, 6), (9, 9), (10, 0))


def gpt2_in_cache() -> bool:
    """Whether GPT-2 small's files are in the Hugging Face cache (``load_model("gpt2")`` then works
    offline); nothing is downloaded."""
    return all(isinstance(try_to_load_from_cache(HUB_REPOS["gpt2"], f), str) for f in GPT2_FILES)


def ioi_pairs(model: LoadedModel | nn.Module, n: int, seed: int = 0) -> list[tuple[Tensor, Tensor, int, int]]:
    """``n`` prompt pairs ``(clean [1, T], corrupted [1, T], IO id, S id)`` with two different
    names drawn from ``NAMES`` and a template from ``TEMPLATES`` (seeded)."""
    lm = causal(model, "the indirect-object task")
    n = _checks.integer("n", n, 1, 1000)
    if lm.tokenizer is None:
        raise ValueError(f"{lm.name} has no tokenizer: the indirect-object task types English prompts")
    rng = seeds.numpy_rng(seed)
    pairs = []
    for _ in range(n):
        template = TEMPLATES[rng.integers(len(TEMPLATES))]
        io, s = (NAMES[i] for i in rng.choice(len(NAMES), size=2, replace=False))
        ids = [lm.tokenizer.encode(n) for n in (io, s)]  # the name alone, no <s> of the Llama family
        if any(len(i) != 1 for i in ids):
            raise ValueError(f"{lm.name}'s tokenizer splits{io} or{s}: the task needs one-token names")
        clean, corrupted = (
            torch.tensor([lm.encode(template.format(IO=io, S=s, S2=second))], device=lm.device)
            for second in (s, io)
        )
        pairs.append((clean, corrupted, ids[0][0], ids[1][0]))
    return pairs


def ioi_head_grid(model: LoadedModel | nn.Module, n: int, seed: int = 0) -> Tensor:
    """``[layers, heads]``: the normalised IO − S logit difference of denoising each head's output,
    averaged over ``n`` prompt pairs of ``ioi_pairs``."""
    lm = causal(model, "the indirect-object task")
    pairs = ioi_pairs(lm, n, seed)
    T = max(clean.size(1) for clean, *_ in pairs)
    size, flop = limits.forward_cost(lm, lm.n_head, T)
    limits.within(f"{n} prompt pairs of head patching", size, n * lm.n_layer * flop, "use a smaller n")
    grids = [
        patching.activation_patching(
            lm, clean, corrupted, metrics.logit_difference_metric(lm, clean, corrupted, io, s), "z"
        )
        for clean, corrupted, io, s in pairs
    ]
    return torch.stack(grids).mean(0)


def top_heads(grid: Tensor, k: int = 3) -> list[tuple[int, int, float]]:
    """The ``k`` cells of a ``[layers, heads]`` grid with the largest values, as (layer, head, value)."""
    grid = _checks.real_tensor("grid", grid)
    if grid.dim() != 2:
        raise ValueError(f"grid must be [layers, heads], got shape {tuple(grid.shape)}")
    k = _checks.integer("k", k, 1, grid.numel())
    top = grid.flatten().topk(k)
    return [(*divmod(int(i), grid.size(1)), float(v)) for i, v in zip(top.indices, top.values, strict=True)]
