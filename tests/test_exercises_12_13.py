"""Lessons 12 and 13's exercises (issue 55): each checker names its typical mistakes (a wrong solution
per mistake, its message asserted), passes independent right answers (numpy, loops), and the library
functions added as their references agree with independent computations."""

import numpy as np
import pytest
import torch
from test_exercises import _rejects_with

from xai_tf.cbm import intervention, leakage, losses, metrics
from xai_tf.crate import denoise, ista, mssa, rate
from xai_tf.exercises import cbm, crate

# ---------------------------------------------------------------- lesson 12: the references


def test_bottleneck_percentiles_are_numpys():
    b = torch.randn(57, 6, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    want = np.percentile(b.numpy(), [5, 95], axis=0)  # numpy's default: linear interpolation
    np.testing.assert_allclose(intervention.bottleneck_percentiles(b).numpy(), want, rtol=1e-12, atol=1e-12)


def test_replace_concepts_follows_its_rule_entry_by_entry():
    g = torch.Generator().manual_seed(1)
    n, k = 9, 5
    binary = torch.tensor([True, False, True, True, False])
    b = torch.randn(n, k, generator=g)
    c = torch.where(binary, (torch.rand(n, k, generator=g) > 0.5).float(), torch.randn(n, k, generator=g))
    low, high = -torch.rand(k, generator=g) - 1, torch.rand(k, generator=g) + 1
    before = b.clone()
    got = intervention.replace_concepts(b, c, [0, 1, 3], binary, low, high)
    assert torch.equal(b, before)  # b left as it is
    for i in range(n):
        for j in range(k):
            if j not in (0, 1, 3):
                want = b[i, j]
            elif not binary[j]:
                want = c[i, j]
            else:
                want = high[j] if c[i, j] == 1 else low[j]
            assert got[i, j].item() == want.item(), (i, j)


# ---------------------------------------------------------------- lesson 12: the checkers


def _concept_loss_numpy(co, c, binary):
    co, c, binary = co.double().numpy(), c.double().numpy(), binary.numpy()
    p = 1 / (1 + np.exp(-co))
    bce = -(c * np.log(p) + (1 - c) * np.log(1 - p))
    return torch.tensor(np.where(binary, bce, (co - c) ** 2).sum(1).mean())


def _percentiles_loop(b):
    return torch.tensor(np.array([np.percentile(col, [5, 95]) for col in b.T.numpy()]).T)


def _scramble_loop(b, c, binary, seed):  # numpy's generator, one example at a time
    rng, out = np.random.default_rng(seed), b.clone()
    for j in range(b.shape[1]):
        groups = [np.flatnonzero(c[:, j].numpy() == v) for v in (0, 1)] if binary[j] else [np.arange(len(b))]
        for rows in groups:
            for i, src in zip(rows, rng.permutation(rows), strict=True):
                out[i, j] = b[src, j] if binary[j] else c[i, j] + b[src, j] - c[src, j]
    return out


def _concept_errors_numpy(co, c, binary):  # floats, as .item() would give
    co, c, binary = co.double().numpy(), c.double().numpy(), binary.numpy()
    wrong = ((co[:, binary] > 0) != (c[:, binary] > 0.5)).mean()
    return {
        "binary concept error": float(wrong),
        "real concept RMSE": float(np.sqrt(((co - c)[:, ~binary] ** 2).mean())),
    }


def _errors(share, rmse):
    return {"binary concept error": share, "real concept RMSE": rmse}


def test_lesson_12_checkers_pass_independent_right_answers(capsys):
    assert cbm.check_concept_loss(_concept_loss_numpy)
    assert cbm.check_concept_errors(_concept_errors_numpy)
    assert cbm.check_percentiles(_percentiles_loop)
    assert cbm.check_scramble(_scramble_loop)
    assert cbm.check_scramble(lambda b, c, binary, seed: leakage.scramble(b, c, binary, seed + 7))
    assert capsys.readouterr().out.count("✔") == 5


def _scramble_all_rows(b, c, binary, seed):  # a binary concept's outputs permuted among all examples
    g, out = torch.Generator().manual_seed(seed), b.clone()
    for j in range(b.shape[1]):
        perm = torch.randperm(len(b), generator=g)
        out[:, j] = b[perm, j] if binary[j] else c[:, j] + b[perm, j] - c[perm, j]
    return out


def _scramble_values(b, c, binary, seed):  # a real-valued concept's b_j permuted, not its residuals
    out = leakage.scramble(b, c, binary, seed)
    perm = torch.randperm(len(b), generator=torch.Generator().manual_seed(seed))
    out[:, ~binary] = b[perm][:, ~binary]
    return out


def _scramble_in_place(b, c, binary, seed):
    b[:] = leakage.scramble(b, c, binary, seed)
    return b


def _scramble_real_only(b, c, binary, seed):  # forgets the binary concepts
    out = leakage.scramble(b, c, binary, seed)
    out[:, binary] = b[:, binary]
    return out


def _sum_over_examples(co, c, binary):
    return len(c) * losses.concept_loss(co, c, binary)


def _sigmoid_first(co, c, binary):
    return losses.concept_loss(torch.where(binary, co.sigmoid(), co), c, binary)


@pytest.mark.parametrize(
    ("checker", "fn", "message"),
    [
        (
            cbm.check_concept_loss,
            lambda co, c, binary: losses.concept_loss(co, c, binary) / binary.numel(),
            "averaged over the concepts: L_c sums them",
        ),
        (cbm.check_concept_loss, _sum_over_examples, "average over the n examples, do not sum"),
        (
            cbm.check_concept_loss,
            lambda co, c, binary: losses.concept_loss(co, c, torch.zeros_like(binary)),
            "binary concept's ℓ_j is −log of the probability",
        ),
        (cbm.check_concept_loss, _sigmoid_first, "do not apply σ first"),
        (
            cbm.check_concept_loss,
            lambda co, c, binary: losses.concept_loss(co, c, torch.ones_like(binary)),
            "real-valued concept's ℓ_j is the squared error",
        ),
        (cbm.check_concept_loss, lambda co, c, binary: None, "returned None: did you forget"),
        (
            cbm.check_concept_errors,
            lambda co, c, b: _errors(((co[:, b] > 0.5).double() != c[:, b]).double().mean(), 0.0),
            r"predicted present where its logit is > 0 \(σ > ½\), not > 0.5",
        ),
        (
            cbm.check_concept_errors,
            lambda co, c, b: _errors(((co > 0).double() != c).double().mean(), 0.0),
            "counts the binary concepts only",
        ),
        (
            cbm.check_concept_errors,
            lambda co, c, b: _errors(
                metrics.concept_errors(co, c, b)["binary concept error"], (co - c)[:, ~b].square().mean()
            ),
            "take the square root",
        ),
        (
            cbm.check_concept_errors,
            lambda co, c, b: _errors(
                metrics.concept_errors(co, c, b)["binary concept error"], (co - c).square().mean().sqrt()
            ),
            "the RMSE runs over the real-valued concepts only",
        ),
        (cbm.check_concept_errors, lambda co, c, b: (0.1, 0.2), "return a dict with the keys"),
        (cbm.check_concept_errors, lambda co, c, b: None, "returned None: did you forget"),
        (
            cbm.check_percentiles,
            lambda b: torch.quantile(b, torch.tensor([0.05, 0.95], dtype=b.dtype), dim=1),
            "along dim=0",
        ),
        (cbm.check_percentiles, lambda b: torch.stack([b.amin(0), b.amax(0)]), "minimum and maximum"),
        (
            cbm.check_percentiles,
            lambda b: intervention.bottleneck_percentiles(b).flip(0),
            "the rows are swapped",
        ),
        (cbm.check_percentiles, lambda b: intervention.bottleneck_percentiles(b).T, r"got \[k, 2\]"),
        (
            cbm.check_percentiles,
            lambda b: torch.quantile(b, torch.tensor([5.0, 95.0], dtype=b.dtype), dim=0),
            "raised RuntimeError",  # percent instead of a level in [0, 1]: torch refuses
        ),
        (cbm.check_scramble, _scramble_all_rows, "permuted among all examples"),
        (cbm.check_scramble, _scramble_values, "b_j itself was permuted; permute the residuals"),
        (cbm.check_scramble, _scramble_in_place, "changed b in place"),
        (cbm.check_scramble, _scramble_real_only, r"concept 0 \(binary\) came back unchanged"),
        (cbm.check_scramble, lambda b, c, binary, seed: b.clone(), "came back equal to b"),
        (cbm.check_scramble, lambda b, c, binary, seed: None, "is None: did you forget to `return`"),
    ],
)
def test_lesson_12_checkers_name_the_mistake(checker, fn, message, capsys):
    _rejects_with(checker, fn, message, capsys)


# ---------------------------------------------------------------- lesson 13: the checkers


def _rate_numpy(Y, eps):  # ½ Σ log(1 + α λ_i) over the eigenvalues of YᵀY
    d, T = Y.shape
    lam = np.linalg.eigvalsh(Y.double().numpy().T @ Y.double().numpy())
    return torch.tensor(0.5 * np.log1p(d / (T * eps**2) * lam).sum())


def _compression_loop(Y, U, eps):
    return sum(_rate_numpy(U[k].T @ Y, eps) for k in range(U.shape[0]))


def _satt_loop(Y, U):  # output token t = Σ_s z_s p_st, one weight at a time
    K, _, r = U.shape
    T = Y.shape[1]
    out = torch.zeros(K, r, T, dtype=torch.float64)
    for k in range(K):
        Z = (U[k].T @ Y).double()
        for t in range(T):
            scores = torch.tensor([float(Z[:, s] @ Z[:, t]) for s in range(T)], dtype=torch.float64)
            p = torch.exp(scores - scores.max())
            out[k, :, t] = Z @ (p / p.sum())
    return out


def _posterior_numpy(x, U, sigma):  # Tweedie: x + σ² ∇ log q(x), the score of the Gaussian mixture
    x, U = x.double().numpy(), U.double().numpy()
    K, d, _ = U.shape
    covs = [U[k] @ U[k].T + sigma**2 * np.eye(d) for k in range(K)]
    out = np.zeros_like(x)
    for t in range(x.shape[1]):
        logp = np.array(
            [-0.5 * x[:, t] @ np.linalg.solve(C, x[:, t]) - 0.5 * np.linalg.slogdet(C)[1] for C in covs]
        )
        w = np.exp(logp - logp.max())
        w /= w.sum()
        score = -sum(w[k] * np.linalg.solve(covs[k], x[:, t]) for k in range(K))
        out[:, t] = x[:, t] + sigma**2 * score
    return torch.tensor(out)


def _grouped_numpy(Z, components, eps):  # a float, as .item() would give
    labels = components.numpy()
    return float(sum((labels == k).mean() * _rate_numpy(Z[:, labels == k], eps) for k in np.unique(labels)))


def _grouped_summed(Z, components, eps):
    return sum(rate.coding_rate(Z[:, components == k], eps) for k in components.unique())


def _grouped_all_alpha(Z, components, eps):  # α = d/(N ε²) in every group
    d, N = Z.shape
    total = 0.0
    for k in components.unique():
        Zk = Z[:, components == k]
        gram = torch.eye(Zk.shape[1], dtype=Z.dtype) + d / (N * eps**2) * Zk.T @ Zk
        total = total + Zk.shape[1] / N * 0.5 * torch.logdet(gram)
    return total


def test_lesson_13_checkers_pass_independent_right_answers(capsys):
    assert crate.check_grouped_rate(_grouped_numpy)
    assert crate.check_coding_rate(_rate_numpy)
    assert crate.check_compression_rate(_compression_loop)
    assert crate.check_satt(_satt_loop)
    assert crate.check_soft_threshold(lambda V, t: torch.tensor(np.maximum(V.numpy() - t, 0.0)))
    assert crate.check_ista_step(
        lambda Z, D, eta, lam: ista.prox_nonneg_l1(Z + eta * D.T @ (Z - D @ Z), eta * lam)
    )
    assert crate.check_posterior_mean(_posterior_numpy)
    assert capsys.readouterr().out.count("✔") == 7


def _rc_with_d(Y, U, eps):  # α = d/(Tε²) inside each term
    d, T = Y.shape
    Z = U.mT @ Y
    return 0.5 * torch.logdet(torch.eye(T, dtype=Y.dtype) + d / (T * eps**2) * Z.mT @ Z).sum()


def _satt_rows(Y, U):  # the other lessons' row-wise softmax
    Z = U.mT @ Y
    return Z @ torch.softmax(Z.mT @ Z, dim=-1)


def _notes_form(x, U, sigma):
    return denoise.notes_step(x, U, sigma)


def _tweedie_over_tokens(x, U, sigma):
    Z = U.mT @ x
    w = torch.softmax((Z**2).sum(-2) / (2 * sigma**2 * (1 + sigma**2)), dim=-1)
    return (U @ (Z * w.unsqueeze(-2))).sum(0) / (1 + sigma**2)


def _tweedie_unshrunk(x, U, sigma):
    return denoise.posterior_mean(x, U, sigma) * (1 + sigma**2)


@pytest.mark.parametrize(
    ("checker", "fn", "message"),
    [
        (crate.check_compression_rate, _rc_with_d, "α = r/\\(Tε²\\): U_kᵀY has r rows, not d"),
        (
            crate.check_compression_rate,
            lambda Y, U, eps: rate.compression_rate(Y, U, eps) / U.shape[0],
            "sum the K terms",
        ),
        (
            crate.check_compression_rate,
            lambda Y, U, eps: U.shape[0] * rate.coding_rate(Y, eps),
            "the rate of the projection U_kᵀY, not of Y itself",
        ),
        (crate.check_compression_rate, lambda Y, U, eps: None, "is None: did you forget"),
        (crate.check_grouped_rate, _grouped_summed, "the rates were summed"),
        (
            crate.check_grouped_rate,
            lambda Z, c, eps: _grouped_summed(Z, c, eps) / len(c.unique()),
            "not by 1/K",
        ),
        (
            crate.check_grouped_rate,
            lambda Z, c, eps: rate.coding_rate(Z, eps),
            "R\\(Z\\) of all tokens together",
        ),
        (crate.check_grouped_rate, _grouped_all_alpha, "its own α = d/\\(N_k ε²\\)"),
        (crate.check_grouped_rate, lambda Z, c, eps: None, "is None: did you forget"),
        (crate.check_satt, _satt_rows, "the softmax ran along the rows"),
        (crate.check_satt, lambda Y, U: (U.mT @ Y) @ (Y.T @ U @ U.mT @ Y), "goes through a softmax"),
        (crate.check_satt, lambda Y, U: mssa.satt(Y, U).mT, r"got \[K, T, r\]"),
        (crate.check_satt, lambda Y, U: None, "is None: did you forget"),
        (
            crate.check_soft_threshold,
            lambda V, t: V.sign() * (V.abs() - t).clamp(min=0),
            "two-sided soft threshold",
        ),
        (crate.check_soft_threshold, lambda V, t: torch.relu(V), "the threshold t is missing"),
        (crate.check_soft_threshold, lambda V, t: torch.relu(V) - t, "subtract t before the ReLU"),
        (crate.check_soft_threshold, lambda V, t: None, "is None: did you forget"),
        (crate.check_posterior_mean, _notes_form, "the notes' σ → 0 form"),
        (crate.check_posterior_mean, _tweedie_unshrunk, r"the factor 1/\(1 \+ σ²\) is missing"),
        (crate.check_posterior_mean, _tweedie_over_tokens, "not over the tokens"),
        (crate.check_posterior_mean, lambda x, U, sigma: None, "is None: did you forget"),
    ],
)
def test_lesson_13_checkers_name_the_mistake(checker, fn, message, capsys):
    _rejects_with(checker, fn, message, capsys)
