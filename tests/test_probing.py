"""Lesson 19 (``xai_tf.probing``): the linear probe against scikit-learn, a stack of probes against
separate fits, the MDL online code against a hand computation and the paper's timestamps, control labels,
labels of a hand-written scene, specialised-head shares against hand counts, identifiability and erasure
against their definitions."""

import math

import pytest
import torch
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import xai_tf
from xai_tf.probing import control, data, erasure, features, heads, identifiability, mdl, probes

SCENE = (
    "MACBETH.\nSo foul and fair a day I have not seen.\n\n[Enter Banquo.]\n\n"
    "BANQUO.\nHow far is't to Forres?\n\n"
)


@pytest.fixture(scope="module")
def lm():
    return xai_tf.load_model("shakespeare")


@pytest.fixture(scope="module")
def play(lm):
    d = data.play_data(lm, SCENE * 12, n_windows=8, T=24)
    return d, features.residual_streams(lm, d.ids)


def _mixture(seed: int, n: int = 400, d: int = 12, K: int = 3) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, K, (n,), generator=g)
    means = torch.randn(K, d, generator=g)
    return means[y] + 1.5 * torch.randn(n, d, generator=g) * torch.linspace(0.5, 3, d), y


@pytest.mark.numerics
@pytest.mark.parametrize("seed", [0, 1])
def test_linear_probe_matches_scikit_learn_on_a_fixed_split(seed):
    h, y = _mixture(seed)
    sk = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=2000)).fit(h[:300], y[:300])
    ours = probes.accuracy(probes.fit_linear(h[:300], y[:300]), h[300:], y[300:])
    assert abs(float(ours) - sk.score(h[300:], y[300:])) <= 0.01


@pytest.mark.numerics
def test_linear_probe_matches_scikit_learn_on_the_bundled_models_states(play):
    d, H = play
    train, test = d.split(seed=0)
    y = d.labels["position"]
    sk = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=3000))
    sk.fit(H[3, train].numpy(), y[train].numpy())
    ours = probes.accuracy(probes.fit_linear(H[3, train], y[train], 8), H[3, test], y[test])
    assert abs(float(ours) - sk.score(H[3, test].numpy(), y[test].numpy())) <= 0.01


@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("C", [1.0, 0.05])
def test_linear_probe_is_scikit_learns_logistic_regression_at_the_same_C(K, C):
    """Coefficients and probabilities against ``LogisticRegression(C)`` on standardised states, fitted to
    1e-10. Two classes: scikit-learn's one vector w is W_1 − W_0 (½‖W‖² there fitted C = 2C: 0.07 off in
    probability, 0.6 in w). Our float32 L-BFGS lands within 2e-4 of it (measured)."""
    h, y = _mixture(0, n=300, K=K)
    z = StandardScaler().fit_transform(h.double().numpy())
    sk = LogisticRegression(C=C, tol=1e-10, max_iter=10_000).fit(z, y.numpy())
    probe = probes.fit_linear(h, y, K, C=C)
    W = probe.layers[0][0][0].double()
    coef = (W[:, 1] - W[:, 0])[None] if K == 2 else W.T
    assert coef.numpy() == pytest.approx(sk.coef_, abs=1e-3)
    assert probe(h).exp().numpy() == pytest.approx(sk.predict_proba(z), abs=1e-3)


@pytest.mark.parametrize("kind", probes.PROBES)
def test_a_stack_of_probes_fits_what_separate_fits_do(kind):
    (h1, y1), (h2, y2) = _mixture(3, n=200), _mixture(4, n=200)
    stacked = probes.accuracy(
        probes.fit_probe(kind, torch.stack([h1, h2]), torch.stack([y1, y2]), 3),
        torch.stack([h1, h2]),
        torch.stack([y1, y2]),
    )
    if kind == "linear":  # a convex problem: one optimum, reached either way
        alone = [float(probes.accuracy(probes.fit_linear(h, y, 3), h, y)) for h, y in ((h1, y1), (h2, y2))]
        assert stacked.tolist() == pytest.approx(alone, abs=0.01)
    else:  # unregularised, 150 steps: the MLP memorises most of 200 training points in 12 dimensions
        assert (stacked > 0.9).all()


def test_majority_baseline_counts_the_commonest_training_label():
    assert probes.majority_baseline(torch.tensor([2, 2, 1]), torch.tensor([2, 0, 2, 2])) == 0.75


