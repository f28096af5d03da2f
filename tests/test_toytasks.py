"""Lesson 09's helpers against independent references: brute-force counting, a string-rewriting
Dyck recogniser and an enumeration of every bracket string up to length 8, xai_tf.attention and
torch's scaled_dot_product_attention on the models' own weights, explicit loops, closed forms, and
the shipped models' recorded numbers recomputed from their weights."""

import ast
import itertools
import json
import math
import re
from collections import Counter
from pathlib import Path

import probes_toytasks
import pytest
import torch
import torch.nn.functional as F
from numerics import rescored

from xai_tf import artifacts, seeds
from xai_tf import attention as att
from xai_tf._threads import one_thread
from xai_tf.exercises import toytasks as ex
from xai_tf.tasks import dyck, dyck_model, histogram, solvable, toytasks


@pytest.fixture(autouse=True, scope="module")
def single_thread():
    """The toy models are tiny: one thread trains them faster than two that share a busy CPU."""
    before = torch.get_num_threads()
    with one_thread():
        yield
    assert torch.get_num_threads() == before, "the module left torch's thread count changed"


@pytest.fixture(autouse=True)
def own_global_rng():
    """Tests that seed torch's global generator (to build random models) give it back as it was."""
    with torch.random.fork_rng(devices=[]):
        yield


# ---------------------------------------------------------------- histogram task


def test_histogram_labels_are_brute_force_counts_and_the_slide_example():
    x = toytasks.encode_letters("DATAIAIAIA")[0]
    assert histogram.histogram_labels(x).tolist() == [1, 5, 1, 5, 3, 5, 3, 5, 3, 5]
    xs, ys = histogram.histogram_data(200, L=7, T=4, seed=3)
    for row, labels in zip(xs.tolist(), ys.tolist(), strict=True):
        counts = Counter(row)
        assert labels == [counts[t] for t in row]
    again, _ = histogram.histogram_data(200, L=7, T=4, seed=3)
    assert torch.equal(xs, again) and not torch.equal(xs, histogram.histogram_data(200, L=7, T=4, seed=4)[0])


