"""Do attribution methods agree? Rank agreement between methods over many prompts (lesson 06).

RevLLM lists among the limitations of attribution that "methods often disagree". This module measures
it: on each prompt every method gives every token a score (``method_scores``, through the registry
``ATTRIBUTIONS``), and for each pair of methods a rank correlation — Kendall's τ (τ-b, which allows
ties) or Spearman's ρ, both from scipy.stats — says how alike the two orders of the tokens are
(1: the same order, 0: unrelated, −1: reversed). ``rank_agreement`` gives the matrix per prompt, its
mean and its standard deviation over the prompts.

Signed and unsigned methods: G-L2 is ≥ 0 (how sensitive F is to a token), IG, gradient × input and
leave-one-out are signed (which way the token moves F). ``by="magnitude"`` (the default) ranks |score|,
so that all methods answer "how important is the token"; ``by="signed"`` ranks the scores as they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from scipy import stats
from torch import Tensor

from xai_tf.explain.registry import ATTRIBUTIONS
from xai_tf.models.loaded import LoadedModel

#: Prompts of the agreement study (lines of Shakespeare; the model predicts the next token).
PROMPTS = (
    "ROMEO.\nBut soft, what light through yonder window breaks?",
    "To be, or not to be, that is the",
    "Now is the winter of our discontent",
    "O Romeo, Romeo! wherefore art thou",
    "Friends, Romans, countrymen, lend me your",
    "All the world's a stage, and all the men and women merely",
    "If music be the food of love, play",
    "The quality of mercy is not",
    "Double, double toil and trouble; fire burn and",
    "Is this a dagger which I see before",
    "Shall I compare thee to a summer's",
    "KING.\nWhat news, my lord?",
    "HAMLET.\nAlas, poor Yorick! I knew him,",
    "Good night, good night! parting is such sweet",
    "Out, damned spot! out, I",
    "The course of true love never did run",
    "Cowards die many times before their",
    "We are such stuff as dreams are made",
    "Uneasy lies the head that wears a",
    "Lord, what fools these mortals",
    "There is nothing either good or bad, but thinking makes it",
    "FALSTAFF.\nThe better part of valour is",
    "Et tu, Brute? Then fall,",
    "A horse! a horse! my kingdom for a",
)
#: The methods the lesson compares (names of ``xai_tf.explain.registry.ATTRIBUTIONS``).
DEFAULT_METHODS = ("IG", "G-L2", "gradient × input", "leave-one-out")
STATISTICS = ("kendall", "spearman")
ORDERINGS = ("magnitude", "signed")


@dataclass
class Agreement:
    """Rank correlations between ``methods``: ``per_prompt`` [P, M, M] (1 on the diagonal), with its
    ``mean`` and ``std`` over the P prompts."""

    methods: tuple[str, ...]
    statistic: str
    by: str
    per_prompt: np.ndarray

    @property
    def mean(self) -> np.ndarray:
        return self.per_prompt.mean(0)

    @property
    def std(self) -> np.ndarray:
        return self.per_prompt.std(0)


def method_scores(
    lm: LoadedModel,
    input_ids: Sequence[int],
    target: int,
    methods: Sequence[str] = DEFAULT_METHODS,
    baseline: str | int = "token0",
    n_steps: int = 50,
    quadrature: str = "gausslegendre",
) -> dict[str, Tensor]:
    """The token scores ``[T]`` of each method (a name of ``ATTRIBUTIONS``) for the logit of
    ``target`` after the prompt; ``baseline``, ``n_steps`` and ``quadrature`` are IG's."""
    names = ATTRIBUTIONS.check(methods)
    if not isinstance(lm, LoadedModel):
        raise TypeError(f"lm must be a model from xai_tf.load_model, got {type(lm).__name__}")
    if isinstance(input_ids, str) or not isinstance(input_ids, list | tuple | Tensor):
        raise TypeError(f"input_ids must be a list of token ids, got {type(input_ids).__name__}")
    options = {"baseline": baseline, "n_steps": n_steps, "quadrature": quadrature}
    return {m: ATTRIBUTIONS.explain(m, lm, list(input_ids), target, **options).scores.cpu() for m in names}


def _correlation(a: np.ndarray, b: np.ndarray, statistic: str) -> float:
    return float((stats.kendalltau if statistic == "kendall" else stats.spearmanr)(a, b)[0])


def rank_agreement(
    scores: Sequence[Mapping[str, Tensor]], statistic: str = "kendall", by: str = "magnitude"
) -> Agreement:
    """For each prompt (a mapping method → token scores [T], the same methods for every prompt) the
    matrix of rank correlations between every two methods' token orders: Kendall's τ-b
    (``statistic="kendall"``) or Spearman's ρ (``"spearman"``), on |score| (``by="magnitude"``) or
    on the signed scores (``"signed"``)."""
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {STATISTICS}, got {statistic!r}")
    if by not in ORDERINGS:
        raise ValueError(f"by must be one of {ORDERINGS}, got {by!r}")
    if isinstance(scores, Mapping) or not isinstance(scores, Sequence) or len(scores) == 0:
        raise ValueError("scores must be a non-empty list with one mapping method → token scores per prompt")
    methods = tuple(scores[0]) if isinstance(scores[0], Mapping) else ()
    if len(methods) < 2:
        raise ValueError(f"scores must name at least 2 methods per prompt, got {methods}")
    matrices = np.ones((len(scores), len(methods), len(methods)))
    for p, prompt in enumerate(scores):
        if not isinstance(prompt, Mapping) or tuple(prompt) != methods:
            raise ValueError(f"scores[{p}] must map the same methods {methods} as scores[0]")
        try:
            columns = [torch.as_tensor(prompt[m]).detach().double().cpu().numpy() for m in methods]
        except (TypeError, ValueError, RuntimeError) as err:
            raise TypeError(
                f"scores[{p}] must map each method to its token scores, a tensor or array of numbers ({err})"
            ) from err
        if any(c.ndim != 1 or len(c) != len(columns[0]) or len(c) < 2 for c in columns):
            shapes = [c.shape for c in columns]
            raise ValueError(
                f"scores[{p}] must hold one score per token (≥ 2 tokens) for each method, got {shapes}"
            )
        for m, c in zip(methods, columns, strict=True):
            if not np.isfinite(c).all() or np.ptp(np.abs(c) if by == "magnitude" else c) == 0:
                raise ValueError(
                    f"scores[{p}][{m!r}] must be finite and not all equal: its rank order is undefined"
                )
        ranked = [np.abs(c) if by == "magnitude" else c for c in columns]
        for i in range(len(methods)):
            for j in range(i + 1, len(methods)):
                matrices[p, i, j] = matrices[p, j, i] = _correlation(ranked[i], ranked[j], statistic)
    return Agreement(methods, statistic, by, matrices)
