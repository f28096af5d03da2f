import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from references import networkx_flow

from xai_tf.explain import wordlevel as wl


@st.composite
def attention_and_split(draw):
    T = draw(st.integers(1, 12))
    seed = draw(st.integers(0, 2**31 - 1))
    cuts = draw(st.lists(st.booleans(), min_size=T - 1, max_size=T - 1))  # True: a new word starts
    groups, current = [], [0]
    for i, cut in enumerate(cuts, start=1):
        if cut:
            groups.append(current)
            current = [i]
        else:
            current.append(i)
    groups.append(current)
    A = (
        torch.randn(3, T, T, generator=torch.Generator().manual_seed(seed), dtype=torch.float64) * 3
    ).softmax(-1)
    return A, groups


@given(attention_and_split())
def test_word_rows_sum_to_one(case):
    A, groups = case
    W = wl.word_attention(A, groups)
    assert W.shape == (3, len(groups), len(groups))
    assert torch.allclose(W.sum(-1), torch.ones(3, len(groups), dtype=torch.float64), atol=1e-6)


@given(attention_and_split())
def test_one_token_words_leave_attention_unchanged(case):
    A, _ = case
    T = A.size(-1)
    assert torch.equal(wl.word_attention(A, [[i] for i in range(T)]), A)


def test_sum_to_and_mean_from_by_hand():
    A = torch.tensor([[0.5, 0.2, 0.3], [0.1, 0.6, 0.3], [0.4, 0.4, 0.2]])  # words: {0}, {1, 2}
    W = wl.word_attention(A, [[0], [1, 2]])
    torch.testing.assert_close(
        W, torch.tensor([[0.5, 0.2 + 0.3], [(0.1 + 0.4) / 2, (0.6 + 0.3 + 0.4 + 0.2) / 2]])
    )


@pytest.mark.parametrize("groups", [[[0], [2], [1]], [[0, 1]], [[0], [], [1, 2]]])
def test_groups_must_cover_the_tokens_in_order(groups):
    with pytest.raises(ValueError, match="covering 0..2 in order"):
        wl.word_attention(torch.eye(3), groups)


def test_bpe_words():
    tokens = [
        "RO",
        "M",
        "E",
        "O",
        ".",
        "\n",
        "But",
        " soft",
        ",",
        " what",
        " y",
        "onder",
        "<|endoftext|>",
        "x",
    ]
    groups = wl.word_groups(tokens)
    assert wl.word_strings(tokens, groups) == [
        "ROMEO",
        ".",
        "'\\n'",
        "But",
        "soft",
        ",",
        "what",
        "yonder",
        "<|endoftext|>",
        "x",
    ]


def test_wordpiece_words():
    tokens = ["[CLS]", "the", "un", "##believ", "##able", "story", ".", "[SEP]"]
    groups = wl.word_groups(tokens, "wordpiece")
    assert groups == [[0], [1], [2, 3, 4], [5], [6], [7]]
    assert wl.word_strings(tokens, groups, "wordpiece")[2] == "unbelievable"


def test_rollout_of_identity_and_uniform_attention():
    """Identity gives the identity. Uniform attention U gives uniform rows without the residual
    term; with it, (½U + ½I)^L = (1 − 2^−L) U + 2^−L I, since U² = U."""
    T, L = 5, 4
    identity = torch.eye(T).expand(L, 3, T, T)
    torch.testing.assert_close(wl.attention_rollout(identity), torch.eye(T))
    U = torch.full((T, T), 1 / T)
    uniform = U.expand(L, 3, T, T)
    torch.testing.assert_close(wl.attention_rollout(uniform, residual=0.0), U)
    torch.testing.assert_close(wl.attention_rollout(uniform), (1 - 2**-L) * U + 2**-L * torch.eye(T))


def test_rollout_by_hand_for_two_layers():
    g = torch.Generator().manual_seed(0)
    A = torch.randn(2, 2, 4, 4, generator=g).softmax(-1)
    A1, A2 = (0.5 * A[layer].mean(0) + 0.5 * torch.eye(4) for layer in range(2))
    torch.testing.assert_close(wl.attention_rollout(A), A2 @ A1)


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 4), st.integers(1, 3), st.integers(2, 6), st.integers(0, 10_000), st.booleans())
def test_flow_matches_networkx(layers, heads, T, seed, causal):
    scores = torch.randn(layers, heads, T, T, generator=torch.Generator().manual_seed(seed)) * 2
    if causal:
        scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
    attentions = scores.softmax(-1).double()
    torch.testing.assert_close(wl.attention_flow(attentions), networkx_flow(attentions), atol=1e-6, rtol=0)


def test_normalized_flow_rows_sum_to_one():
    A = torch.randn(3, 2, 5, 5, generator=torch.Generator().manual_seed(1)).softmax(-1)
    torch.testing.assert_close(wl.attention_flow(A, normalize=True).sum(-1), torch.ones(5))


def test_head_statistics_by_hand():
    tokens = ["[CLS]", "hi", ",", "you", "[SEP]"]
    A = torch.zeros(1, 2, 5, 5)
    A[0, 0, :, 4] = 1.0  # head 0: everything to [SEP]
    A[0, 1, 0, 0] = 1.0  # head 1: the previous token (the first query attends to itself)
    A[0, 1, torch.arange(1, 5), torch.arange(0, 4)] = 1.0
    stats = wl.head_statistics(A, tokens)
    assert stats["special"].tolist() == [[1.0, pytest.approx(0.4)]]  # head 1: queries 0, 1 land on [CLS]
    assert stats["punctuation"].tolist() == [[0.0, pytest.approx(0.2)]]
    assert stats["previous"].tolist() == [[0.0, 1.0]]
    assert stats["first"].tolist() == [[0.0, pytest.approx(0.4)]]


