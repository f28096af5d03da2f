"""Lessons 12 and 13's later exercises (issue 55: one in every section that introduces a computation): the
arthritis grade (12 §2), the shapes' label rule (12 §6), the post-hoc head's elastic-net objective (12 §7) and
the dictionary gap ‖DᵀD − I‖₂ (13 §6). Each checker names its typical mistakes (a wrong solution per mistake,
its message asserted) and passes independent right answers (loops, numpy); the library functions added as
their references agree with independent computations (the data generator, scikit-learn, numpy)."""

import numpy as np
import pytest
import torch
from sklearn.linear_model import ElasticNet
from test_exercises import _rejects_with

from xai_tf.cbm import arthritis, formulas, posthoc, shapes
from xai_tf.cbm.losses import task_loss
from xai_tf.crate import critique, study
from xai_tf.crate.model import Classifier
from xai_tf.exercises import cbm_formulas, crate_critique

# ---------------------------------------------------------------- lesson 12 §2: the grade

MU = torch.tensor(arthritis.MEANS + (0.0,) * 6, dtype=torch.float64)
SIGMA = torch.tensor(arthritis.SCALES + (1.0,) * 6, dtype=torch.float64)
W = torch.tensor(arthritis.WEIGHTS, dtype=torch.float64)
T = torch.tensor(arthritis.THRESHOLDS, dtype=torch.float64)


@pytest.mark.parametrize("binary", [True, False])
def test_grade_gives_back_the_generators_grades(binary):
    """The generator draws y from float64 concepts and stores them in float32: patients whose score lies
    within 10⁻⁵ of a threshold may round either way and are left out (none of 3000 here)."""
    data = arthritis.arthritis(3000, seed=3, bypass=0.7, binary=binary)
    bypass_term = 0.7 * (data.x.double() @ arthritis.structure()[2])
    got = formulas.grade(data.c, data.binary, bypass_term)
    s = torch.where(data.binary, 2 * data.c.double() - 1, (data.c.double() - MU) / SIGMA) @ W + bypass_term
    clear = (s.unsqueeze(-1) - T).abs().amin(-1) > 1e-5
    assert clear.sum() >= 2990
    assert got.dtype == torch.float32 and torch.equal(got[clear], data.y[clear])
    assert len(set(got.tolist())) == 5  # every grade occurs


def test_grade_is_a_loop_over_patients_and_thresholds():
    g = torch.Generator().manual_seed(2)
    binary = torch.tensor([j % 3 == 0 for j in range(12)])  # any mask, not only the task's
    c = torch.where(
        binary, (torch.rand(20, 12, generator=g) > 0.5).double(), torch.randn(20, 12, generator=g).double()
    )
    bypass_term = torch.randn(20, generator=g, dtype=torch.float64)
    got = formulas.grade(c, binary, bypass_term)
    for i in range(20):
        s = float(bypass_term[i])
        for j in range(12):
            value = float(c[i, j])
            tilde = (
                2 * value - 1
                if binary[j]
                else (value - arthritis.MEANS[j]) / arthritis.SCALES[j]
                if j < 6
                else value
            )
            s += arthritis.WEIGHTS[j] * tilde
        assert got[i].item() == sum(s > t for t in arthritis.THRESHOLDS), i


def _grade_loop(c, binary, bypass_term):  # one patient at a time, a float32 table
    out = torch.zeros(len(c))
    for i in range(len(c)):
        s = float(bypass_term[i])
        for j in range(12):
            value = float(c[i, j])
            s += arthritis.WEIGHTS[j] * (
                2 * value - 1 if binary[j] else (value - float(MU[j])) / float(SIGMA[j])
            )
        out[i] = sum(s > t for t in arthritis.THRESHOLDS)
    return out


def _score(c, binary, bypass_term):
    return torch.where(binary, 2 * c - 1, (c - MU) / SIGMA) @ W + bypass_term


def _grade_from(s):
    return (s.unsqueeze(-1) > T).sum(-1)


# ---------------------------------------------------------------- lesson 12 §6: the label rule


def _rule_loop(c):
    names = shapes.NAMES
    return torch.tensor(
        [
            float(
                (row[names.index("circle")] == 1 and row[names.index("blue")] == 0)
                or (row[6] == 1 and row[8] == 1)
            )
            for row in c.tolist()
        ]
    )


# ---------------------------------------------------------------- lesson 12 §7: the head objective


def _objective_numpy(v, v0, b, y, lam, alpha, task):
    v, b, y = v.double().numpy(), b.double().numpy(), y.double().numpy()
    z = b @ v + v0
    if task == "regression":
        loss = np.mean((z - y) ** 2)
    else:
        p = 1 / (1 + np.exp(-z))
        loss = np.mean(-(y * np.log(p) + (1 - y) * np.log(1 - p)))
    return torch.tensor(loss + lam / len(v) * (alpha * np.abs(v).sum() + (1 - alpha) * (v**2).sum()))


