"""Lesson 12's helpers (xai_tf.cbm) against independent references: the loss formulas in numpy and
scipy, least squares (numpy.linalg.lstsq), numpy's percentiles, the generators' documented rules
re-derived from their docstrings and read back from the rendered pixels, and models whose leakage is
known by construction. No timed assertions."""

import numpy as np
import pytest
import torch
from probes_cbm import VALUES
from scipy.special import expit, log_expit
from torch import nn

from xai_tf.cbm import arthritis, intervention, leakage, losses, metrics, models, shapes, training
from xai_tf.cbm.data import ConceptData
from xai_tf.exercises import cbm as exercises

FAST = training.OPTIONS.replace(steps=300, lr=1e-2)


@pytest.fixture(scope="module")
def tabular():
    return arthritis.arthritis(600, seed=0), arthritis.arthritis(600, seed=1)


# ---------------------------------------------------------------- losses and metrics


def test_losses_match_their_formulas():
    g = torch.Generator().manual_seed(0)
    out, c = torch.randn(50, 5, generator=g, dtype=torch.float64), torch.rand(50, 5, generator=g).double()
    binary = torch.tensor([True, False, True, True, False])
    c[:, binary] = (c[:, binary] > 0.5).double()
    o, cc = out.numpy(), c.numpy()
    nll = -(cc * log_expit(o) + (1 - cc) * log_expit(-o))  # −log p(true value)
    want = np.where(binary.numpy(), nll, (o - cc) ** 2).sum(1).mean()
    assert losses.concept_loss(out, c, binary).item() == pytest.approx(want, rel=1e-12)
    f, y = out[:, 0], c[:, 0]
    task_nll = -(y.numpy() * log_expit(f.numpy()) + (1 - y.numpy()) * log_expit(-f.numpy())).mean()
    assert losses.task_loss(f, y, "binary").item() == pytest.approx(task_nll, rel=1e-12)
    assert losses.task_loss(f, y, "regression").item() == pytest.approx(((f - y).numpy() ** 2).mean())
    joint = losses.joint_loss(f, y, out, c, binary, 0.3, "binary").item()
    assert joint == pytest.approx(task_nll + 0.3 * want, rel=1e-12)


def test_metrics_match_numpy():
    out, y = torch.tensor([0.2, -1.0, 3.0, 0.5]), torch.tensor([1.0, 0.0, 0.0, 1.0])
    assert metrics.task_error(out, y, "binary") == 0.25
    assert metrics.task_error(out, y, "regression") == pytest.approx(np.sqrt(np.mean((out - y).numpy() ** 2)))
    errs = metrics.concept_errors(out.view(2, 2), y.view(2, 2), torch.tensor([True, False]))
    assert errs["binary concept error"] == 0.5  # logits 0.2 → 1 ✓, 3.0 → 1 ✗
    assert errs["real concept RMSE"] == pytest.approx(np.sqrt((1.0 + 0.25) / 2))


# ---------------------------------------------------------------- generators


def test_arthritis_follows_its_documented_rule():
    data = arthritis.arthritis(400, seed=3, noise=0.0, curvature=0.0, bypass=0.9)
    A, _, u = (t.numpy() for t in arthritis.structure())
    assert np.abs(A.T @ u).max() < 1e-12 and np.linalg.norm(u) == pytest.approx(1)
    x, c = data.x.double().numpy(), data.c.double().numpy()
    z = x @ A
    mu, sigma = np.array(arthritis.MEANS), np.array(arthritis.SCALES)
    np.testing.assert_allclose(c[:, :6], mu + sigma * z[:, :6], atol=1e-5)
    np.testing.assert_array_equal(c[:, 6:], (z[:, 6:] > 0).astype(float))
    tilde = np.concatenate([(c[:, :6] - mu) / sigma, 2 * c[:, 6:] - 1], 1)
    s = tilde @ np.array(arthritis.WEIGHTS) + 0.9 * (x @ u)
    grade = np.searchsorted(np.array(arthritis.THRESHOLDS), s, side="left")  # #{t < s}
    assert (grade != data.y.numpy()).mean() < 0.01  # float32 rounding at a threshold, at most
    assert set(np.unique(data.y.numpy())) == {0, 1, 2, 3, 4}
    # without the bypass the concepts alone give the grade
    clean = arthritis.arthritis(400, seed=3, noise=0.0, curvature=0.0, bypass=0.0)
    score = arthritis.severity_score(clean).numpy()
    assert (np.searchsorted(np.array(arthritis.THRESHOLDS), score) != clean.y.numpy()).mean() < 0.01


