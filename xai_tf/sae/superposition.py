"""Superposition, the motivation of lesson 10: Elhage et al.'s toy model ("Toy Models of
Superposition", 2022), and how well a sparse autoencoder finds its features again.

n features x ∈ [0, 1]^n, each 0 with probability S (the sparsity) and else uniform; the model keeps
them in m < n dimensions and reads them back:

    h = W x,   x̂ = ReLU(Wᵀ h + b),   L = E Σ_i I_i (x_i − x̂_i)²,   W ∈ ℝ^{m×n}

with importances I_i = r^i. Feature i is represented when ‖W_{:,i}‖ > 0.5; the model is in
superposition when more than m features are. An SAE trained on h recovers feature i when some
decoder column points its way: max_j cos(W_{:,i}, W^dec_{:,j}) ≥ 0.9. ``analogy`` looks for the
linear structure the lecture points to in a model's token embeddings.
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks, seeds
from xai_tf._threads import one_thread
from xai_tf.models.loaded import LoadedModel, causal
from xai_tf.sae.model import SAEConfig, SparseAutoencoder
from xai_tf.sae.training import train_sae
from xai_tf.training import TrainOptions, fit, fixed_batch_size

MAX_FEATURES = 10_000  # the lesson's toy has n = 20 features; n² weights beyond this only cost memory
TOY = TrainOptions(steps=1500, lr=1e-2, batch_size=1024)  # train_toy's defaults
TOY_SAE = TrainOptions(steps=800, lr=3e-3, batch_size=1024, seed=1)  # train_toy_sae's defaults


def sparse_features(n: int, batch: int, S: float, generator: torch.Generator) -> Tensor:
    """``[batch, n]``: each entry 0 with probability S, else uniform on [0, 1]; refused before
    allocating when the two [batch, n] draws would not fit in memory."""
    n, batch = _checks.integer("n", n, 1), _checks.integer("batch", batch, 1)
    _checks.real("S", S, 0, 1, open_hi=True)
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    _checks.fits(f"sparse_features(n={n}, batch={batch})", 12 * n * batch, "choose a smaller batch or n")
    x = torch.rand(batch, n, generator=generator)
    return x * (torch.rand(batch, n, generator=generator) >= S)


def train_toy(n: int, m: int, S: float, r: float = 0.9, options: TrainOptions = TOY) -> tuple[Tensor, Tensor]:
    """``(W [m, n], b [n])`` of the toy model trained by Adam (``TOY`` by default: lr 1e-2) on a fresh
    batch of ``options.batch_size`` ``sparse_features`` each step (drawn, not sampled from a fixed
    set, so no minibatcher)."""
    n = _checks.integer("n", n, 2, MAX_FEATURES)
    _checks.integer("m", m, 1, n - 1)
    _checks.real("r", r, 0, 1, open_lo=True)
    _checks.real("S", S, 0, 1, open_hi=True)
    batch, seed = fixed_batch_size(options), options.seed
    g = seeds.generator(seed)
    W = torch.nn.Parameter(torch.randn(m, n, generator=g) * (2 / (m + n)) ** 0.5)
    b = torch.nn.Parameter(torch.zeros(n))
    importance = r ** torch.arange(n, dtype=torch.float32)

    def loss(_k: int) -> Tensor:
        x = sparse_features(n, batch, S, g)
        x_hat = torch.relu(x @ W.T @ W + b)
        return (importance * (x - x_hat) ** 2).sum(-1).mean()

    with one_thread():  # matrices this small only wait for a second thread
        fit([W, b], loss, options)
    return W.detach(), b.detach()


def train_toy_sae(
    W: Tensor, S: float, F: int, lam: float, options: TrainOptions = TOY_SAE
) -> SparseAutoencoder:
    """An SAE of width F trained (``TOY_SAE`` by default: lr 3e-3) on the toy model's hidden vectors
    h = W x, a fresh batch of ``options.batch_size`` sparse x each step."""
    W = _checks.real_tensor("W", W)
    if W.dim() != 2:
        raise ValueError(f"W must be the toy model's [m, n] matrix, got shape {tuple(W.shape)}")
    m, n = W.shape
    _checks.real("S", S, 0, 1, open_hi=True)
    batch = fixed_batch_size(options)
    config = SAEConfig(d=m, F=F, lam=lam)
    g = seeds.generator(options.seed)
    data = (sparse_features(n, batch, S, g) @ W.T for _ in iter(int, 1))
    with one_thread():
        return train_sae(data, config, options, progress=False)[0]


def represented_features(W: Tensor, threshold: float = 0.5) -> list[int]:
    """The features the toy model keeps: {i : ‖W_{:,i}‖ > threshold}, in increasing i."""
    W = _checks.real_tensor("W", W)
    if W.dim() != 2:
        raise ValueError(f"W must be the toy model's [m, n] matrix, got shape {tuple(W.shape)}")
    _checks.positive("threshold", threshold)
    return (W.norm(dim=0) > threshold).nonzero().flatten().tolist()


def represented(W: Tensor, threshold: float = 0.5) -> int:
    """How many features the toy model keeps: #{i : ‖W_{:,i}‖ > threshold}."""
    return len(represented_features(W, threshold))