@pytest.mark.parametrize("block", [None, "semantic", "positional"])
def test_the_model_attention_is_xai_tf_attention_and_torch_sdpa_on_its_weights(block):
    torch.manual_seed(0)
    model = histogram.HistogramModel(block=block)
    x, _ = histogram.histogram_data(6, seed=1)
    logits, A = model(x)
    E, W = model.embed(x), model.weight()
    out, A_ref = att.self_attention(E, W, W, torch.eye(E.size(-1)))
    torch.testing.assert_close(A, A_ref)
    Q = E @ W.T
    torch.testing.assert_close(A @ E, F.scaled_dot_product_attention(Q, Q, E), atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(logits, model.mlp(model.ln(out)))
    if block is not None:  # the restricted W reads only its own coordinates of e_i
        other = "positional" if block == "semantic" else "semantic"
        assert histogram.off_block_share(model, block) == 0.0
        assert histogram.off_block_share(model, other) == pytest.approx(1.0)


def test_count_probability_against_every_sequence():
    """P(y_i = c) counted exactly over all T^L sequences (L = 5, T = 3) and the lesson's 0.176 %."""
    L, T = 5, 3
    tally = Counter()
    for seq in itertools.product(range(T), repeat=L):
        tally.update(Counter(seq)[t] for t in seq)
    for c in range(1, L + 1):
        assert histogram.count_probability(c, L, T) == pytest.approx(tally[c] / (L * T**L), rel=1e-12)
    assert sum(histogram.count_probability(c) for c in range(1, 11)) == pytest.approx(1.0)
    assert histogram.count_probability(5) == pytest.approx(126 * 14**5 / 15**9, rel=1e-12)
    assert round(100 * histogram.count_probability(5), 3) == 0.176


def test_off_block_share_closed_form():
    model = histogram.HistogramModel(d_tok=2, d_pos=2, d_att=1)
    with torch.no_grad():
        model.W.copy_(torch.tensor([[3.0, 0.0, 0.0, 4.0]]))
    assert histogram.off_block_share(model, "semantic") == pytest.approx(4 / 5)
    assert histogram.off_block_share(model, "positional") == pytest.approx(3 / 5)


def test_same_token_share_against_a_loop_and_its_baselines():
    g = torch.Generator().manual_seed(0)
    x = torch.randint(3, (4, 6), generator=g)
    A = torch.rand(4, 6, 6, generator=g).softmax(-1)
    shares = []
    for b in range(4):
        for i in range(6):
            same = [j for j in range(6) if j != i and x[b, j] == x[b, i]]
            if same:
                shares.append(sum(float(A[b, i, j]) for j in same) / (1 - float(A[b, i, i])))
    assert histogram.same_token_share(A, x) == pytest.approx(sum(shares) / len(shares))
    y = histogram.histogram_labels(x)
    baseline = float(((y[y >= 2] - 1) / 5).float().mean())
    self_plus_uniform = 0.5 * torch.eye(6) + 0.5 / 6
    assert histogram.same_token_share(self_plus_uniform.expand(4, 6, 6), x) == pytest.approx(baseline)
    semantic = (x.unsqueeze(-1) == x.unsqueeze(-2)).float()
    assert histogram.same_token_share(semantic / semantic.sum(-1, keepdim=True), x) == pytest.approx(1.0)


def test_accuracy_by_count_against_a_loop():
    torch.manual_seed(0)
    model = histogram.HistogramModel()
    x, y = histogram.histogram_data(50, seed=4)
    with torch.no_grad():
        pred = model(x)[0].argmax(-1)
    for c, (acc, n) in histogram.accuracy_by_count(model, x, y).items():
        pairs = [(int(p), int(t)) for p, t in zip(pred.flatten(), y.flatten(), strict=True) if t == c]
        assert n == len(pairs) and acc == pytest.approx(sum(p == t for p, t in pairs) / n)


def test_histogram_training_draws_the_minibatches_of_tasks_train():
    """train_histogram's step k sees the rows minibatches(n_train, batch, seed + 1) draws at step k: the
    loss of step 0 (before any update) recomputed by hand from those rows."""
    model, history = histogram.train_histogram(
        "semantic", n_train=40, options=histogram.OPTIONS.replace(steps=1, batch_size=7, seed=3)
    )
    x, y = histogram.histogram_data(40, seed=3)
    with seeds.seeded(3):
        start = histogram.HistogramModel(block="semantic")
    start.block = None
    i = torch.randint(40, (7,), generator=seeds.generator(4))
    with torch.no_grad():
        logits, _ = start(x[i])
    assert history[0] == pytest.approx(float(F.cross_entropy(logits.flatten(0, 1), y[i].flatten())), rel=1e-6)


def test_histogram_training_is_seeded():
    _, a = histogram.train_histogram(
        "positional", n_train=500, options=histogram.OPTIONS.replace(steps=15, seed=2)
    )
    _, b = histogram.train_histogram(
        "positional", n_train=500, options=histogram.OPTIONS.replace(steps=15, seed=2)
    )
    _, c = histogram.train_histogram(
        "positional", n_train=500, options=histogram.OPTIONS.replace(steps=15, seed=3)
    )
    assert max(abs(u - v) for u, v in zip(a, b, strict=True)) < 1e-6 and a != c


def test_the_model_refuses_tokens_outside_the_alphabet_and_other_lengths():
    model = histogram.HistogramModel()
    with pytest.raises(ValueError, match=r"x must be token ids in 0..14"):
        model(torch.tensor([[0] * 9 + [15]]))
    with pytest.raises(ValueError, match="trained for L = 10"):
        model(torch.zeros(1, 12, dtype=torch.long))
    with pytest.raises(ValueError, match="not in the alphabet"):
        toytasks.encode_letters("DATAIAIAIZ")
    with pytest.raises(ValueError, match="exactly 10 letters"):
        toytasks.encode_letters("DATA")


# ---------------------------------------------------------------- Dyck: the automaton


def _reference_valid(s: str, D: int) -> bool:
    """String rewriting: delete "()" and "[]" until nothing changes; valid iff nothing is left and the
    running count of open minus closing brackets never exceeds D."""
    t = s
    while "()" in t or "[]" in t:
        t = t.replace("()", "").replace("[]", "")
    running = list(itertools.accumulate(1 if c in "([" else -1 for c in s))
    return t == "" and max(running, default=0) <= D


def _reference_top(s: str, i: int) -> int:
    """The last unmatched open bracket after s[: i + 1]: the largest j ≤ i with s[j] open and
    s[j + 1 : i + 1] balanced (−1 if there is none)."""
    for j in range(i, -1, -1):
        if s[j] in "([" and _reference_valid(s[j + 1 : i + 1], 10**6):
            return j
    return -1


def test_the_automaton_agrees_with_string_rewriting_on_every_string_up_to_length_8():
    n_valid = 0
    for N in range(9):
        for chars in itertools.product("()[]", repeat=N):
            s = "".join(chars)
            for D in (2, 4):
                p = dyck.parse_dyck(s, 2, D)
                assert p.valid == _reference_valid(s, D), (s, D, p.error)
                n_valid += p.valid and D == 4
            if dyck.parse_dyck(s, 2, 4).valid:
                assert dyck.parse_dyck(s, 2, 4).top == [_reference_top(s, i) for i in range(N)]
    # Dyck_2 words of length 2m: Catalan(m) · 2^m; depth ≤ 4 removes none up to length 8
    assert n_valid == sum(math.comb(2 * m, m) // (m + 1) * 2**m for m in range(5))


def test_the_sampler_covers_exactly_the_valid_strings_of_length_6():
    samples = set(dyck.sample_dyck(3000, 6, D=2, seed=0))
    everything = {"".join(c) for c in itertools.product("()[]", repeat=6)}
    assert samples == {s for s in everything if _reference_valid(s, 2)}
    for s in dyck.sample_dyck(300, 24, D=4, seed=1):
        assert len(s) == 24 and _reference_valid(s, 4)


def test_targets_corruption_and_encoding():
    s = "([])[]"
    c, top = dyck.next_close_targets([s])
    assert top.tolist() == [[0, 1, 0, -1, 4, -1]] and c.tolist() == [[1, 2, 1, 0, 2, 0]]
    bad = dyck.corrupt(s, seed=5)
    assert sum(u != v for u, v in zip(s, bad, strict=True)) == 1
    assert dyck.encode_dyck([s]).tolist() == [[0, 2, 3, 1, 2, 3]]
    with pytest.raises(ValueError, match="is not a bracket"):
        dyck.encode_dyck(["(a)"])
    with pytest.raises(ValueError, match="closes nothing"):
        dyck.next_close_targets(["())("])
    assert "exceeds D = 2" in dyck.parse_dyck("((()))", D=2).error


def test_after_an_error_the_automaton_keeps_the_state_from_before_it():
    """Issue 29 item 4: a bracket that would exceed D is not pushed, like every other error: from the
    error's position on, depth and top are those of the prefix before it (hand-checked example, then
    every invalid string up to length 8 at D = 2 against the parse of its valid prefix)."""
    s = "[([]([])(()[][]))[[[(]]]"  # position 20's "(" would be the fifth open bracket
    p = dyck.parse_dyck(s)
    assert p.error == "position 20: depth 5 exceeds D = 4"
    assert p.depth[17:] == [2, 3, 4, 4, 4, 4, 4] and p.top[17:] == [17, 18, 19, 19, 19, 19, 19]
    n_errors = Counter()
    for N in range(1, 9):
        for chars in itertools.product("()[]", repeat=N):
            s = "".join(chars)
            p = dyck.parse_dyck(s, 2, 2)
            if not p.error.startswith("position "):
                continue
            e = int(p.error.split(":")[0].removeprefix("position "))
            before = dyck.parse_dyck(s[:e], 2, 2)
            assert before.error == "" or before.error.startswith("unbalanced"), s
            last_depth, last_top = (before.depth[-1], before.top[-1]) if e else (0, -1)
            assert p.depth == before.depth + [last_depth] * (N - e), s
            assert p.top == before.top + [last_top] * (N - e), s
            n_errors.update(k for k in ("exceeds D", "closes nothing", "does not match") if k in p.error)
    assert min(n_errors.values()) > 0 and len(n_errors) == 3


# ---------------------------------------------------------------- Dyck: the model


def test_dyck_model_attention_is_multi_head_attention_on_its_weights():
    torch.manual_seed(0)
    model = dyck_model.DyckModel(mlp=False)
    x = dyck.encode_dyck(dyck.sample_dyck(3, 12, seed=2))
    _, A = model(x)
    f = model.W_e(x) + model.W_p(torch.arange(12))
    W_q, W_k, W_v = model.W_qkv[0].weight.split(32, 0)
    out, A_ref = att.multi_head_attention(
        model.ln[0](f), W_q, W_k, W_v, model.W_o[0].weight, n_heads=2, mask=att.causal_mask(12)
    )
    torch.testing.assert_close(A[:, 0], A_ref)
    f = f + out
    W_q, W_k, W_v = model.W_qkv[1].weight.split(32, 0)
    _, A_ref = att.multi_head_attention(
        model.ln[2](f), W_q, W_k, W_v, model.W_o[1].weight, n_heads=2, mask=att.causal_mask(12)
    )
    torch.testing.assert_close(A[:, 1], A_ref)


def test_stack_share_against_a_loop_and_the_uniform_closed_form():
    strings = dyck.sample_dyck(5, 16, seed=3)
    _, top = dyck.next_close_targets(strings)
    g = torch.Generator().manual_seed(0)
    A = torch.rand(5, 2, 3, 16, 16, generator=g).softmax(-1)
    got = dyck_model.stack_share(A, top)
    for layer, head in itertools.product(range(2), range(3)):
        pairs = [(b, i) for b in range(5) for i in range(16) if top[b, i] >= 0]
        want = sum(float(A[b, layer, head, i, top[b, i]]) for b, i in pairs) / len(pairs)
        assert float(got[layer, head]) == pytest.approx(want)
    uniform = dyck_model.DyckModel(uniform_first=True)
    _, A = uniform(dyck.encode_dyck(strings))
    pairs = [(b, i) for b in range(5) for i in range(16) if top[b, i] >= 0]
    closed = sum(1 / (i + 1) for _, i in pairs) / len(pairs)
    assert dyck_model.stack_share(A, top)[0].tolist() == pytest.approx([closed] * 2)


def test_dyck_training_is_seeded_and_refuses_long_strings():
    _, a = dyck_model.train_dyck(
        n_train=64, away=0.5, options=dyck_model.OPTIONS.replace(seed=1, steps=6, batch_size=16)
    )
    _, b = dyck_model.train_dyck(
        n_train=64, away=0.5, options=dyck_model.OPTIONS.replace(seed=1, steps=6, batch_size=16)
    )
    assert max(abs(u - v) for u, v in zip(a, b, strict=True)) < 1e-6
    with pytest.raises(ValueError, match="at most T_max = 48"):
        dyck_model.DyckModel()(torch.zeros(1, 50, dtype=torch.long))


# ---------------------------------------------------------------- the solvable model


def test_student_is_attention_with_tied_rank_one_scores_and_the_teacher_by_hand():
    x, y, Q_star = solvable.solvable_data(7, 9, sigma=0.5, omega=0.3, seed=1)
    Q = torch.randn(9, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    h = (x @ Q / 3.0)[..., None]
    torch.testing.assert_close(solvable.student(Q, x), att.attention(h, h, x, scale=1.0)[0])
    p = torch.ones(9, dtype=torch.float64) / 3.0
    z = x - torch.stack([p, -p])
    for mu in range(7):
        s = [float(z[mu, a] @ Q_star) * float(z[mu, b] @ Q_star) / 9 for a in range(2) for b in range(2)]
        sm = torch.tensor(s, dtype=torch.float64).view(2, 2).softmax(-1)
        want = (0.7 * sm + 0.3 * torch.tensor(solvable.A_TEACHER, dtype=torch.float64)) @ z[mu]
        torch.testing.assert_close(y[mu], want)
    # Q = 0: uniform attention, f = the mean token; the loss is its squared error / 2d
    f0 = x.mean(1, keepdim=True).expand_as(x)
    want = ((y - f0) ** 2).sum() / (2 * 9 * 7)
    assert float(solvable.solvable_loss(torch.zeros(9, dtype=torch.float64), x, y)) == pytest.approx(
        float(want)
    )


def test_the_two_starts_end_in_their_own_minimum():
    x, y, Q_star = solvable.solvable_data(60, 30, seed=0)
    sem = solvable.fit_solvable("semantic", x, y, Q_star, options=solvable.OPTIONS.replace(steps=150))
    pos = solvable.fit_solvable("positional", x, y, Q_star, options=solvable.OPTIONS.replace(steps=150))
    assert float(Q_star @ sem / 30) > 5 * abs(float(Q_star @ pos / 30))
    assert abs(float(pos.sum() / 30)) > 5 * abs(float(sem.sum() / 30))


def test_replica_theta_is_the_covariance_of_the_pre_activations():
    """The theory's θ is E[(z·Q*/√d)(z·Q/√d)] for z ~ N(0, σ² I_d): estimated by sampling z."""
    g = torch.Generator().manual_seed(0)
    d, sigma = 16, 0.5
    Q_star, Q = (
        torch.randn(d, generator=g, dtype=torch.float64),
        torch.randn(d, generator=g, dtype=torch.float64),
    )
    Q = Q + 2 * Q_star  # an overlap well away from 0
    z = sigma * torch.randn(400_000, d, generator=g, dtype=torch.float64)
    covariance = float(((z @ Q_star / d**0.5) * (z @ Q / d**0.5)).mean())
    theta = float(Q_star @ Q / d)
    assert solvable.replica_theta(theta, sigma) == pytest.approx(covariance, rel=0.02)
    assert solvable.replica_theta(theta, sigma) != pytest.approx(theta, rel=0.5)


def test_the_sweep_reports_sign_free_overlaps_of_the_fitted_minima():
    """f_Q = f_{−Q}: the sign of Q is arbitrary, so the sweep averages |θ| and |m| over its seeds."""
    x, _, Q_star = solvable.solvable_data(5, 8, seed=3)
    Q = torch.randn(8, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    torch.testing.assert_close(solvable.student(Q, x), solvable.student(-Q, x))
    d, seeds, alpha = 20, 3, 1.5
    got = solvable.alpha_sweep(
        [alpha], d=d, seeds=seeds, n_test=50, options=solvable.OPTIONS.replace(steps=40)
    )
    for start in ("positional", "semantic"):
        thetas, ms = [], []
        for seed in range(seeds):
            x, y, Q_star = solvable.solvable_data(30, d, seed=1000 + seed, teacher_seed=seed)
            Q = solvable.fit_solvable(start, x, y, Q_star, options=solvable.OPTIONS.replace(steps=40))
            thetas.append(abs(float(Q_star @ Q)) / d)
            ms.append(abs(float(Q.sum())) / d)
        assert got[start]["theta"][0] == pytest.approx(sum(thetas) / seeds)
        assert got[start]["m"][0] == pytest.approx(sum(ms) / seeds)


def test_crossing_and_the_papers_alpha_c():
    assert solvable.crossing([0, 1, 2], [0.0, 1.0, 2.0], [1.5, 1.5, 1.5]) == pytest.approx(1.5)
    assert solvable.crossing([0, 1], [0.0, 1.0], [2.0, 3.0]) is None
    alphas, values = list(solvable.PAPER_PHI), list(solvable.PAPER_PHI.values())
    alpha_c = solvable.crossing(alphas, [v[0] for v in values], [v[1] for v in values])
    assert 1.25 < alpha_c < 1.36


# ---------------------------------------------------------------- the shipped models


@pytest.mark.numerics
def test_the_shipped_models_are_current_and_give_their_recorded_numbers():
    """Rerun `python scripts/train_toytasks.py` after changing the training code. Re-evaluating the
    shipped weights is deterministic up to float summation order: every recorded metric to 1e-6."""
    metrics = json.loads(toytasks.METRICS.read_text())
    assert metrics["fingerprint"] == toytasks.fingerprint(), "stale: rerun scripts/train_toytasks.py"
    hist, dyck_models, _ = toytasks.load_toytasks()
    x, y = histogram.histogram_data(5000, seed=999)
    for name, model in hist.items():
        rec = metrics["histogram"][name]
        rescored(
            f"histogram {name}",
            "test accuracy",
            histogram.histogram_accuracy(model, x, y),
            rec["test accuracy"],
            1e-6,
        )
        assert rec["test accuracy"] >= 0.99, name
        for block in histogram.BLOCKS:
            got = histogram.off_block_share(model, block)
            assert got == pytest.approx(rec[f"outside {block} block"], abs=1e-6), (name, block)
    for block in histogram.BLOCKS:
        W = hist[f"{block}, restricted"].weight().detach()
        W_free = hist[f"{block}, restricted → unrestricted"].weight().detach()
        moved = float((W_free - W).norm() / W.norm())
        rec = metrics["histogram"][f"{block}, restricted → unrestricted"]["relative change of W"]
        assert moved == pytest.approx(rec, abs=1e-6), block
    test = dyck.sample_dyck(1000, 24, seed=999)
    _, top = dyck.next_close_targets(test)
    for name, model in dyck_models.items():
        rec = metrics["dyck"][name][0]
        with torch.no_grad():
            share = dyck_model.stack_share(model(dyck.encode_dyck(test))[1], top)
        torch.testing.assert_close(share, torch.tensor(rec["stack share"]), atol=1e-6, rtol=0)
        rescored(
            f"dyck {name}", "test accuracy", dyck_model.dyck_accuracy(model, test), rec["test accuracy"], 1e-6
        )
    assert all(r["test accuracy"] >= 0.98 for runs in metrics["dyck"].values() for r in runs)


@pytest.mark.numerics
def test_the_shipped_sweep_at_alpha_2_is_what_the_code_computes():
    """The α = 2, d = 100 point of the shipped sweep (the overlaps the lesson compares with the paper)."""
    metrics = json.loads(toytasks.METRICS.read_text())
    i, run = metrics["settings"]["alphas"].index(2.0), metrics["sweep"]["100"]
    got = solvable.alpha_sweep([2.0], d=100, seeds=run["seeds"])
    for start in ("positional", "semantic"):
        for key in ("train", "test", "theta", "m"):
            assert got[start][key][0] == pytest.approx(run[start][key][i], rel=1e-6), (start, key)


@pytest.mark.numerics
def test_retraining_the_restricted_semantic_model_reproduces_its_recorded_metrics():
    """Checked by what it does, not by its bits (issue 28): on another CPU the retrained weights differ
    (float reductions are summed in another order and 1,500 Adam steps amplify it), so the retrained
    model must land where another seed would. Measured by running this same call with ``seed=`` 0–5
    (AMD EPYC, one thread): test accuracy 0.99684–0.99860 (range 0.0018), same-token share
    0.450–0.467 (range 0.017). The tolerance is that across-seed range, rounded up: 0.002 and 0.02. The
    off-block shares are 0 and 1 by construction of the restriction, so they hold exactly."""
    hist, _, metrics = toytasks.load_toytasks()
    rec = metrics["histogram"]["semantic, restricted"]
    model, _ = histogram.train_histogram(
        "semantic",
        restrict=True,
        options=histogram.OPTIONS.replace(steps=metrics["settings"]["histogram steps"]),
    )
    x, y = histogram.histogram_data(5000, seed=999)
    assert histogram.histogram_accuracy(model, x, y) == pytest.approx(rec["test accuracy"], abs=0.002)
    assert histogram.off_block_share(model, "semantic") == rec["outside semantic block"] == 0.0
    assert histogram.off_block_share(model, "positional") == rec["outside positional block"] == 1.0
    with torch.no_grad():
        same, same_shipped = (
            histogram.same_token_share(m(x)[1], x) for m in (model, hist["semantic, restricted"])
        )
    assert same == pytest.approx(same_shipped, abs=0.02)


# ---------------------------------------------------------------- exercises


def test_the_checkers_pass_solutions_and_name_mistakes(capsys):
    assert ex.check_histogram_labels(lambda x: (x[:, None] == x[None, :]).sum(-1))
    assert not ex.check_histogram_labels(lambda x: (x[:, None] == x[None, :]).sum(-1) - 1)
    assert "counts itself" in capsys.readouterr().out
    assert ex.check_histogram_labels(lambda x: torch.bincount(x)[x].float())
    for wrong, hint in [
        (lambda x: torch.bincount(x), "one count per token value"),
        (lambda x: x[:, None] == x[None, :], "sum it over j"),
        (lambda x: (x[:, None] == x[None, :]).float().mean(-1), "a share"),
    ]:
        assert not ex.check_histogram_labels(wrong)
        assert hint in capsys.readouterr().out
    assert ex.check_stack_tops(lambda s: dyck.parse_dyck(s).top)
    assert ex.check_stack_tops(lambda s: torch.tensor(dyck.parse_dyck(s).top))
    assert not ex.check_stack_tops(lambda s: [i if c in "([" else -1 for i, c in enumerate(s)])
    assert "✘" in capsys.readouterr().out
    for wrong, hint in [
        (lambda s: [-1] + dyck.parse_dyck(s).top[:-1], "*after* reading position i"),
        (lambda s: dyck.parse_dyck(s).depth, "the depth of the stack"),
        (lambda s: [s[t] if t >= 0 else -1 for t in dyck.parse_dyck(s).top], "not the bracket"),
        (lambda s: [t if t >= 0 else None for t in dyck.parse_dyck(s).top], "got None"),
    ]:
        assert not ex.check_stack_tops(wrong)
        assert hint in capsys.readouterr().out


# ---------------------------------------------------------------- panels


def test_the_panels_draw_and_refuse_bad_input_in_one_line():
    from xai_tf.widgets import toytasks as panels

    torch.manual_seed(0)
    hist_models = {"a": histogram.HistogramModel(), "b": histogram.HistogramModel(block="semantic")}
    hist = panels.histogram_panel(hist_models)
    assert hist.message.value == "" and "<svg" in hist.view.value
    hist["model"].value = "b"
    assert hist.message.value == "" and "A(x): b" in hist.view.value
    # the table shows model b's argmax and the true counts (counted here by Counter), row by row
    with torch.no_grad():
        pred = hist_models["b"](toytasks.encode_letters("DATAIAIAIA"))[0][0].argmax(-1).tolist()
    true = [Counter("DATAIAIAIA")[c] for c in "DATAIAIAIA"]
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", hist.view.value)[3:]
    assert [int(c) for c in cells[1::3]] == pred and [int(c) for c in cells[2::3]] == true
    right = sum(p == t for p, t in zip(pred, true, strict=True))
    assert f"{right} of 10 counts right" in hist.view.value
    for text, message in [("DATAIAIAIZ", "not in the alphabet"), ("DATA", "exactly 10 letters")]:
        hist["text"].value = text
        assert message in hist.message.value and hist.view.value == ""
    net_model = dyck_model.DyckModel()
    net = panels.dyck_panel({"free": net_model})
    assert net.message.value == "" and "share on s(i)" in net.view.value
    assert net.view.value.count('stroke="#1f77b4"') == sum(
        t >= 0 for t in dyck.parse_dyck("([[]()])[(())]").top
    )
    net["head"].value = 2
    assert "layer 2, head 2" in net.view.value
    s = "([[]()])[(())]"
    with torch.no_grad():
        A = net_model(dyck.encode_dyck([s]))[1]
    share = dyck_model.stack_share(A, dyck.next_close_targets([s])[1])[1, 1]
    assert f"share on s(i) = {float(share):.2f}" in net.view.value
    for text, message in [
        ("(]", "does not match"),
        ("(()", "unbalanced"),
        ("(a)", "is not a bracket"),
        ("()" * 13, "trained on 24 brackets"),
        ("((((()))))", "exceeds D = 4"),
    ]:
        net["text"].value = text
        assert message in net.message.value and net.view.value == "", text
    with pytest.raises(TypeError, match="models must be a non-empty dict"):
        panels.histogram_panel({})


# ---------------------------------------------------------------- bad input: documented values


@pytest.mark.parametrize("name", [v[0] for v in probes_toytasks.VALUES])
def test_documented_values_at_the_edges(name):
    _, call, check = next(v for v in probes_toytasks.VALUES if v[0] == name)
    assert check(call()), name


def test_the_fingerprint_covers_every_module_the_training_script_imports():
    """TRAINED_BY is not a hand list of files: each xai_tf module scripts/train_toytasks.py imports
    (toytasks itself only loads and names the artifact) lies in the import graph it fingerprints."""
    tree = ast.parse((Path(__file__).parents[1] / "scripts" / "train_toytasks.py").read_text())
    imported = {
        f"{node.module}.{a.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "xai_tf.tasks"
        for a in node.names
    }
    graph = artifacts.import_graph(*toytasks.TRAINED_BY)
    assert imported - {"xai_tf.tasks.toytasks"} <= graph, imported - graph
    assert {"xai_tf.training", "xai_tf.seeds", "xai_tf.tasks.dyck"} <= graph


def test_the_dyck_panel_sliders_follow_the_picked_model():
    from xai_tf.widgets import toytasks as panels

    with seeds.seeded(0):
        models = {"two": dyck_model.DyckModel(), "one": dyck_model.DyckModel(n_layer=1, n_head=1)}
    net = panels.dyck_panel(models)
    net["head"].value = 2
    net["model"].value = "one"
    assert (net["layer"].max, net["head"].max) == (1, 1)
    assert net.message.value == "" and "one, layer 1, head 1" in net.view.value
    net["model"].value = "two"
    assert (net["layer"].max, net["head"].max) == (2, 2)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: histogram.HistogramModel(d_tok=10**6), r"d_tok must be an integer in 1..4096, got 1000000"),
        (lambda: histogram.HistogramModel(L=10**5), r"L must be an integer in 1..64, got 100000"),
        (lambda: dyck_model.DyckModel(d=30, n_head=4), "d = 30 must be divisible by n_head = 4"),
        (lambda: dyck_model.DyckModel(T_max=10**6), r"T_max must be an integer in 1..4096, got 1000000"),
        (lambda: dyck_model.DyckModel()(torch.tensor([[0, 7]])), r"x must be token ids in 0..3"),
    ],
)
def test_the_models_refuse_sizes_and_tokens_before_allocating(build, message):
    with pytest.raises(ValueError, match=message):
        build()