def test_bypass_share_is_the_documented_variance_ratio():
    data = arthritis.arthritis(20000, seed=6, curvature=0.0, bypass=0.8)
    A, _, u = (t.numpy() for t in arthritis.structure())
    # x·u ~ N(0, 1) is independent of x A (u ⟂ A's columns): share = β² / (Var(Σ w c̃) + β²)
    concepts = arthritis.severity_score(data).numpy()
    assert arthritis.bypass_share(data, 0.8) == pytest.approx(0.64 / (concepts.var() + 0.64), rel=0.03)
    assert arthritis.bypass_share(data, 0.0) == 0.0


def test_arthritis_noise_is_not_in_x():
    noisy = arthritis.arthritis(3000, seed=0, noise=0.5, curvature=0.0, binary=False)
    x = np.c_[noisy.x.double().numpy(), np.ones(len(noisy))]
    fit, *_ = np.linalg.lstsq(x, noisy.c.double().numpy(), rcond=None)
    residual = noisy.c.double().numpy() - x @ fit
    sigma = np.array(arthritis.SCALES + (1.0,) * 6)
    np.testing.assert_allclose(residual.std(0) / sigma, 0.5, rtol=0.06)  # σ_j ν, ν = 0.5


@pytest.mark.numerics
def test_shapes_pixels_show_their_concepts_and_the_label_follows_the_rule():
    data = shapes.shapes(300, seed=2, noise=0.0)
    c = data.c.numpy() > 0.5
    named = {name: c[:, j] for j, name in enumerate(shapes.NAMES)}
    rule = (named["circle"] & ~named["blue"]) | (named["large"] & named["top"])
    np.testing.assert_array_equal(data.y.numpy(), rule)
    assert (c[:, :3].sum(1) == 1).all() and (c[:, 3:6].sum(1) == 1).all()
    img = data.x.numpy()
    fg = np.abs(img - 0.5).max(1) > 0.2  # [n, 16, 16] the shape's pixels
    colour = np.array([img[i][:, fg[i]].mean(1).argmax() for i in range(len(img))])
    np.testing.assert_array_equal(colour, c[:, :3].argmax(1))
    ys, xs = zip(*(np.nonzero(fg[i]) for i in range(len(img))), strict=True)
    # the centre of the bounding box (a triangle's pixel centroid sits below its centre)
    cy, cx = (np.array([(v.min() + v.max()) / 2 for v in vs]) for vs in (ys, xs))
    np.testing.assert_array_equal(cx < 7.5, named["left"])
    np.testing.assert_array_equal(cy < 7.5, named["top"])
    area = fg.sum((1, 2))
    assert area[named["large"]].min() > area[~named["large"]].max()
    height, width = (np.array([np.ptp(v) + 1 for v in vs]) for vs in (ys, xs))
    fill = area / (height * width)  # square 1, circle ≈ π/4, triangle ≈ 1/2
    assert fill[named["square"]].min() > 0.99
    assert fill[named["triangle"]].max() < fill[named["circle"]].min()


# ---------------------------------------------------------------- the four modes


def test_independent_g_is_least_squares_on_the_true_concepts(tabular):
    train, _ = tabular
    model = training.train(
        "independent",
        train,
        g=models.mlp(train.k, 1, 0),
        options=training.OPTIONS.replace(steps=1500, lr=0.05),
    )
    X = np.c_[train.c.double().numpy(), np.ones(len(train))]
    w, *_ = np.linalg.lstsq(X, train.y.double().numpy(), rcond=None)
    with torch.no_grad():
        got = model.predict_from(train.c).double().numpy()
    assert np.abs(got - X @ w).max() < 0.02


def test_noiseless_concepts_and_linear_g_make_independent_equal_sequential():
    gaps = {}
    for noise in (0.0, 0.5):
        data = arthritis.arthritis(600, seed=4, noise=noise, curvature=0.0, binary=False)
        kw = {
            "h": models.mlp(data.x.size(1), data.k, 0),
            "g": models.mlp(data.k, 1, 0),
            "options": training.OPTIONS.replace(steps=800, lr=0.05),
        }
        ind, seq = training.train("independent", data, **kw), training.train("sequential", data, **kw)
        with torch.no_grad():
            gaps[noise] = (ind(data.x) - seq(data.x)).abs().max().item()
    assert gaps[0.0] < 0.02 < 0.1 < gaps[0.5]