def test_timestamps_are_the_papers_shares():
    # Voita & Titov 2020: 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.25, 12.5, 25, 50, 100 % of N, rounded up
    assert mdl.timestamps(1000) == [1, 2, 4, 8, 16, 32, 63, 125, 250, 500, 1000]
    # N = 10: ⌈0.01⌉ … ⌈0.625⌉ are all 1, then ⌈1.25⌉ = 2, ⌈2.5⌉ = 3, 5, 10
    assert mdl.timestamps(10) == [1, 2, 3, 5, 10]


class _Fixed:
    """A "probe" that gives every example the label probabilities q, whatever it was trained on."""

    def __init__(self, q):
        self.q = torch.tensor(q, dtype=torch.float64)
        self.calls = []

    def __call__(self, h, y, K):
        self.calls.append(y.size(1))
        return lambda x: self.q.log().expand(x.size(0), x.size(1), -1)


def test_online_code_equals_a_hand_computation():
    # N = 4, K = 2, blocks at t = 1, 2, 4; y = 0, 1, 1, 0.
    # block 1: uniform, 1 bit. Prefix [0] has one label: add-one frequencies (2/3, 1/3), y_2 = 1 costs log2 3.
    # prefix [0, 1] trains the probe, which says (1/4, 3/4): y_3 = 1 costs log2(4/3), y_4 = 0 costs 2 bits.
    fit = _Fixed([0.25, 0.75])
    online, uniform = mdl.online_codelength(
        fit, torch.randn(4, 3), torch.tensor([0, 1, 1, 0]), 2, (0.25, 0.5, 1.0)
    )
    assert float(online) == pytest.approx(1 + math.log2(3) + math.log2(4 / 3) + 2, abs=1e-12)
    assert uniform == 4.0 and fit.calls == [2]


def test_codelength_is_the_first_block_plus_the_surprisal():
    assert mdl.codelength(torch.tensor([0.5, 0.25]), 3, 4) == pytest.approx(3 * 2 + 1 + 2)


def test_control_labels_are_one_per_type_and_follow_the_task_distribution():
    types = torch.arange(2000) % 500
    labels = (torch.arange(2000) % 4 == 0).long()  # a quarter are 1
    c = control.control_labels(types, labels, seed=0)
    assert all(c[types == v].unique().numel() == 1 for v in range(0, 500, 37))
    share = float(c.view(4, 500)[0].double().mean())  # one draw per type
    assert 0.17 < share < 0.33  # 500 draws of Bernoulli(1/4): sd 0.019, bounds 4 sd away
    assert not torch.equal(c, control.control_labels(types, labels, seed=1))


def test_scene_labels_by_hand(lm):
    d = data.play_data(lm, SCENE * 4, n_windows=2, T=20)
    text = [lm.token_strings(w.tolist()) for w in d.ids]
    kind = d.labels["line kind"].view(2, -1)
    position = d.labels["position"].view(2, -1)
    for tokens, k, p in zip(text, kind, position, strict=True):
        line = ""
        for i, token in enumerate(tokens):
            if i == 0 or tokens[i - 1].endswith("↵"):
                assert int(p[i]) == 0 or tokens[i - 1] == "↵↵"  # a line restarts the count
            line = token if i == 0 or tokens[i - 1].endswith("↵") else line + token
            if line.startswith("["):
                assert data.LINE_KINDS[int(k[i])] == "direction"
            if line.startswith(("MACBETH", "BANQUO")):
                assert data.LINE_KINDS[int(k[i])] == "heading"
    assert (
        data.line_kind("LADY MACBETH.") == "heading" and data.line_kind("Hath he ask'd for me?") == "speech"
    )


def test_head_targets_by_hand():
    groups = [[0], [1, 2, 3], [4]]
    same = heads._targets("same word", 5, groups, [9] * 5, causal=True)
    assert same.nonzero().tolist() == [[2, 1], [3, 1], [3, 2]]
    rare = heads._targets("rare", 4, [[0], [1], [2], [3]], [5, 1, 7, 1], causal=True)
    assert rare.nonzero().tolist() == [[2, 1], [3, 1]]  # queries 2, 3 see ≥ 2 other keys; the earliest rarest
    assert heads._targets("next", 4, [], [1] * 4, causal=True).sum() == 0
    assert heads._targets("next", 4, [], [1] * 4, causal=False).nonzero().tolist() == [[0, 1], [1, 2], [2, 3]]


