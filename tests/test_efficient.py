"""Lesson 14's helpers (xai_tf.efficient) against independent references: torch's
scaled_dot_product_attention, closed forms, networkx shortest paths, the entmax package's gradient
in α, finite differences and torch.autograd.gradcheck. No timed assertions."""

import math

import entmax as reference
import networkx as nx
import pytest
import torch
import torch.nn.functional as F

from xai_tf import attention as att
from xai_tf import seeds
from xai_tf.efficient import adaptive, chunked, compare, cost, linear, linformer, performer, positions, sparse
from xai_tf.tasks import offsets

SDPA = F.scaled_dot_product_attention
TOL = {torch.float32: 1e-6, torch.float64: 1e-12}


def qkv(*shape, n=None, m=None, dtype=torch.float64, seed=0, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    n, m, d = n or 37, m or n or 37, 16
    Q = torch.randn(*shape, n, d, generator=g, dtype=dtype) * scale
    K = torch.randn(*shape, m, d, generator=g, dtype=dtype) * scale
    V = torch.randn(*shape, m, 5, generator=g, dtype=dtype)
    return Q, K, V


# ---------------------------------------------------------------- exact attention, chunked


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize(("chunk", "q_chunk"), [(1, None), (7, None), (16, 5), (64, 64), (300, 11)])
def test_chunked_attention_equals_full_attention(dtype, causal, chunk, q_chunk):
    Q, K, V = qkv(2, 3, n=61, dtype=dtype)
    want = SDPA(Q, K, V, is_causal=causal)
    got = chunked.chunked_attention(Q, K, V, chunk, causal=causal, query_chunk_size=q_chunk)
    assert (got - want).abs().max().item() <= TOL[dtype]
    assert (chunked.naive_attention(Q, K, V, causal=causal) - want).abs().max().item() <= TOL[dtype]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_chunked_attention_with_a_mask_and_more_keys_than_queries(dtype):
    Q, K, V = qkv(2, n=19, m=45, dtype=dtype, seed=1)
    mask = torch.rand(19, 45, generator=torch.Generator().manual_seed(2)) > 0.4
    mask[:, 0] = True  # every query sees something (sdpa gives NaN for an empty row)
    want = SDPA(Q, K, V, attn_mask=mask)
    got = chunked.chunked_attention(Q, K, V, 8, mask=mask, query_chunk_size=6)
    assert (got - want).abs().max().item() <= TOL[dtype]
    # causal with m > n: query i sees keys j ≤ i + (m − n) (the last query sees everything)
    bottom_right = torch.ones(19, 45, dtype=torch.bool).tril(45 - 19)
    want = SDPA(Q, K, V, attn_mask=bottom_right)
    assert (chunked.chunked_attention(Q, K, V, 8, causal=True) - want).abs().max().item() <= TOL[dtype]


def test_a_query_that_sees_nothing_gets_zeros_not_nan():
    Q, K, V = qkv(n=6)
    mask = torch.ones(6, 6, dtype=torch.bool)
    mask[2] = False
    for fn in (
        lambda: chunked.chunked_attention(Q, K, V, 4, mask=mask),
        lambda: chunked.naive_attention(Q, K, V, mask=mask),
    ):
        out = fn()
        assert torch.isfinite(out).all() and (out[2] == 0).all()


def test_online_softmax_update_over_chunks_is_softmax_in_closed_form():
    g = torch.Generator().manual_seed(3)
    s, v = (
        torch.randn(4, 23, generator=g, dtype=torch.float64) * 5,
        torch.randn(23, 3, generator=g, dtype=torch.float64),
    )
    s[:, :5] = float("-inf")  # the first chunk is all masked: m stays −∞, no NaN
    m, ell, acc = (
        torch.full((4, 1), float("-inf"), dtype=torch.float64),
        torch.zeros(4, 1, dtype=torch.float64),
        torch.zeros(4, 3, dtype=torch.float64),
    )
    for j0 in range(0, 23, 5):
        m, ell, acc = chunked.online_softmax_update(m, ell, acc, s[:, j0 : j0 + 5], v[j0 : j0 + 5])
        assert torch.isfinite(ell).all() and torch.isfinite(acc).all()
    e = torch.exp(s - s.max(-1, keepdim=True).values)
    assert torch.allclose(m, s.max(-1, keepdim=True).values)
    assert torch.allclose(acc / ell, (e / e.sum(-1, keepdim=True)) @ v, atol=1e-14, rtol=0)


def test_peak_bytes_of_known_allocations():
    mib = 2**20

    def two_buffers():
        a = torch.empty(mib // 4)  # 1 MiB of float32
        b = torch.empty(2 * mib // 4)  # 2 MiB, while a is alive
        del a
        return b

    assert 3 * mib <= cost.peak_bytes(two_buffers) < 3 * mib + 64 * 1024


def test_chunked_attention_never_holds_the_n_by_n_scores():
    n, d = 1024, 32
    Q, K, V = (torch.randn(1, n, d) for _ in range(3))
    naive = cost.peak_bytes(lambda: chunked.naive_attention(Q, K, V))
    small = cost.peak_bytes(lambda: chunked.chunked_attention(Q, K, V, 128, query_chunk_size=256))
    assert naive >= n * n * 4  # at least one float32 score matrix
    assert small < n * n * 4 / 4  # a [256, 128] block, the output and the running sums


def test_full_attention_too_big_for_memory_is_refused_before_allocating():
    big = torch.zeros(1, 1, 16).expand(1, 10**6, 16)  # a view: no memory; the scores would need 12 TB

    def attempt() -> None:
        with pytest.raises(ValueError, match="needs .* GiB, more than"):
            chunked.naive_attention(big, big, big)

    assert (
        cost.peak_bytes(attempt) < 2**30
    )  # the checks read the 64 MB inputs; the 12 TB of scores never exist


# ---------------------------------------------------------------- sparse patterns


def _loop_mask(n, rule):
    return torch.tensor([[rule(i, j) for j in range(n)] for i in range(n)])


@pytest.mark.parametrize("n", [1, 5, 12])
def test_masks_follow_their_definitions(n):
    for window in range(1, n + 1):
        want = _loop_mask(n, lambda i, j, w=window: 0 <= i - j <= w)
        assert torch.equal(sparse.sliding_window_mask(n, window), want)
        want = _loop_mask(n, lambda i, j, w=window: abs(i - j) <= w)
        assert torch.equal(sparse.sliding_window_mask(n, window, causal=False), want)
        want = _loop_mask(n, lambda i, j, w=window: j <= i and (i - j) % w == 0)
        assert torch.equal(sparse.strided_mask(n, window), want)


@pytest.mark.parametrize(("n", "stride"), [(16, 4), (30, 5), (25, 7)])
def test_sparse_transformer_pattern_connects_every_pair_in_two_steps(n, stride):
    M = sparse.sparse_transformer_mask(n, stride)
    graph = nx.DiGraph([(j, i) for i in range(n) for j in range(n) if M[i, j] and i != j])
    graph.add_nodes_from(range(n))
    hops = dict(nx.all_pairs_shortest_path_length(graph))
    assert max(hops[j][i] for i in range(n) for j in range(i)) <= 2
    assert M.sum() < n * (n + 1) / 2 or n <= stride  # and it is sparser than the causal mask


@pytest.mark.parametrize("window", [1, 4, 36, 37])
def test_windowed_attention_equals_sdpa_with_the_window_mask(window):
    Q, K, V = qkv(3, n=37)
    want = SDPA(Q, K, V, attn_mask=sparse.sliding_window_mask(37, window))
    assert (sparse.windowed_attention(Q, K, V, window) - want).abs().max() < 1e-12
    assert (
        sparse.sparse_attention(Q, K, V, sparse.strided_mask(37, 3))
        - SDPA(Q, K, V, attn_mask=sparse.strided_mask(37, 3))
    ).abs().max() < 1e-12


# ---------------------------------------------------------------- linear attention


def _phi(x):  # elu(x) + 1 written out: x + 1 above 0, eˣ at or below
    return torch.where(x > 0, x + 1, torch.exp(x))


@pytest.mark.parametrize("chunk", [1, 5, 64, 100])
def test_linear_attention_prefix_sums_equal_the_quadratic_form(chunk):
    Q, K, V = qkv(2, n=53, seed=4)
    A = (_phi(Q) @ _phi(K).transpose(-2, -1)).tril()
    want = (A / A.sum(-1, keepdim=True)) @ V
    assert (linear.linear_attention_quadratic(Q, K, V) - want).abs().max() < 1e-12
    assert (linear.linear_attention(Q, K, V, chunk_size=chunk) - want).abs().max() < 1e-12
    A = _phi(Q) @ _phi(K).transpose(-2, -1)
    want = (A / A.sum(-1, keepdim=True)) @ V
    assert (linear.linear_attention(Q, K, V, causal=False) - want).abs().max() < 1e-12
    assert (linear.linear_attention_quadratic(Q, K, V, causal=False) - want).abs().max() < 1e-12


# ---------------------------------------------------------------- Performer


@pytest.mark.parametrize("orthogonal", [True, False])
@pytest.mark.parametrize("pair", range(4))
def test_performer_kernel_estimate_is_unbiased(orthogonal, pair):
    g = torch.Generator().manual_seed(pair)
    q, k = (torch.randn(1, 8, generator=g, dtype=torch.float64) * 0.5 for _ in range(2))
    exact = math.exp((q @ k.T).item())
    draws = 8000  # independent estimates, each from 4 features
    W = performer.random_features(4 * draws, 8, torch.Generator().manual_seed(6), orthogonal, torch.float64)
    fq, fk = performer.positive_features(q, W), performer.positive_features(k, W)  # each / √(4·draws)
    per_draw = (fq * fk).reshape(draws, 4).sum(-1) * draws  # the estimate of each block of 4 rows
    mean, se = per_draw.mean().item(), per_draw.std().item() / math.sqrt(draws)
    assert abs(mean - exact) < 3.5 * se, (mean, exact, se)
    assert se < 0.05 * exact  # the test has power: a bias of 18 % of the kernel would fail it


def test_orthogonal_features_are_orthogonal_within_a_block():
    W = performer.random_features(12, 8, torch.Generator().manual_seed(0), dtype=torch.float64)
    block = W[:8] @ W[:8].T
    assert (block - torch.diag(torch.diagonal(block))).abs().max() < 1e-12


def test_performer_attention_converges_to_softmax_attention_as_features_grow():
    Q, K, V = qkv(n=64, seed=7, scale=0.5)
    full = SDPA(Q, K, V)
    errors = [
        sum(cost.relative_error(performer.performer_attention(Q, K, V, m, seed=s), full) for s in range(4))
        / 4
        for m in (16, 256, 4096)
    ]
    assert errors[0] > errors[1] > errors[2]
    W = performer.random_features(64, 16, torch.Generator().manual_seed(1), dtype=torch.float64)
    fq, fk = performer.positive_features(Q * 16**-0.25, W), performer.positive_features(K * 16**-0.25, W)
    A = fq @ fk.T  # the plain (unstabilised) estimate, normalised by hand
    assert (
        performer.performer_attention(Q, K, V, W=W) - (A / A.sum(-1, keepdim=True)) @ V
    ).abs().max() < 1e-12


# ---------------------------------------------------------------- Linformer


def test_linformer_with_rank_n_and_identity_projections_is_full_attention():
    Q, K, V = qkv(2, n=29)
    eye = torch.eye(29, dtype=torch.float64)
    assert (linformer.linformer_attention(Q, K, V, E=eye, F=eye) - SDPA(Q, K, V)).abs().max() < 1e-12
    assert (
        linformer.linformer_attention(Q, K, V, rank=29) - SDPA(Q, K, V)
    ).abs().max() < 1e-12  # pooling, k = n


def test_linformer_pooling_averages_blocks():
    E, F_ = linformer.linformer_projections(10, 3)
    assert torch.equal(E, F_) and torch.allclose(E.sum(-1), torch.ones(3)) and (E > 0).sum() == 10
    blocks = [tuple(row.nonzero().flatten().tolist()) for row in E]
    assert blocks == [(0, 1, 2, 3), (4, 5, 6), (7, 8, 9)]
    E, _ = linformer.linformer_projections(2000, 50, "gaussian", dtype=torch.float64)
    assert abs(E.var().item() * 50 - 1) < 0.05


# ---------------------------------------------------------------- cost, exponents, connectivity


def test_fit_exponent_and_crossover_on_known_curves():
    ns = [128, 256, 512, 1024]
    assert cost.fit_exponent(ns, [3 * n**2 for n in ns]) == pytest.approx(2)
    assert cost.fit_exponent(ns, [5 + n for n in ns], last=2) == pytest.approx(math.log(1029 / 517, 2))
    assert cost.crossover(ns, [n**2 for n in ns], [300 * n for n in ns]) == 512
    assert cost.crossover(ns, [1, 1, 1, 1], [2, 0, 2, 0]) == 1024
    assert cost.crossover(ns, [1, 1, 1, 1], [2, 2, 2, 2]) is None


@pytest.mark.parametrize("n", [20, 37])
def test_multiply_adds_match_torchs_flop_counter_and_the_lstm_weights(n):
    from torch.utils.flop_counter import FlopCounterMode

    d = 16
    with torch.no_grad(), FlopCounterMode(display=False) as counter:  # counts every matmul's m·k·n
        cost.layer("self-attention", n, d, width=3)(torch.randn(1, n, d))
    assert cost.multiply_adds("self-attention", n, d) == counter.get_total_flops() // 2
    lstm = torch.nn.LSTM(d, d)  # one multiply-add per weight of W_ih and W_hh per position
    assert cost.multiply_adds("LSTM", n, d) == n * (lstm.weight_ih_l0.numel() + lstm.weight_hh_l0.numel())
    assert cost.multiply_adds("self-attention", 160, 64) == cost.multiply_adds("LSTM", 160, 64)  # n = 2.5 d


def test_approximation_errors_uniform_bars_and_outside_weight_by_hand():
    n, d, sigma = 12, 4, 0.7
    r = compare.approximation_errors(sigma, n=n, d=d, knobs=[2, n], seed=5, feature_draws=1, window=3)
    g = seeds.generator(5)  # the same draw, redone by hand in float64 loops
    Q, K = (torch.randn(1, n, d, generator=g, dtype=torch.float64) * sigma for _ in range(2))
    V = torch.randn(1, n, d, generator=g, dtype=torch.float64)[0]
    S = (Q[0] @ K[0].T / math.sqrt(d)).tolist()
    full = torch.zeros(n, d, dtype=torch.float64)
    causal = torch.zeros(n, d, dtype=torch.float64)
    outside = 0.0
    for i in range(n):
        w = [math.exp(s) for s in S[i]]
        full[i] = sum(w[j] * V[j] for j in range(n)) / sum(w)
        c = sum(w[: i + 1])
        causal[i] = sum(w[j] * V[j] for j in range(i + 1)) / c
        outside += sum(w[j] for j in range(i - 3)) / c / n if i > 3 else 0.0
    uniform = V.mean(0).expand(n, d)
    prefix = torch.stack([V[: i + 1].mean(0) for i in range(n)])
    assert r["uniform"] == pytest.approx(float((uniform - full).norm() / full.norm()), rel=1e-12)
    assert r["causal uniform"] == pytest.approx(float((prefix - causal).norm() / causal.norm()), rel=1e-12)
    assert r["outside window"] == pytest.approx(outside, rel=1e-12)
    assert r["Linformer, pooled (rank k)"][-1] < 1e-12 and r["sliding window (l), causal"][-1] < 1e-12


def _reference_graph(kind, n, width):
    """The layer's one-step edges j → i written from the table's definitions."""
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            if (
                kind == "self-attention"
                or (kind == "recurrent" and i == j + 1)
                or (kind == "convolution" and abs(i - j) <= width // 2)
                or (kind == "restricted attention" and abs(i - j) <= width)
            ):
                g.add_edge(j, i)
    return g


@pytest.mark.parametrize(
    ("kind", "width", "n"),
    [
        (kind, width, n)
        for kind, width in [
            ("self-attention", 3),
            ("recurrent", 3),
            ("convolution", 3),
            ("convolution", 7),
            ("restricted attention", 4),
        ]
        for n in (2, 9, 40)
        if width <= n
    ],
)
def test_max_path_length_matches_networkx_and_the_closed_form(kind, width, n):
    hops = dict(nx.all_pairs_shortest_path_length(_reference_graph(kind, n, width)))
    want = max(hops[j][i] for i in range(n) for j in range(i))
    assert cost.max_path_length(kind, n, width) == want
    closed = {
        "self-attention": 1,
        "recurrent": n - 1,
        "convolution": math.ceil((n - 1) / (width // 2)),
        "restricted attention": math.ceil((n - 1) / width),
    }
    assert want == closed[kind]


@pytest.mark.parametrize("kind", cost.KINDS)
def test_sequential_operations_match_the_longest_chain_in_networkx(kind):
    n = 17
    chain = nx.DiGraph()
    chain.add_nodes_from(range(n))
    if kind == "recurrent":
        chain.add_edges_from((i - 1, i) for i in range(1, n))  # h_i waits for h_{i−1}
    assert cost.sequential_operations(kind, n, 3) == nx.dag_longest_path_length(chain) + 1
    assert cost.sequential_operations(kind, n, 3) == (n if kind == "recurrent" else 1)


def test_every_layer_runs_and_returns_its_shape():
    E = torch.randn(1, 40, 16)
    for method in cost.METHODS:
        with torch.no_grad():
            out = cost.layer(method, 40, 16, width=5)(E)
        assert out.shape == (1, 40, 16), method
    result = cost.measure("restricted attention", 64, 16, width=4, repeats=1)
    assert result["seconds"] > 0 and result["peak_bytes"] > 0


# ---------------------------------------------------------------- adaptive sparsity


@pytest.mark.parametrize("alpha", [1.1, 1.3, 1.5, 1.75, 2.0])
def test_alpha_gradient_closed_form_matches_finite_differences_and_entmax_bisect(alpha):
    g = torch.Generator().manual_seed(8)
    z, w = (
        torch.randn(6, 9, generator=g, dtype=torch.float64) * 2,
        torch.randn(6, 9, generator=g, dtype=torch.float64),
    )
    closed = adaptive.entmax_alpha_grad(att.entmax(z, alpha), alpha)
    h = 1e-6
    fd = (att.entmax(z, alpha + h) - att.entmax(z, alpha - h)) / (2 * h)
    assert (closed - fd).abs().max() < 1e-6
    a = torch.tensor(alpha, dtype=torch.float64, requires_grad=True)
    (reference.entmax_bisect(z, a, -1, n_iter=100) * w).sum().backward()
    assert (closed * w).sum().item() == pytest.approx(a.grad.item(), rel=1e-6, abs=1e-9)


def test_entmax_heads_gradcheck_in_scores_and_alpha():
    g = torch.Generator().manual_seed(9)
    z = (torch.randn(2, 3, 2, 6, generator=g, dtype=torch.float64) * 2).requires_grad_()
    alpha = torch.tensor([1.2, 1.5, 1.8], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(adaptive.entmax_heads, (z, alpha), eps=1e-6, atol=1e-5)
    out = adaptive.entmax_heads(z, alpha)
    for h, a in enumerate(alpha.tolist()):
        assert torch.allclose(out[:, h], reference.entmax_bisect(z[:, h], a, -1, n_iter=100), atol=1e-10)


def test_alpha_task_targets_and_trained_heads_end_at_different_alpha():
    s, v, y = adaptive.alpha_task(5, T=7, seed=1)
    assert torch.allclose(y[:, 0], v.gather(1, s.argmax(1, keepdim=True))[:, 0])
    assert torch.allclose(y[:, 2], (torch.softmax(s, -1) * v).sum(-1))
    model, history = adaptive.train_alpha_heads(options=adaptive.OPTIONS.replace(steps=120))
    alpha = model.alpha.detach()
    assert history[-1] < history[0] / 20
    assert alpha[0] > alpha[2] + 0.3  # the argmax head ends sparser than the softmax head


# ---------------------------------------------------------------- positions


def test_offset_task_targets():
    x, y = offsets.offset_batch(4, 9, offset=3, seed=2)
    assert (y[:, :3] == offsets.IGNORE).all() and torch.equal(y[:, 3:], x[:, :6])


def test_relative_attention_matches_shaw_et_al_written_as_loops():
    torch.manual_seed(0)
    model = positions.OffsetModel("relative", d=8, clip=2)
    x = torch.randint(10, (2, 6))
    E = model.W_e[x]
    Q, K, V = E @ model.W_q.T, E @ model.W_k.T, E @ model.W_v.T
    want = torch.zeros(2, 6, 8)
    for b in range(2):
        for i in range(6):
            r = [min(max(j - i, -2), 2) + 2 for j in range(i + 1)]
            z = torch.stack([Q[b, i] @ (K[b, j] + model.a_K[r[j]]) for j in range(i + 1)]) / math.sqrt(8)
            p = z.softmax(0)
            want[b, i] = sum(p[j] * (V[b, j] + model.a_V[r[j]]) for j in range(i + 1))
    logits = torch.cat([want, E], -1) @ model.W_o.T
    assert torch.allclose(model(x), logits, atol=1e-5)


def test_relative_positions_generalise_to_longer_sequences_and_absolute_do_not():
    relative, _ = positions.train_offset_model("relative", options=positions.OPTIONS.replace(steps=150))
    absolute, _ = positions.train_offset_model("absolute", options=positions.OPTIONS.replace(steps=150))
    assert positions.offset_accuracy(relative, 16) > 0.95 and positions.offset_accuracy(absolute, 16) > 0.95
    assert positions.offset_accuracy(relative, 64) > 0.95
    assert positions.offset_accuracy(absolute, 64) < 0.6
    with pytest.raises(ValueError, match="W_p has T_max = 64"):
        absolute(torch.zeros(1, 65, dtype=torch.long))


# ---------------------------------------------------------------- exercises and the panel


def _no_rescale(m, ell, acc, s, v):
    m_new = torch.maximum(m, s.amax(-1, keepdim=True))
    e = (s - m_new.masked_fill(m_new == float("-inf"), 0)).exp()
    return m_new, ell + e.sum(-1, keepdim=True), acc + e @ v


def _nan_on_empty(m, ell, acc, s, v):
    m_new = torch.maximum(m, s.amax(-1, keepdim=True))
    e, r = (s - m_new).exp(), (m - m_new).exp()
    return m_new, r * ell + e.sum(-1, keepdim=True), r * acc + e @ v


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (chunked.online_softmax_update, "✔ online softmax update: all 3 cases pass"),
        (_no_rescale, "without rescaling it by e^(m − m′)"),
        (_nan_on_empty, "has NaN after chunk 0"),
        (lambda *a: None, "returned None: did you forget"),
        (lambda m, ell, acc, s, v: (m, ell), "return a triple"),
    ],
)
def test_online_softmax_checker(fn, message, capsys):
    from xai_tf.exercises.efficient import check_online_softmax_update

    assert check_online_softmax_update(fn) == message.startswith("✔")
    assert message in capsys.readouterr().out


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (lambda n, w: sparse.sliding_window_mask(n, w), "✔ sliding-window mask: all 4 cases pass"),
        (lambda n, w: sparse.sliding_window_mask(n, w, causal=False), "which is in its future"),
        (
            lambda n, w: (
                sparse.sliding_window_mask(n, max(w - 1, 1)) if w > 1 else torch.eye(n, dtype=torch.bool)
            ),
            "row",
        ),
        (lambda n, w: sparse.sliding_window_mask(n, w).float(), "should be boolean"),
        (lambda n, w: None, "returned None: did you forget"),
    ],
)
def test_sliding_window_checker(fn, message, capsys):
    from xai_tf.exercises.efficient import check_sliding_window_mask

    assert check_sliding_window_mask(fn) == message.startswith("✔")
    assert message in capsys.readouterr().out


def _window_error_by_hand(n: int, d: int, w: int, scale: float = 0.5) -> float:
    """‖Y_window − Y_causal‖/‖Y_causal‖ on the panel's seeded inputs, by a loop over queries in float64."""
    g = seeds.generator(0)
    Q, K = (torch.randn(1, n, d, generator=g)[0].double() * scale for _ in range(2))
    V = torch.randn(1, n, d, generator=g)[0].double()

    def attend(i: int, first: int) -> torch.Tensor:
        p = torch.softmax(K[first : i + 1] @ Q[i] / d**0.5, 0)
        return p @ V[first : i + 1]

    window = torch.stack([attend(i, max(0, i - w)) for i in range(n)])
    causal = torch.stack([attend(i, 0) for i in range(n)])
    return float((window - causal).norm() / causal.norm())


def test_efficiency_panel_draws_every_method_and_caps_n():
    from xai_tf.widgets.efficient import METHODS, efficiency_panel

    panel = efficiency_panel(max_n=256)
    panel["n"].value, panel["width"].value = 64, 8
    for method in METHODS:
        panel["method"].value = method
        assert panel.message.value == "" and "<svg" in panel.view.value, method
    panel["method"].value = "sliding window (causal)"
    assert f"{_window_error_by_hand(64, 32, 8):.2e}" in panel.view.value  # the printed relative error
    panel["n"].value = 300  # the box stops at max_n: nothing longer can be typed
    assert panel["n"].value == 256 and panel.message.value == "" and "<svg" in panel.view.value
    panel["method"].value = "sliding window (causal)"
    panel["n"].value, panel["width"].value = 16, 40  # a window wider than n: one line
    assert "window must be an integer in 1..16, got 40" in panel.message.value and panel.view.value == ""


# ---------------------------------------------------------------- the benchmark's saved sweep


@pytest.mark.numerics
def test_the_saved_sweep_is_current_and_its_exponents_are_its_own():
    """Lesson 14 plots xai_tf/data/efficient_sweep.json; it must come from the code as it is now
    (rerun `python benchmarks/bench_efficient.py --write` after changing a measured module)."""
    import importlib.util
    import json
    from pathlib import Path

    root = Path(__file__).parents[1]
    spec = importlib.util.spec_from_file_location(
        "bench_efficient", root / "benchmarks" / "bench_efficient.py"
    )
    bench = importlib.util.module_from_spec(spec)
    import sys

    sys.path.insert(0, str(root / "benchmarks"))
    try:
        spec.loader.exec_module(bench)
    finally:
        sys.path.remove(str(root / "benchmarks"))
    sweep = json.loads(bench.ARTIFACT.read_text())
    assert sweep["fingerprint"] == bench.fingerprint(), (
        "the sweep is stale: rerun benchmarks/bench_efficient.py --write"
    )
    assert list(sweep["results"]) == list(cost.METHODS) and sweep["d"] == bench.D
    for method, r in sweep["results"].items():
        pts = [(n, t, b) for n, t, b in zip(sweep["ns"], r["seconds"], r["peak_bytes"], strict=True) if t]
        ns, t, b = zip(*pts, strict=True)
        assert sweep["exponents"][method] == pytest.approx(
            [cost.fit_exponent(ns, t, 3), cost.fit_exponent(ns, b, 3)]
        )