def test_joint_goes_from_standard_to_sequential():
    """Measured in errors, not weights: Adam's steps are scale-free, so even λ = 1e-6 moves the
    weights far from the standard model's (and the bottleneck of a standard model is not unique)."""
    train, test = arthritis.arthritis(2000, seed=0), arthritis.arthritis(1000, seed=1)
    modes = {mode: training.train(mode, train, options=FAST) for mode in ("standard", "sequential")}
    modes["small λ"] = training.train("joint", train, lam=1e-6, options=FAST)
    modes["large λ"] = training.train("joint", train, lam=1e4, options=FAST)
    err = {name: metrics.evaluate(m, test) for name, m in modes.items()}
    task = {name: e["task error"] for name, e in err.items()}
    concept = {name: e["real concept RMSE"] for name, e in err.items()}
    base = abs(task["standard"] - task["sequential"])
    assert base > 0.1  # the bypass: concepts alone cannot reach the standard model's error
    assert abs(task["small λ"] - task["standard"]) < 0.2 * base < abs(task["small λ"] - task["sequential"])
    assert abs(task["large λ"] - task["sequential"]) < 0.2 * base < abs(task["large λ"] - task["standard"])
    assert abs(concept["large λ"] - concept["sequential"]) < 0.05 * concept["sequential"]
    assert concept["small λ"] > 2 * concept["sequential"]
    # same seed, same batches: λ = 1e-6 alone moves the weights by > 5 % of their norm (about 14 %)
    pairs = [
        (a.detach(), b.detach())
        for a, b in zip(modes["standard"].parameters(), modes["small λ"].parameters(), strict=True)
    ]
    moved = sum(float((a - b).square().sum()) for a, b in pairs) ** 0.5
    assert moved > 0.05 * sum(float(a.square().sum()) for a, _ in pairs) ** 0.5


def test_train_all_names_and_same_h():
    data = arthritis.arthritis(200, seed=5)
    ms = training.train_all(data, [0.1, 10], options=training.OPTIONS.replace(steps=20))
    assert list(ms) == ["independent", "sequential", "standard", "joint λ=0.1", "joint λ=10"]
    for a, b in zip(ms["independent"].h.parameters(), ms["sequential"].h.parameters(), strict=True):
        assert torch.equal(a, b)
    assert ms["independent"].g_input == "probability" and ms["sequential"].g_input == "logit"


def test_images_train_with_the_cnn():
    train = shapes.shapes(256, seed=0)
    model = training.train("joint", train, lam=1.0, options=training.OPTIONS.replace(steps=30, batch_size=64))
    assert isinstance(model.h[0], nn.Conv2d)
    assert model(train.x[:5]).shape == (5,)


# ---------------------------------------------------------------- intervention


def test_intervening_on_every_concept_of_an_independent_model_gives_g_of_c(tabular):
    train, test = tabular
    model = training.train("independent", train, options=training.OPTIONS.replace(steps=50))
    with torch.no_grad():
        b = model.bottleneck(test.x)
        every = intervention.intervene(
            model, b, test.c, range(test.k), intervention.percentiles(model, train)
        )
        assert torch.equal(model.predict_from(every), model.g(test.c).squeeze(-1))
        curve = intervention.intervention_curve(model, test, train)
    assert curve[0] == metrics.evaluate(model, test)["task error"]
    assert intervention.intervened_error(model, test, train, []) == curve[0]
    assert intervention.intervened_error(model, test, train, range(test.k)) == curve[-1]
    assert curve[-1] == metrics.task_error(model.g(test.c).squeeze(-1).detach(), test.y, "regression")


def test_logit_interventions_use_training_percentiles(tabular):
    train, test = tabular
    model = training.train("sequential", train, options=training.OPTIONS.replace(steps=50))
    with torch.no_grad():
        logits = model.bottleneck(train.x).double().numpy()
        q = intervention.percentiles(model, train)
        np.testing.assert_allclose(q.numpy(), np.percentile(logits, [5, 95], axis=0), rtol=1e-5, atol=1e-5)
        b = model.bottleneck(test.x)
        new = intervention.intervene(model, b, test.c, [0, 7], q)
    j = 7  # a binary concept: q05 where c = 0, q95 where c = 1
    np.testing.assert_allclose(new[:, j].numpy(), np.where(test.c[:, j].numpy() > 0.5, q[1, j], q[0, j]))
    assert torch.equal(new[:, 0], test.c[:, 0]) and torch.equal(new[:, 1:7], b[:, 1:7])


def test_class_medians_are_numpys_medians_per_true_value(tabular):
    train, _ = tabular
    model = training.train("sequential", train, options=training.OPTIONS.replace(steps=50))
    with torch.no_grad():
        logits = model.bottleneck(train.x).double().numpy()
    c = train.c.numpy()
    got = intervention.class_medians(model, train).numpy()
    for j in range(6, 12):  # the binary concepts
        want = [np.median(logits[c[:, j] == v, j]) for v in (0.0, 1.0)]
        np.testing.assert_allclose(got[:, j], want, rtol=1e-5, atol=1e-5)
    assert (got[:, :6] == 0).all()


