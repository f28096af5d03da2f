"""Duchi et al.'s pivot threshold against a root finder on Σ_j [z_j − η]_+ = 1 (scipy, float64) and against
the sort-based threshold the lessons use."""

import numpy as np
import pytest
import torch
from scipy.optimize import brentq

from xai_tf.attention import sparsemax_threshold
from xai_tf.attention.pivot import sparsemax_threshold_pivot


def _root(z: torch.Tensor) -> float:
    x = z.double().numpy()
    return brentq(lambda eta: np.maximum(x - eta, 0).sum() - 1, x.max() - 1, x.max(), xtol=1e-15, rtol=1e-15)


@pytest.mark.parametrize("n", [1, 2, 7, 100, 10_000])
@pytest.mark.parametrize("scale", [0.01, 1.0, 30.0])
def test_the_pivot_threshold_solves_the_simplex_equation(n, scale):
    z = torch.randn(n, generator=torch.Generator().manual_seed(n), dtype=torch.float64) * scale
    eta = sparsemax_threshold_pivot(z)
    assert eta == pytest.approx(_root(z), abs=1e-9 * max(1.0, scale))
    assert eta == pytest.approx(sparsemax_threshold(z).item(), abs=1e-9 * max(1.0, scale))


def test_ties_and_every_pivot_order_give_the_same_threshold():
    z = torch.tensor([0.5, 0.5, 0.5, 0.1, 0.1, -2.0, 0.5], dtype=torch.float64)  # η = 0.25, four 0.5s in
    for seed in range(20):
        assert sparsemax_threshold_pivot(z, np.random.default_rng(seed)) == pytest.approx(0.25, abs=1e-15)


@pytest.mark.parametrize(
    ("z", "error", "message"),
    [
        ([1.0, 2.0], TypeError, "z must be a torch.Tensor"),
        (torch.zeros(2, 3), ValueError, "z must be a non-empty 1-D tensor"),
        (torch.zeros(0), ValueError, "z must be a non-empty 1-D tensor"),
        (torch.tensor([1.0, float("-inf")]), ValueError, "z must be finite"),
    ],
)
def test_bad_scores_are_refused_by_name(z, error, message):
    with pytest.raises(error, match=message):
        sparsemax_threshold_pivot(z)