@pytest.mark.parametrize("task", ["regression", "binary"])
def test_elastic_net_objective_is_numpys(task):
    g = torch.Generator().manual_seed(4)
    b, v = (
        torch.randn(30, 5, generator=g, dtype=torch.float64),
        torch.randn(5, generator=g, dtype=torch.float64),
    )
    y = (
        (torch.rand(30, generator=g) > 0.5).double()
        if task == "binary"
        else torch.randn(30, generator=g).double()
    )
    got = formulas.elastic_net_objective(v, torch.tensor([0.4], dtype=torch.float64), b, y, 0.3, 0.8, task)
    assert got.shape == () and got.item() == pytest.approx(
        _objective_numpy(v, 0.4, b, y, 0.3, 0.8, task).item(), rel=1e-12
    )


def test_scikit_learns_elastic_net_minimises_the_objective():
    """scikit-learn's ElasticNet minimises 1/(2n)‖y − Xw − w₀‖² + a r‖w‖₁ + a(1 − r)/2 ‖w‖²: half of J when
    a r = λα/(2N_c) and a(1 − r) = λ(1 − α)/N_c. Its solution must be J's minimum (no step of 10⁻³ along any
    weight lowers J) and agree with ``posthoc.elastic_net``'s, which is fitted to J; both fail if J's penalty
    is weighted otherwise (λ not divided by N_c, α on the other term, the bias penalised)."""
    g = torch.Generator().manual_seed(5)
    n, k, lam, alpha = 200, 6, 0.6, 0.7
    b = torch.randn(n, k, generator=g, dtype=torch.float64) * torch.tensor([1.0, 2.0, 0.5, 1.0, 3.0, 1.0]) + 1
    y = b @ torch.tensor([0.8, -0.3, 0.0, 0.05, 0.4, 0.0], dtype=torch.float64) + 0.5
    y = y + 0.3 * torch.randn(n, generator=g, dtype=torch.float64)
    l1, l2 = lam * alpha / (2 * k), lam * (1 - alpha) / k
    fit = ElasticNet(alpha=l1 + l2, l1_ratio=l1 / (l1 + l2), tol=1e-14, max_iter=100_000).fit(
        b.numpy(), y.numpy()
    )
    v, v0 = torch.from_numpy(fit.coef_), float(fit.intercept_)
    J = formulas.elastic_net_objective(v, v0, b, y, lam, alpha, "regression").item()
    sklearn_objective = (
        ((y.numpy() - b.numpy() @ fit.coef_ - v0) ** 2).mean() / 2
        + (l1 + l2) * (l1 / (l1 + l2)) * np.abs(fit.coef_).sum()
        + (l1 + l2) * (1 - l1 / (l1 + l2)) / 2 * (fit.coef_**2).sum()
    )
    assert J == pytest.approx(2 * sklearn_objective, rel=1e-12)
    assert (fit.coef_ == 0).any()  # the ℓ₁ term is active: the minimum sits on a kink
    for j in range(k + 1):
        for step in (1e-3, -1e-3):
            w, w0 = v.clone(), v0 + (step if j == k else 0.0)
            if j < k:
                w[j] += step
            assert formulas.elastic_net_objective(w, w0, b, y, lam, alpha, "regression").item() > J
    ours, ours0 = posthoc.elastic_net(b, y, "regression", lam, alpha)
    np.testing.assert_allclose(ours.numpy(), fit.coef_, atol=1e-6)
    assert ours0 == pytest.approx(v0, abs=1e-6)


def test_posthoc_elastic_net_minimises_the_objective_for_a_binary_task():
    g = torch.Generator().manual_seed(6)
    b = torch.randn(150, 4, generator=g, dtype=torch.float64)
    y = (
        (b @ torch.tensor([1.5, -1.0, 0.0, 0.2], dtype=torch.float64) + 0.3) > torch.randn(150, generator=g)
    ).double()
    v, v0 = posthoc.elastic_net(b, y, "binary", 0.2, 0.9)
    J = formulas.elastic_net_objective(v, v0, b, y, 0.2, 0.9, "binary").item()
    for j in range(5):
        for step in (1e-3, -1e-3):
            w, w0 = v.clone(), v0 + (step if j == 4 else 0.0)
            if j < 4:
                w[j] += step
            assert formulas.elastic_net_objective(w, w0, b, y, 0.2, 0.9, "binary").item() > J


# ---------------------------------------------------------------- lesson 13 §6: the dictionary gap