def test_uncertainty_order_starts_with_the_least_sure_group():
    train, test = shapes.shapes(200, seed=0), shapes.shapes(50, seed=1)
    model = training.train("joint", train, options=training.OPTIONS.replace(steps=40, batch_size=64))
    with torch.no_grad():
        p = expit(model.concept_outputs(test.x).double().numpy())
    u = 2 * np.minimum(p, 1 - p)
    per_group = np.stack([u[:, list(g)].max(1) for g in shapes.GROUPS], 1)
    first = intervention.group_order(model, test, train, "uncertainty")[:, 0].numpy()
    np.testing.assert_array_equal(per_group[np.arange(len(u)), first], per_group.max(1))
    random = intervention.group_order(model, test, train, "random", seed=3)
    assert all(sorted(r) == list(range(5)) for r in random.tolist())


# ---------------------------------------------------------------- leakage


def test_scramble_keeps_what_b_says_about_c():
    g = torch.Generator().manual_seed(0)
    c = torch.cat([(torch.rand(300, 2, generator=g) > 0.5).float(), torch.randn(300, 1, generator=g)], 1)
    b = c + torch.randn(300, 3, generator=g)
    binary = torch.tensor([True, True, False])
    s = leakage.scramble(b, c, binary, seed=1)
    for j in (0, 1):
        for v in (0.0, 1.0):
            rows = c[:, j] == v
            assert torch.equal(s[rows, j].sort().values, b[rows, j].sort().values)
    assert torch.allclose((s - c)[:, 2].sort().values, (b - c)[:, 2].sort().values, atol=1e-6)
    assert not torch.equal(s, b)
    assert torch.equal(leakage.scramble(c, c, binary), c)


def _leaky_data(n, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 2, generator=g)
    return ConceptData(
        x, x[:, :1].clone(), x[:, 0] + x[:, 1], torch.tensor([False]), ("c",), ((0,),), "regression"
    )


def _fixed_model(weight_bypass):
    h = nn.Linear(2, 1, bias=False)
    with torch.no_grad():
        h.weight.copy_(torch.tensor([[1.0, weight_bypass]]))
    return models.ConceptBottleneck(h, models.mlp(1, 1, 0), torch.tensor([False]), "logit", "sequential")


def test_leakage_is_found_where_it_was_built_in():
    train, test = _leaky_data(1000, 0), _leaky_data(1000, 1)
    clean = leakage.leakage(_fixed_model(0.0), train, test, options=leakage.OPTIONS.replace(steps=300))
    leaky = leakage.leakage(_fixed_model(0.5), train, test, options=leakage.OPTIONS.replace(steps=300))
    # clean: b = c, nothing to scramble; leaky: b = x0 + 0.5 x1 tells y = x0 + x1 better than c = x0
    assert abs(clean["leakage"]) < 0.02
    assert leaky["soft"] < clean["soft"] - 0.1 and leaky["leakage"] > 0.2


# ---------------------------------------------------------------- bad inputs, exercises


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda d, m: training.train("semi", d), ValueError, "mode must be one of"),
        (lambda d, m: training.train("joint", d, lam=-1.0), ValueError, "lam must be a finite number ≥ 0"),
        (lambda d, m: m.predict_from(torch.zeros(3, 5)), ValueError, "k = 12 concepts"),
        (
            lambda d, m: intervention.intervene(
                m, torch.zeros(2, 12), torch.zeros(2, 12), [12], torch.zeros(2, 12)
            ),
            ValueError,
            r"which\[0\] must be an integer in 0\.\.11, got 12",
        ),
        (
            lambda d, m: losses.concept_loss(torch.zeros(2, 3), torch.zeros(2, 3), d.binary),
            ValueError,
            "k = 12",
        ),
    ],
)
def test_bad_inputs_name_the_argument(call, error, message):
    data = arthritis.arthritis(20)
    model = training.train("sequential", data, options=training.OPTIONS.replace(steps=2))
    with pytest.raises(error, match=message):
        call(data, model)