def test_head_shares_against_hand_counts(lm):
    windows, counts = heads.text_windows(lm, SCENE * 20, n=2, T=12)
    r = heads.head_shares(lm, windows, counts)
    A = [lm.attentions(w[None]) for w in windows]  # [L, H, T, T] each
    prev = sum(a[..., s, s - 1] for a in A for s in range(1, 12)) / (2 * 11)
    assert torch.allclose(r["previous"]["share"], prev.float(), atol=1e-6)
    assert int(r["previous"]["queries"]) == 22
    total, n = 0, 0
    for a, w in zip(A, windows, strict=True):
        for s in range(12):
            keys = list(range(s))
            if len(keys) >= 2:
                t = min(keys, key=lambda t: (int(counts[w[t]]), t))
                total, n = total + a[..., s, t], n + 1
    assert torch.allclose(r["rare"]["share"], (total / n).float(), atol=1e-6)
    uniform = sum(1 / (s + 1) for s in range(1, 12)) / 11
    assert torch.allclose(
        r["previous"]["uniform"], torch.full_like(r["previous"]["uniform"], uniform), atol=1e-6
    )


def test_position_alone_explains_a_purely_positional_head():
    # a head that always puts weight 0.7 on the previous token and 0.3 on itself: its expected share of
    # "previous" from position alone is its share
    T = 6
    A = torch.zeros(1, 1, 1, T, T)
    A[..., 0, 0] = 1
    for s in range(1, T):
        A[..., s, s - 1], A[..., s, s] = 0.7, 0.3
    P = heads._offset_profile(A)
    assert P[0, 0, T].item() == pytest.approx(0.7 * (T - 1) / (T - 1))  # offset +1
    assert P[0, 0, T - 1].item() == pytest.approx((1 + 0.3 * (T - 1)) / T)  # offset 0


def test_identifiability_is_exact_at_the_embedding_and_by_hand():
    e = torch.eye(3)[None]
    ids = torch.tensor([[4, 5, 4]])
    assert identifiability.identified(e, e, ids).all()
    g_h = torch.tensor([[[0.0, 0, 1], [1, 0, 0], [0, 1, 0]]])  # nearest: e_2, e_0, e_1
    assert identifiability.identified(g_h, e, ids).tolist() == [[True, False, False]]


def test_identifiability_by_layer_on_the_bundled_model(play):
    d, H = play
    out = identifiability.identifiability_by_layer(H, d.ids, torch.arange(6), torch.arange(6, 8))
    assert out["identity"][0] == 1.0 and out["linear"][0] == 1.0  # h_0 is e: exact


@pytest.mark.numerics
def test_erasable_positions_keep_the_prediction(lm, play):
    d, _ = play
    windows = d.ids[:2, :12]
    baselines = erasure.mean_states(lm, d.ids)
    share = erasure.erasable_share(lm, windows, baselines)
    assert share.shape == (2, lm.n_layer) and ((share >= 0) & (share <= 1)).all()
    ids = windows[0:1]
    delta, y = erasure._first_order_scores(lm, ids, baselines)
    for layer in (0, lm.n_layer - 1):
        k = round(float(share[0, layer]) * 11)
        erased = torch.zeros(12, dtype=torch.bool)
        erased[delta[layer].argsort()[:k]] = True
        hook = {
            ("resid_pre", layer): lambda h, e=erased, b=baselines[layer]: torch.where(e[None, :, None], b, h)
        }
        assert int(lm(ids, hooks=hook)[0, -1].argmax()) == y


def test_the_panel_redraws_each_control_without_a_message():
    from xai_tf.widgets.probing import probing_panel

    table = {f"{k} {w}": [0.5, 0.6, 0.7] for k in probes.PROBES for w in ("task", "control", "selectivity")}
    table |= {"majority": [0.4] * 3, "linear mdl task": [1.0, 1.1, 1.2], "linear mdl control": [1.0] * 3}
    panel = probing_panel({"a": table, "b": {**table, "majority": [0.1] * 3}})
    first = panel.view.value
    for name, value in (("layer", 2), ("probe", "mlp"), ("label", "b")):
        panel[name].value = value
        assert panel.message.value == "" and panel.view.value != first
        first = panel.view.value
    assert "b, mlp probe, layer 2" in panel.view.value


