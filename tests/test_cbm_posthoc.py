"""Lesson 12's post-hoc concept bottleneck (``xai_tf.cbm.posthoc``) against scikit-learn and hand cases:
the concept probes are L2-regularised logistic / ridge regressions, the head an elastic net, each the
same minimiser as scikit-learn's solver once the objectives are put in one form."""

import numpy as np
import pytest
import torch
from sklearn.linear_model import ElasticNet, LogisticRegression, Ridge

from xai_tf.cbm import arthritis, leakage, metrics, posthoc, training


def _data(n=300, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 3, size=d) + rng.normal(size=d)
    z = X @ rng.normal(size=d) * 0.5 + rng.normal(size=n)
    return X, z, (z > 0).astype(float)


@pytest.mark.numerics
@pytest.mark.parametrize("mu", [1e-3, 0.1])
def test_a_binary_probe_is_sklearns_l2_logistic_regression(mu):
    """(1/n) Σ log-loss + (μ/2)‖w‖² = (1/(nC)) (C Σ log-loss + ½‖w‖²) with C = 1/(nμ)."""
    X, _, t = _data()
    w, beta = posthoc.linear_probe(torch.tensor(X), torch.tensor(t), "binary", mu)
    ref = LogisticRegression(C=1 / (len(X) * mu), tol=1e-12, max_iter=100_000).fit(X, t)
    np.testing.assert_allclose(w.numpy(), ref.coef_[0], atol=1e-6, rtol=1e-6)
    assert beta == pytest.approx(ref.intercept_[0], abs=1e-6)


@pytest.mark.numerics
def test_a_real_probe_is_sklearns_ridge():
    """(1/n) Σ (wᵀx + β − t)² + (μ/2)‖w‖² = (1/n) (‖Xw + β − t‖² + (nμ/2)‖w‖²): Ridge's α = nμ/2."""
    X, z, _ = _data(seed=1)
    mu = 0.05
    w, beta = posthoc.linear_probe(torch.tensor(X), torch.tensor(z), "regression", mu)
    ref = Ridge(alpha=len(X) * mu / 2).fit(X, z)
    np.testing.assert_allclose(w.numpy(), ref.coef_, atol=1e-9)
    assert beta == pytest.approx(ref.intercept_, abs=1e-9)


@pytest.mark.numerics
def test_probe_hand_case_and_offset():
    """x = (−1, 1), t = (0, 2): β = 1 and w = 2/(2 + μ) (μ = 2: w = ½); an offset o shifts the
    regression target (t − o), and a binary probe with an offset zeroes its objective's gradient."""
    w, beta = posthoc.linear_probe(torch.tensor([[-1.0], [1.0]]), torch.tensor([0.0, 2.0]), "regression", 2.0)
    assert float(w[0]) == pytest.approx(0.5, abs=1e-12) and beta == pytest.approx(1.0, abs=1e-12)
    X, z, t = _data(seed=2)
    o = np.sin(np.arange(len(X)))
    w, beta = posthoc.linear_probe(torch.tensor(X), torch.tensor(z), "regression", 0.05, torch.tensor(o))
    ref = Ridge(alpha=len(X) * 0.05 / 2).fit(X, z - o)
    np.testing.assert_allclose(w.numpy(), ref.coef_, atol=1e-9)
    w, beta = posthoc.linear_probe(torch.tensor(X), torch.tensor(t), "binary", 0.01, torch.tensor(o))
    theta = torch.cat([w, torch.tensor([beta], dtype=torch.float64)]).requires_grad_(True)
    logits = torch.tensor(X) @ theta[:-1] + theta[-1] + torch.tensor(o)
    loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, torch.tensor(t))
    (grad,) = torch.autograd.grad(loss + 0.005 * theta[:-1].square().sum(), theta)
    assert grad.abs().max() < 1e-9


@pytest.mark.numerics
@pytest.mark.parametrize(("lam", "alpha"), [(0.05, 0.99), (0.5, 0.5), (2.0, 0.99)])
def test_the_regression_head_is_sklearns_elastic_net(lam, alpha):
    """Half of (1/n) Σ r² + (λ/N_c)(α‖v‖₁ + (1 − α)‖v‖²) is ElasticNet's objective with
    a = (λ/N_c)(1 − α/2) and l1_ratio ρ = α/(2 − α); λ = 2 zeroes some weights (same ones)."""
    X, z, _ = _data(d=6, seed=3)
    k = X.shape[1]
    v, v0 = posthoc.elastic_net(torch.tensor(X), torch.tensor(z), "regression", lam, alpha)
    ref = ElasticNet(alpha=lam / k * (1 - alpha / 2), l1_ratio=alpha / (2 - alpha), tol=1e-14, max_iter=10**6)
    ref.fit(X, z)
    np.testing.assert_allclose(v.numpy(), ref.coef_, atol=1e-7)
    assert v0 == pytest.approx(ref.intercept_, abs=1e-7)
    assert np.array_equal(v.numpy() == 0, ref.coef_ == 0)
    if lam == 2.0:
        assert 0 < (v == 0).sum() < k