def recovery(true_directions: Tensor, W_dec: Tensor) -> Tensor:
    """max_j cos(u_i, W^dec_{:,j}) for every true direction u_i (the columns of ``true_directions``).
    A zero decoder column (a feature that writes nothing) points nowhere: its cosine counts as 0."""
    true_directions = _checks.real_tensor("true_directions", true_directions)
    W_dec = _checks.real_tensor("W_dec", W_dec)
    if true_directions.dim() != 2 or W_dec.dim() != 2 or true_directions.size(0) != W_dec.size(0):
        shapes = f"true_directions {tuple(true_directions.shape)} and W_dec {tuple(W_dec.shape)}"
        raise ValueError(f"{shapes} need the same number of rows")
    norms = true_directions.norm(dim=0, keepdim=True)
    if (norms == 0).any():
        i = int((norms[0] == 0).nonzero()[0])
        raise ValueError(f"true_directions has a zero column ({i}): its direction is undefined")
    u = true_directions / norms
    v = W_dec / W_dec.norm(dim=0, keepdim=True).clamp_min(torch.finfo(W_dec.dtype).tiny)
    return (u.T @ v.to(u)).amax(1)


@torch.no_grad()
def analogy(lm: LoadedModel, a: str, b: str, c: str, d: str) -> tuple[int, list[str]]:
    """Linear structure in the embeddings W_e (Mikolov et al., 2013): a is to b as c is to ?. Ranks
    every token by cos(W_e[x], W_e[b] − W_e[a] + W_e[c]), leaving out a, b and c; returns the rank of
    ``d`` (1 = nearest) and the 5 nearest tokens. Each word must be one token."""
    lm = causal(lm, "the analogy test (it reads GPT-2's token embeddings W_E)")
    words = {"a": a, "b": b, "c": c, "d": d}
    ids = {}
    for name, word in words.items():
        if not isinstance(word, str):
            raise TypeError(f"{name} must be a string, got {word!r}")
        tokens = lm.tokenizer.encode(word)
        if len(tokens) != 1:
            raise ValueError(
                f"{name} = {word!r} is {len(tokens)} tokens for {lm.name}: pick a one-token word"
            )
        ids[name] = tokens[0]
    if ids["d"] in (ids["a"], ids["b"], ids["c"]):
        raise ValueError(
            f"d = {d!r} must differ from a, b and c: they are left out of the ranking, so d would rank last"
        )
    E = lm.model.embedding.double()
    target = E[ids["b"]] - E[ids["a"]] + E[ids["c"]]
    cos = torch.nn.functional.cosine_similarity(E, target[None], dim=-1)
    cos[[ids["a"], ids["b"], ids["c"]]] = -2.0
    order = cos.argsort(descending=True)
    rank = int((order == ids["d"]).nonzero()[0, 0]) + 1
    return rank, lm.token_strings(order[:5].tolist())
