"""What attribution methods promise, checked on the same prediction (lesson 20).

- **Completeness gap**: Σ_t score_t − (F(x) − F(x′)), with x′ the ``baseline`` option (for DeepLIFT-SHAP
  the mean over its own baselines, which its entry reports as ``delta``); relative to |F(x) − F(x′)|.
  Zero (up to numerics) for IG, Kernel SHAP and exact Shapley values; methods without the promise miss by
  what this measures.
- **Model-randomisation sanity check** (Adebayo et al., 2018, "cascading" randomisation): the blocks are
  re-initialised from the top down — after k steps the last k blocks hold random weights (each parameter
  tensor replaced by Gaussian noise of its own mean and standard deviation, drawn with ``seeds.generator``,
  so XAI_TF_SEED_OFFSET moves it), the embeddings and the unembedding kept — and each method's map is
  compared with the original one by Spearman's ρ of |scores|. A method that explains the *model* must
  change (ρ falls); one whose map stays (ρ near 1) explains something else — the input, as gradient ×
  input partly does.
- **Cost**: the sequences that went forward and backward through the network (counted at its first
  block, so they are comparable between methods: one IG node is one sequence forward and one backward)
  and the seconds.
Rank agreement between methods (Kendall's τ) is ``agreement.rank_agreement``.
"""

from __future__ import annotations

import math
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from scipy import stats
from torch import Tensor, nn
from tqdm.auto import tqdm

from xai_tf import _checks, seeds
from xai_tf.explain import setting
from xai_tf.explain.registry import ATTRIBUTIONS, Explanation
from xai_tf.models.loaded import LoadedModel


def _blocks(model: nn.Module | LoadedModel) -> nn.ModuleList:
    """The network's list of blocks: the first ``nn.ModuleList`` among its modules (by type, not name)."""
    module = setting.explained_module(model)
    for m in module.modules():  # type: ignore[attr-defined]
        if isinstance(m, nn.ModuleList) and len(m):
            return m
    raise ValueError("this model has no list of blocks to count passes at or to randomise")


@dataclass
class Cost:
    """Sequences through the network ``forward`` and ``backward``, and wall-clock ``seconds``."""

    forward: int
    backward: int
    seconds: float


@contextmanager
def counting(model: nn.Module | LoadedModel) -> Iterator[Cost]:
    """Within: ``cost.forward`` / ``cost.backward`` count the sequences through the first block."""
    cost = Cost(0, 0, 0.0)

    def count_backward(grad: Tensor) -> None:
        cost.backward += grad.size(0)

    def seen(_module: nn.Module, _inputs: Any, out: Any) -> None:
        h = out[0] if isinstance(out, tuple) else out
        cost.forward += h.size(0)
        if h.requires_grad:
            h.register_hook(count_backward)

    handle = _blocks(model)[0].register_forward_hook(seen)
    start = time.perf_counter()
    try:
        yield cost
    finally:
        cost.seconds = time.perf_counter() - start
        handle.remove()


def explain_with_cost(
    method: str, model: nn.Module | LoadedModel, input_ids: Sequence[int], target: int, **options: Any
) -> tuple[Explanation, Cost]:
    """``ATTRIBUTIONS.explain`` and what it cost."""
    with counting(model) as cost:
        found = ATTRIBUTIONS.explain(method, model, input_ids, target, **options)
    return found, cost


def output_difference(
    model: nn.Module | LoadedModel, input_ids: Sequence[int], target: int, baseline: Any = "token0"
) -> float:
    """F(x) − F(x′): the logit of ``target`` after the prompt minus after the ``baseline`` x′ (see
    ``attribution.baseline_ids``)."""
    module, ids, F = setting.explained(model, input_ids, target, -1, "logit")
    E, E_base = setting.embeddings(module, ids, baseline)
    with torch.no_grad():
        f_x, f_b = (float(v) for v in F(torch.stack([E, E_base])))
    return f_x - f_b