@pytest.mark.parametrize(
    ("fn", "args", "message"),
    [
        (wl.attention_rollout, (torch.zeros(3, 3),), r"attentions must be \[layers, heads, T, T\]"),
        (wl.aggregate_heads, (torch.zeros(1, 1, 2, 2), "median"), "how must be 'mean' or 'max'"),
        (wl.word_groups, (["a"], "sentencepiece"), "scheme must be 'bpe' or 'wordpiece'"),
        (wl.head_statistics, (torch.zeros(1, 1, 2, 2), ["a"]), "1 tokens for attention over 2 positions"),
        (
            wl.attention_flow,
            (torch.zeros(1, 1, 2, 2), 1.5),
            r"residual must be a finite number in \[0, 1\], got 1.5",
        ),
    ],
)
def test_bad_wordlevel_arguments(fn, args, message):
    with pytest.raises(ValueError, match=message):
        fn(*args)


def test_flow_of_weights_above_one_does_not_overflow():
    """Capacities were cast with np.int32(x · 2³⁰): a weight above 2 wrapped around silently."""
    attentions = torch.rand(1, 1, 3, 3, generator=torch.Generator().manual_seed(0), dtype=torch.float64) * 4
    torch.testing.assert_close(wl.attention_flow(attentions), networkx_flow(attentions), atol=1e-6, rtol=0)
    big = attentions * 1000  # rows summing to ~6000: the scale adapts, the relative error stays small
    torch.testing.assert_close(wl.attention_flow(big), networkx_flow(big), atol=1e-6 * 6000, rtol=0)


def test_normalised_flow_of_a_row_with_no_flow_is_zero_not_nan():
    attentions = torch.zeros(1, 1, 3, 3, dtype=torch.float64)
    attentions[0, 0, 1:, 1:] = 0.5  # query 0 attends nowhere: with r = 0 it receives no flow
    flow = wl.attention_flow(attentions, residual=0.0, normalize=True)
    assert torch.equal(flow[0], torch.zeros(3)) and not flow.isnan().any()
    torch.testing.assert_close(flow[1:].sum(-1), torch.ones(2, dtype=torch.float64))


@pytest.mark.parametrize(
    ("attentions", "error", "message"),
    [
        (torch.full((1, 1, 3, 3), float("nan")), ValueError, "finite floating-point weights"),
        (-torch.ones(1, 1, 3, 3) / 3, ValueError, "attentions must be ≥ 0"),
        (torch.ones(0, 2, 3, 3), ValueError, r"at least one of each, got \(0, 2, 3, 3\)"),
        (torch.ones(2, 2, 3, 3, dtype=torch.long), ValueError, "finite floating-point weights"),
        ([[[[1.0]]]], TypeError, "attentions must be a torch.Tensor"),
    ],
)
def test_flow_refuses_what_is_not_attention(attentions, error, message):
    with pytest.raises(error, match=message):
        wl.attention_flow(attentions)


def test_attention_received_by_hand():
    A = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0], [0.2, 0.3, 0.5, 0.0], [0.1, 0.2, 0.3, 0.4]])
    tokens, groups = ["[CLS]", "sun", "##ny", "day"], [[0], [1, 2], [3]]
    received = wl.attention_received(A[None, None], tokens, groups)
    assert received == pytest.approx({"special": 1.8 / 4, "several pieces": 1.8 / 4, "one piece": 0.4 / 4})


@settings(max_examples=25, deadline=None)
@given(attention_and_split())
def test_attention_received_adds_up_to_one(case):
    A, groups = case  # A: [heads, T, T]; the last word is made a special token
    tokens = [f"w{i}" for i in range(A.size(-1))]
    tokens[groups[-1][0]] = "[SEP]"
    received = wl.attention_received(A[None], tokens, groups)
    counts = {"special": 1, "one piece": 0, "several pieces": 0}
    for g in groups[:-1]:
        counts["one piece" if len(g) == 1 else "several pieces"] += 1
    assert sum(received[kind] * counts[kind] for kind in received) == pytest.approx(1.0, abs=1e-9)


def test_previous_token_share_and_received_per_word_by_hand():
    """Lesson 07's exercise functions against loops: prev = mean_{i ≥ 1} A[i, i − 1];
    received(w) = mean over layers, heads and queries of Σ_{i ∈ w} A[s, i] (sums to 1 over the words)."""
    g = torch.Generator().manual_seed(3)
    A = torch.randn(2, 3, 5, 5, generator=g, dtype=torch.float64).softmax(-1)
    prev = [
        [sum(float(A[layer, h, i, i - 1]) for i in range(1, 5)) / 4 for h in (0, 1, 2)] for layer in (0, 1)
    ]
    assert torch.allclose(wl.previous_token_share(A), torch.tensor(prev, dtype=torch.float64), atol=1e-12)
    assert torch.equal(wl.previous_token_share(A[..., :1, :1]), torch.zeros(2, 3, dtype=torch.float64))
    groups = [[0], [1, 2], [3, 4]]
    by_hand = [
        sum(float(A[layer, h, s, i]) for layer in range(2) for h in range(3) for s in range(5) for i in g_)
        / 30
        for g_ in groups
    ]
    received = wl.received_per_word(A, groups)
    assert torch.allclose(received, torch.tensor(by_hand, dtype=torch.float64), atol=1e-12)
    assert abs(received.sum().item() - 1) < 1e-12