def test_each_problem_of_a_stack_is_coded_as_it_would_be_alone():
    # issue 58: the add-one fallback applied to every problem as soon as one had seen a single label
    h, fit = torch.randn(2, 4, 3), _Fixed([0.25, 0.75])
    y = torch.tensor([[0, 0, 1, 0], [0, 1, 1, 0]])  # the first problem's prefix [0, 0] holds one label
    together, _ = mdl.online_codelength(fit, h, y, 2, (0.25, 0.5, 1.0))
    alone = [float(mdl.online_codelength(fit, h[b], y[b], 2, (0.25, 0.5, 1.0))[0]) for b in range(2)]
    assert together.tolist() == pytest.approx(alone, abs=1e-12)
    assert alone[1] == pytest.approx(1 + math.log2(3) + math.log2(4 / 3) + 2, abs=1e-12)  # the probe's code


def test_an_unseen_class_costs_the_add_one_escape_whatever_the_probe_says():
    # K = 3; the prefix [0, 1] (t = 2) trains the probe, which gives class 2 almost nothing (1e-12):
    # class 2 costs log2(t + K) = log2 5 bits; class 1 the probe's 0.6 of the seen classes' (0.3, 0.6)
    # renormalised (2/3) times (t + K′) / (t + K) = 4/5
    fit = _Fixed([0.3, 0.6, 1e-12])
    online, _ = mdl.online_codelength(fit, torch.randn(4, 3), torch.tensor([0, 1, 2, 1]), 3, (0.25, 0.5, 1.0))
    # block 1: uniform over 3; y_2 = 1 after [0]: add-one (2/4, 1/4, 1/4)
    want = math.log2(3) + math.log2(4) + math.log2(5) - math.log2(2 / 3 * 4 / 5)
    assert float(online) == pytest.approx(want, abs=1e-9)


def test_an_early_stopped_mlp_keeps_the_step_with_the_lowest_held_out_loss():
    # issue 56: MDL's MLP probes stop early on a held-out tenth, as Voita & Titov's do. Brute force: the same
    # seeded probe trained for k = 1..60 steps on the other nine tenths; the early-stopped one is the best k
    # (here k = 28 of 60).
    g = torch.Generator().manual_seed(5)
    h = torch.randn(60, 6, generator=g)
    y = ((h[:, 0] > 0) ^ (torch.rand(60, generator=g) < 0.1)).long()  # learnable, with 10 % noise

    def held_out(probe):
        return float(-probe(h[54:]).gather(1, y[54:, None]).mean())

    stopped = probes.fit_mlp(h, y, 2, hidden=32, steps=60, holdout=0.1)
    by_steps = [held_out(probes.fit_mlp(h[:54], y[:54], 2, hidden=32, steps=k)) for k in range(1, 61)]
    assert held_out(stopped) == pytest.approx(min(by_steps), abs=1e-6)
    assert min(by_steps) < by_steps[-1] - 0.05  # it stopped well before the last step: the test can fail
    with pytest.raises(ValueError, match="holdout"):
        probes.fit_mlp(h, y, 2, holdout=0.9)


def test_target_share_is_the_mean_over_queries_with_targets():
    """Against a loop over heads and queries; a query without targets does not count."""
    g = torch.Generator().manual_seed(0)
    A = torch.rand(2, 3, 5, 5, generator=g, dtype=torch.float64).softmax(-1)
    S = torch.zeros(5, 5)
    S[1, 0] = S[3, 0] = S[3, 2] = S[4, 1] = 1
    want = torch.zeros(2, 3, dtype=torch.float64)
    for layer in range(2):
        for head in range(3):
            per_query = [sum(float(A[layer, head, s, t]) for t in range(5) if S[s, t]) for s in (1, 3, 4)]
            want[layer, head] = sum(per_query) / 3
    assert torch.allclose(heads.target_share(A, S), want, atol=1e-12)
    assert torch.allclose(heads.target_share(A[1, 2], S), want[1, 2], atol=1e-12)


def test_first_order_delta_is_the_directional_derivative():
    """δ[t] = |d/dε f(h + ε (b − h))| at ε = 0, for f a sum of per-position functions: against torch's jvp."""
    g = torch.Generator().manual_seed(1)
    h, b, W = (torch.randn(*shape, generator=g, dtype=torch.float64) for shape in ((4, 6), (6,), (6,)))

    def f(x):
        return torch.tanh(x @ W) ** 2  # [T]: position t depends on h[t] only

    grad = torch.autograd.functional.jacobian(lambda x: f(x).sum(), h)
    _, directional = torch.autograd.functional.jvp(f, h, (b - h))
    assert torch.allclose(erasure.first_order_delta(grad, h, b), directional.abs(), atol=1e-12)