def completeness_gap(
    model: nn.Module | LoadedModel,
    input_ids: Sequence[int],
    target: int,
    scores: Tensor,
    baseline: Any = "token0",
    difference: float | None = None,
) -> tuple[float, float]:
    """``(gap, relative gap)``: Σ scores − (F(x) − F(x′)) and its share of |F(x) − F(x′)|, for the logit
    of ``target`` after the prompt and the ``baseline`` x′; ``difference`` is F(x) − F(x′) where the
    caller has it already (``output_difference``: a panel redrawing one prompt), else computed."""
    ids = setting.explained(model, input_ids, target, -1, "logit")[1]
    scores = _checks.real_tensor("scores", scores)
    if scores.shape != ids.shape:
        raise ValueError(
            f"scores must have one entry per token ({len(ids)}), got shape {tuple(scores.shape)}"
        )
    if difference is None:
        difference = output_difference(model, input_ids, target, baseline)
    gap = float(scores.double().sum()) - _checks.real("difference", difference, -math.inf, math.inf)
    return gap, abs(gap) / max(abs(difference), 1e-12)


@contextmanager
def cascading_randomisation(model: nn.Module | LoadedModel, seed: int = 0) -> Iterator[Iterator[int]]:
    """Within: an iterator whose step k = 1..L randomises block L − k on top of those before it, so after
    step k the last k blocks hold Gaussian weights of each tensor's own mean and std (one generator,
    ``seeds.generator(seed)``, drawn from the top block down: block L − k gets the same weights at every
    later step). Every block is saved once, to a temporary file per tensor (GPT-2 small's blocks are
    340 MB, too much to copy in memory on Binder), and restored after."""
    blocks = list(_blocks(model))
    g = seeds.generator(seed)
    saved: list[tuple[Tensor, Path]] = []
    with tempfile.TemporaryDirectory() as folder:

        def steps() -> Iterator[int]:
            for k, block in enumerate(reversed(blocks), 1):
                with torch.no_grad():
                    for p in block.parameters():
                        saved.append((p, Path(folder) / f"{len(saved)}.pt"))
                        torch.save(p.detach().cpu(), saved[-1][1])
                        noise = torch.randn(p.shape, generator=g, dtype=torch.float64, device="cpu").to(p)
                        p.copy_(p.mean() + (p.std() if p.numel() > 1 else 0.0) * noise)
                yield k

        try:
            yield steps()
        finally:
            with torch.no_grad():
                for p, path in saved:
                    p.copy_(torch.load(path, weights_only=True))


@contextmanager
def randomised_top_blocks(model: nn.Module | LoadedModel, k: int, seed: int = 0) -> Iterator[None]:
    """Within: the last ``k`` blocks randomised (the first k steps of ``cascading_randomisation``)."""
    k = _checks.integer("k (blocks randomised)", k, 0, len(_blocks(model)))
    with cascading_randomisation(model, seed) as steps:
        for _ in range(k):
            next(steps)
        yield


def randomisation_check(
    model: nn.Module | LoadedModel,
    input_ids: Sequence[int],
    target: int,
    methods: Sequence[str],
    seed: int = 0,
    progress: bool = False,
    **options: Any,
) -> dict[str, np.ndarray]:
    """Per method, Spearman's ρ between |scores| of the original model and of the model with its top
    k = 1..L blocks randomised (``cascading_randomisation``), ``[L]``. ``progress`` shows a bar over
    the L steps (every method at each)."""
    names = ATTRIBUTIONS.check(methods)
    _checks.flag("progress", progress)
    original = {m: ATTRIBUTIONS.explain(m, model, input_ids, target, **options).scores.abs() for m in names}
    L = len(_blocks(model))
    rho = {m: np.zeros(L) for m in names}
    with cascading_randomisation(model, seed) as steps:
        for k in tqdm(steps, total=L, desc="blocks randomised", disable=not progress, leave=False):
            for m in names:
                s = ATTRIBUTIONS.explain(m, model, input_ids, target, **options).scores.abs()
                rho[m][k - 1] = stats.spearmanr(original[m].cpu().numpy(), s.cpu().numpy()).statistic
    return rho