def test_dictionary_gap_is_numpys_spectral_norm_and_max_of_singular_values():
    for seed, shape in enumerate([(5, 5), (8, 3), (3, 7)]):
        D = torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
        want = np.linalg.norm(D.numpy().T @ D.numpy() - np.eye(shape[1]), ord=2)
        got = critique.dictionary_gap(D)
        assert got.shape == () and got.item() == pytest.approx(want, rel=1e-10)
        s = np.linalg.svd(D.numpy(), compute_uv=False)
        by_singular_values = max(
            abs(s**2 - 1).max(), 1.0 if shape[1] > shape[0] else 0.0
        )  # DᵀD has m − d zeros
        assert got.item() == pytest.approx(by_singular_values, rel=1e-10)


def test_dictionary_gap_agrees_with_the_models_gaps():
    torch.manual_seed(0)
    m = Classifier("crate", 8, 2, 2, 2, 2)
    with torch.no_grad():
        m.blocks[1].D.mul_(1.5)
        gaps = [critique.dictionary_gap(m.block(i).D).item() for i in range(len(m.blocks))]
    assert gaps == pytest.approx(study.dictionary_gaps(m), rel=1e-5, abs=1e-6)
    assert gaps[1] == pytest.approx(1.25, rel=1e-5)  # DᵀD = 2.25 I


def _gap_loop(D):  # power iteration on (DᵀD − I)², float32 table
    M = (D.T @ D - torch.eye(len(D), dtype=D.dtype)).float()
    x = torch.ones(len(M))
    for _ in range(2000):
        x = M @ (M @ x)
        x = x / x.norm().clamp(min=1e-30)
    return (M @ x).norm()


# ---------------------------------------------------------------- the checkers


def _grade_mistake(kind):
    def fn(c, binary, bypass_term):
        if kind == "score":
            return _score(c, binary, bypass_term)
        if kind == "zero-one":
            return _grade_from(torch.where(binary, c, (c - MU) / SIGMA) @ W + bypass_term)
        if kind == "raw":
            return _grade_from(c @ W + bypass_term)
        if kind == "no bypass":
            return _grade_from(_score(c, binary, bypass_term) - bypass_term)
        return 4 - _grade_from(_score(c, binary, bypass_term))

    return fn


def _objective_mistake(kind):
    def fn(v, v0, b, y, lam, alpha, task):
        k = len(v)
        loss = task_loss(b @ v + v0, y, task)
        if kind == "no N_c":
            return loss + lam * (alpha * v.abs().sum() + (1 - alpha) * v.square().sum())
        if kind == "norm":
            return loss + lam / k * (alpha * v.abs().sum() + (1 - alpha) * v.norm())
        if kind == "swapped":
            return loss + lam / k * ((1 - alpha) * v.abs().sum() + alpha * v.square().sum())
        if kind == "bias":
            w = torch.cat([v, v.new_tensor([v0])])
            return loss + lam / k * (alpha * w.abs().sum() + (1 - alpha) * w.square().sum())
        if kind == "sum":
            return len(y) * loss + lam / k * (alpha * v.abs().sum() + (1 - alpha) * v.square().sum())
        squared = ((b @ v + v0 - y) ** 2).mean()
        return squared + lam / k * (alpha * v.abs().sum() + (1 - alpha) * v.square().sum())

    return fn


def _rule(circle_not_blue=True, large_top=True, join="or", blue=False):
    def fn(c):
        first = c[:, 4].bool() & (c[:, 2].bool() if blue else ~c[:, 2].bool())
        second = c[:, 6].bool() & c[:, 8].bool()
        if not circle_not_blue:
            return second.float()
        if not large_top:
            return first.float()
        return (first & second if join == "and" else first | second).float()

    return fn


def _frobenius(D):
    return torch.linalg.norm(D.T @ D - torch.eye(len(D), dtype=D.dtype))