@pytest.mark.numerics
@pytest.mark.parametrize(("lam", "alpha"), [(0.05, 0.99), (0.3, 0.99)])
def test_the_binary_head_is_sklearns_elastic_net_logistic_regression(lam, alpha):
    """(1/n) Σ log-loss + (λ/N_c)(α‖v‖₁ + (1 − α)‖v‖²) is LogisticRegression's objective / (nC) with
    l1_ratio ρ = α/(2 − α) and C = N_c / (nλ(2 − α)); saga stops near, not at, the minimiser. λ = 0.3
    zeroes two of the four weights (the same two)."""
    X, _, t = _data(d=4, seed=4)
    X = (X - X.mean(0)) / X.std(0)  # saga's step needs scaled columns to converge in reasonable time
    n, k = X.shape
    v, v0 = posthoc.elastic_net(torch.tensor(X), torch.tensor(t), "binary", lam, alpha)
    ref = LogisticRegression(
        l1_ratio=alpha / (2 - alpha), C=k / (n * lam * (2 - alpha)), solver="saga", tol=1e-12, max_iter=10**6
    ).fit(X, t)
    np.testing.assert_allclose(v.numpy(), ref.coef_[0], atol=1e-5)
    assert v0 == pytest.approx(ref.intercept_[0], abs=1e-5)
    assert np.array_equal(v.numpy() == 0, ref.coef_[0] == 0) and (lam < 0.1 or (v == 0).sum() == 2)


def test_elastic_net_hand_case():
    """One centred unit-variance column: v = sign(s) max(|s| − λα/2, 0) / (1 + λ(1 − α)), s = mean(x y),
    v₀ = ȳ. x = (−1, 1), y = (0, 2): s = 1; λ = 1, α = ½ gives v = 0.75/1.5 = ½; λ = 4, α = 1 gives 0.
    A binary head whose ℓ₁ term zeroes every weight has v₀ = log(p/(1 − p)), p the share of y = 1."""
    x, y = torch.tensor([[-1.0], [1.0]]), torch.tensor([0.0, 2.0])
    v, v0 = posthoc.elastic_net(x, y, "regression", 1.0, 0.5)
    assert float(v[0]) == pytest.approx(0.5, abs=1e-9) and v0 == pytest.approx(1.0, abs=1e-9)
    v, v0 = posthoc.elastic_net(x, y, "regression", 4.0, 1.0)
    assert float(v[0]) == 0.0 and v0 == pytest.approx(1.0, abs=1e-12)
    X, _, t = _data(d=4, seed=4)
    v, v0 = posthoc.elastic_net(torch.tensor(X), torch.tensor(t), "binary", 50.0, 0.99)
    assert (v == 0).all() and v0 == pytest.approx(np.log(t.mean() / (1 - t.mean())), abs=1e-8)


@pytest.fixture(scope="module")
def tabular():
    train, test = arthritis.arthritis(300, seed=0), arthritis.arthritis(200, seed=1)
    return train, test, training.train("standard", train, options=training.OPTIONS.replace(steps=30))


@pytest.mark.numerics
def test_the_pcbm_is_probes_then_head_on_the_frozen_features(tabular):
    """Each bank row is the probe of its concept on φ(x); the model is head(bank(φ(x))); the standard
    model's weights do not move; PCBM-h's residual is Ridge on y − PCBM(x)."""
    train, test, standard = tabular
    before = [p.clone() for p in standard.parameters()]
    pcbm = posthoc.posthoc_cbm(standard, train, lam=0.05)
    assert all(torch.equal(a, b) for a, b in zip(before, standard.parameters(), strict=True))
    phi = posthoc.features(standard, train.x)
    assert phi.shape == (300, 32)
    for j in (0, 7):
        w, beta = posthoc.linear_probe(phi, train.c[:, j], "binary" if train.binary[j] else "regression")
        torch.testing.assert_close(pcbm.h[-1].weight[j], w.float(), atol=1e-5, rtol=1e-4)
        assert float(pcbm.h[-1].bias[j]) == pytest.approx(beta, abs=1e-5)
    with torch.no_grad():
        b = pcbm.bottleneck(test.x)
        torch.testing.assert_close(b, pcbm.h[-1](posthoc.features(standard, test.x)))
        torch.testing.assert_close(pcbm(test.x), pcbm.g(b).squeeze(-1))
        v, v0 = posthoc.elastic_net(pcbm.bottleneck(train.x), train.y, "regression", 0.05)
        torch.testing.assert_close(pcbm.g.weight[0], v.float(), atol=1e-5, rtol=1e-4)
        hyb = posthoc.hybrid(pcbm, train, mu=0.02)
        ref = Ridge(alpha=300 * 0.02 / 2).fit(
            phi.double().numpy(), (train.y - pcbm(train.x)).double().numpy()
        )
        np.testing.assert_allclose(hyb.residual.weight[0].numpy(), ref.coef_, atol=1e-5)
        assert hyb(test.x).shape == (200,)
    assert 0 <= metrics.evaluate(pcbm, test)["binary concept error"] <= 1
    assert set(leakage.leakage(pcbm, train, test, leakage.OPTIONS.replace(steps=5))) == {
        "soft",
        "scrambled",
        "leakage",
    }