def scipy_joint_loss(out, y, co, c, binary, lam, task):
    """ℓ(f, y) + λ Σ_j ℓ_j(h_j, c_j), averaged over examples, in numpy and scipy (independent of
    ``losses``): −log σ for binary concepts and a binary task, squared errors otherwise."""
    o, yy, co, cc, b = out.numpy(), y.numpy(), co.numpy(), c.numpy(), binary.numpy()
    nll = -(cc * log_expit(co) + (1 - cc) * log_expit(-co))
    concepts = np.where(b, nll, (co - cc) ** 2).sum(1).mean()
    if task == "binary":
        task_term = -(yy * log_expit(o) + (1 - yy) * log_expit(-o)).mean()
    else:
        task_term = ((o - yy) ** 2).mean()
    return torch.tensor(task_term + lam * concepts)


def test_exercise_checkers(capsys):
    assert exercises.check_joint_loss(scipy_joint_loss)  # an independent reference passes
    assert not exercises.check_joint_loss(lambda out, y, co, c, binary, lam, task: None)
    assert "return" in capsys.readouterr().out

    def probabilities_as_logits(out, y, co, c, binary, lam, task):  # BCE on σ twice
        return losses.joint_loss(out, y, co.sigmoid(), c, binary, lam, task)

    assert not exercises.check_joint_loss(probabilities_as_logits)
    assert "do not apply σ first" in capsys.readouterr().out

    def mean_over_concepts(out, y, co, c, binary, lam, task):
        return losses.task_loss(out, y, task) + lam * losses.concept_loss(co, c, binary) / binary.numel()

    assert not exercises.check_joint_loss(mean_over_concepts)
    assert "sum" in capsys.readouterr().out

    def squared_for_binary_concepts(out, y, co, c, binary, lam, task):
        all_real = torch.zeros_like(binary)
        return losses.task_loss(out, y, task) + lam * losses.concept_loss(co, c, all_real)

    assert not exercises.check_joint_loss(squared_for_binary_concepts)
    assert "not a squared error" in capsys.readouterr().out
    assert not exercises.check_joint_loss(lambda out, *rest: len(out) * losses.joint_loss(out, *rest))
    assert "do not sum" in capsys.readouterr().out

    def right(b, c, which, binary, low, high):
        new = b.clone()
        for j in which:
            new[:, j] = torch.where(c[:, j] > 0.5, high[j], low[j]) if binary[j] else c[:, j]
        return new

    def copies_zero_one(b, c, which, binary, low, high):
        new = b.clone()
        new[:, list(which)] = c[:, list(which)]
        return new

    def in_place(b, c, which, binary, low, high):
        b[:, list(which)] = right(b, c, which, binary, low, high)[:, list(which)]
        return b

    assert exercises.check_intervene(right)
    capsys.readouterr()
    assert not exercises.check_intervene(copies_zero_one)
    assert "percentile" in capsys.readouterr().out
    assert not exercises.check_intervene(in_place)
    assert "changed b" in capsys.readouterr().out
    assert not exercises.check_intervene(
        lambda b, c, which, binary, low, high: right(b, c, which, binary, high, low)
    )
    assert "swapped" in capsys.readouterr().out
    assert not exercises.check_intervene(lambda b, c, which, binary, low, high: b.clone())
    assert "unchanged" in capsys.readouterr().out


# ---------------------------------------------------------------- the panel


def test_concept_panel_intervenes_by_hand():
    from xai_tf.widgets.cbm import concept_panel

    train, test = arthritis.arthritis(300, seed=0), arthritis.arthritis(20, seed=1)
    ms = {"sequential": training.train("sequential", train, options=training.OPTIONS.replace(steps=30))}
    ms["independent"] = training.train("independent", train, options=training.OPTIONS.replace(steps=30))
    panel = concept_panel(ms, test, example=3)
    assert panel.message.value == "" and "0 concept(s) moved" in panel.view.value
    with torch.no_grad():
        want = ms["sequential"].predict_from(
            intervention.intervene(
                ms["sequential"],
                ms["sequential"].bottleneck(test.x[3:4]),
                test.c[3:4].clone().fill_(1.0),
                [7],
                torch.full((2, 12), 2.0),
            )
        )
    panel["morning stiffness"].value = 1 / (1 + np.exp(-2.0))  # σ(2): the logit 2
    assert "1 concept(s) moved" in panel.view.value and f"{float(want):.2f}</b>" in panel.view.value
    panel["example"].value = 4  # a new example: the sliders go back to its predicted concepts
    assert "0 concept(s) moved" in panel.view.value
    panel["example"].value = 20
    assert "example must be an integer in 0..19" in panel.message.value and panel.view.value == ""


@pytest.mark.parametrize(("name", "call", "want"), VALUES, ids=[v[0] for v in VALUES])
def test_odd_input_with_a_documented_answer(name, call, want):
    """The probe table's inputs that get an answer, not an error (float64 data into a float32 model)."""
    assert call() == want