@pytest.mark.parametrize(
    ("checker", "fn", "message"),
    [
        (cbm_formulas.check_grade, _grade_mistake("score"), r"that is the score s itself"),
        (cbm_formulas.check_grade, _grade_mistake("reversed"), r"you counted the thresholds above s"),
        (cbm_formulas.check_grade, _grade_mistake("raw"), r"standardise the real-valued concepts first"),
        (cbm_formulas.check_grade, _grade_mistake("zero-one"), r"a binary concept enters as c̃_j = 2c_j − 1"),
        (cbm_formulas.check_grade, _grade_mistake("no bypass"), r"the bypass term is missing"),
        (
            cbm_formulas.check_grade,
            lambda c, binary, bypass_term: _grade_from(_score(c, binary, bypass_term))[:-1],
            r"the grades of \d+ patients \(case 0\) has shape \(\d+,\), expected \(\d+,\)",
        ),
        (cbm_formulas.check_label_rule, _rule(blue=True), r"a circle counts only when it is not blue"),
        (cbm_formulas.check_label_rule, _rule(join="and"), r"joined by ∨ \(or\), not ∧ \(and\)"),
        (cbm_formulas.check_label_rule, _rule(large_top=False), r"\(large ∧ top\) is missing"),
        (cbm_formulas.check_label_rule, _rule(circle_not_blue=False), r"\(circle ∧ ¬blue\) is missing"),
        (
            cbm_formulas.check_label_rule,
            lambda c: (c[:, 3].bool() & ~c[:, 2].bool() | c[:, 6].bool() & c[:, 8].bool()).float(),
            r"y for the 72 possible concept vectors\[\d+\] is",
        ),
        (cbm_formulas.check_elastic_net_objective, _objective_mistake("no N_c"), r"divided by N_c K"),
        (cbm_formulas.check_elastic_net_objective, _objective_mistake("norm"), r"the squared norm ‖v‖₂²"),
        (cbm_formulas.check_elastic_net_objective, _objective_mistake("swapped"), r"α weighs the ℓ₁ term"),
        (
            cbm_formulas.check_elastic_net_objective,
            _objective_mistake("bias"),
            r"the bias v₀ is not penalised",
        ),
        (cbm_formulas.check_elastic_net_objective, _objective_mistake("sum"), r"average the loss over the n"),
        (
            cbm_formulas.check_elastic_net_objective,
            _objective_mistake("squared"),
            r"\(λ = 2.0, α = 0.2, task binary\) a binary task's ℓ is the cross-entropy",
        ),
        (
            cbm_formulas.check_elastic_net_objective,
            lambda v, v0, b, y, lam, alpha, task: task_loss(b @ v + v0, y, task),
            r"\(λ = 0.5, α = 0.99, task regression\) the penalty .* is missing",
        ),
        (
            cbm_formulas.check_elastic_net_objective,
            lambda v, v0, b, y, lam, alpha, task: (b @ v + v0 - y) ** 2,
            r"return one number as a 0-d tensor, got torch.Size\(\[9\]\)",
        ),
        (crate_critique.check_dictionary_gap, _frobenius, r"that is the Frobenius norm"),
        (
            crate_critique.check_dictionary_gap,
            lambda D: torch.linalg.matrix_norm(D.T @ D, ord=2),
            r"subtract the identity",
        ),
        (
            crate_critique.check_dictionary_gap,
            lambda D: torch.linalg.eigvalsh(D.T @ D - torch.eye(len(D), dtype=D.dtype))[-1],
            r"singular values \(1.3, 1.0, 0.4\): that is the largest eigenvalue of DᵀD − I",
        ),
        (
            crate_critique.check_dictionary_gap,
            lambda D: torch.linalg.matrix_norm(D - torch.eye(len(D), dtype=D.dtype), ord=2),
            r"orthogonal means DᵀD = I, not D = I",
        ),
        (
            crate_critique.check_dictionary_gap,
            lambda D: (D.T @ D - torch.eye(len(D), dtype=D.dtype)).abs().max(),
            r"the largest entry of \|DᵀD − I\|",
        ),
        (
            crate_critique.check_dictionary_gap,
            lambda D: 1.1 * critique.dictionary_gap(D),
            r"‖DᵀD − I‖₂ for D with singular values \(1.3, 1.0, 0.4\)\[\] is 0.924",
        ),
    ],
)
def test_lesson_12_13_later_checkers_name_the_mistake(checker, fn, message, capsys):
    _rejects_with(checker, fn, message, capsys)


@pytest.mark.parametrize(
    ("checker", "fn"),
    [
        (cbm_formulas.check_grade, _grade_loop),
        (
            cbm_formulas.check_grade,
            lambda c, binary, bypass_term: _grade_from(_score(c, binary, bypass_term)),
        ),
        (cbm_formulas.check_label_rule, _rule_loop),
        (
            cbm_formulas.check_label_rule,
            lambda c: (c[:, 4] == 1) & (c[:, 2] == 0) | (c[:, 6] == 1) & (c[:, 8] == 1),
        ),
        (cbm_formulas.check_elastic_net_objective, _objective_numpy),
        (
            cbm_formulas.check_elastic_net_objective,
            lambda *a: _objective_numpy(*a).float(),
        ),
        (crate_critique.check_dictionary_gap, _gap_loop),
        (
            crate_critique.check_dictionary_gap,
            lambda D: float(np.linalg.norm(D.numpy().T @ D.numpy() - np.eye(len(D)), 2)),
        ),
        (
            crate_critique.check_dictionary_gap,
            lambda D: torch.tensor(max(abs(float(s) ** 2 - 1) for s in torch.linalg.svdvals(D))),
        ),
    ],
)
def test_lesson_12_13_later_checkers_pass_other_right_answers(checker, fn, capsys):
    assert checker(fn), capsys.readouterr().out
