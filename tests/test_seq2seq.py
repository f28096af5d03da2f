"""Lesson 16's task data (the grammar's invariants) and metrics (AER by hand, BLEU against sacrebleu's
own call and by hand)."""

import math
from collections import Counter

import pytest
import sacrebleu
from numerics import rescored

from xai_tf.seq2seq import data, grammar, metrics


@pytest.fixture(scope="module")
def corpus() -> data.Corpus:
    return data.make_corpus(0)


def _all(corpus: data.Corpus) -> list[data.Pair]:
    return [*corpus.train, *corpus.dev, *corpus.test]


def test_links_lie_in_range_and_every_word_is_linked(corpus):
    for p in _all(corpus):
        assert all(0 <= i < len(p.target) and 0 <= j < len(p.source) for i, j in p.links), p
        assert {j for _, j in p.links} == set(range(len(p.source))), p
        assert {i for i, _ in p.links} == set(range(len(p.target))), p


def test_the_lecture_example_is_the_first_test_pair_with_its_links(corpus):
    ex = corpus.test[0]
    assert ex.source == "I am going to the store".split() and ex.target == "vou à loja".split()
    # by hand: vou ← I, am, going; à ← to, the; loja ← store
    assert ex.links == {(0, 0), (0, 1), (0, 2), (1, 3), (1, 4), (2, 5)}
    assert all(ex.source != p.source for p in corpus.train + corpus.dev)


def test_lengths_span_3_to_35_and_splits_are_disjoint(corpus):
    lengths = Counter(len(p.source) for p in _all(corpus))
    assert min(lengths) == 3 and max(lengths) == 35 and set(lengths) == set(range(3, 36))
    splits = [{tuple(p.source) for p in s} for s in (corpus.train, corpus.dev, corpus.test)]
    assert sum(map(len, splits)) == len(_all(corpus)) == 5000
    assert not (splits[0] & splits[1] or splits[0] & splits[2] or splits[1] & splits[2])


def test_the_same_seed_gives_the_same_corpus_and_another_seed_another():
    a, b = data.make_corpus(3, 50, 10, 10), data.make_corpus(3, 50, 10, 10)
    c = data._corpus(12345, 50, 10, 10)
    assert a.train == b.train and a.test == b.test
    assert c.train != a.train


def _has(pair: data.Pair, src: tuple[str, ...], tgt: tuple[str, ...]) -> bool:
    return " ".join(src) in " ".join(pair.source) and " ".join(tgt) in " ".join(pair.target)


def test_reorderings_and_many_to_one_links_are_there(corpus):
    pairs = _all(corpus)
    # adjective–noun swap: an adjective j links to a target word after its noun's
    swaps = sum(any(i1 > i2 and j1 < j2 for i1, j1 in p.links for i2, j2 in p.links) for p in pairs)
    assert swaps > len(pairs) // 2
    # verb-final clause: "because the dog sees the cat" → "porque o cão o gato vê"
    lex = grammar.load()
    verbs3 = {v[2] for v in lex.transitive}
    assert any(
        "porque" in p.target and p.target[-1] in verbs3 and p.source[-1] not in {v[1] for v in lex.transitive}
        for p in pairs
    )
    fan_in = Counter(i for p in pairs for i, _ in p.links)
    assert any(n >= 3 for n in fan_in.values())  # "I am going" → "vou"
    assert sum(_has(p, ("to", "the"), ("à",)) for p in pairs) > 10
    assert sum(_has(p, ("my",), ("o", "meu")) for p in pairs) > 10


def test_vocabularies_have_a_few_hundred_words_and_the_specials_first(corpus):
    for v in (corpus.source_vocab, corpus.target_vocab):
        assert v.words[:4] == ("<pad>", "<bos>", "<eos>", "<unk>") and 200 < len(v) < 500
    words = {w for p in _all(corpus) for w in p.source}
    assert words <= set(corpus.source_vocab.words)


def test_encode_decode_round_trip_and_the_unknown_word_policy(corpus):
    v = corpus.source_vocab
    ids = v.encode(data.tokenize("I am going to the Store."))
    assert v.decode([*ids, 2, 5]) == ["I", "am", "going", "to", "the", "store"]
    with pytest.raises(ValueError, match="unknown source word.*'zebra'"):
        v.encode(["the", "zebra", "sings"])
    assert v.encode(["the", "zebra"], unknown="unk")[1] == 3
    with pytest.raises(ValueError, match="in the target language"):
        v.encode(["vou", "à", "loja"])
    with pytest.raises(ValueError, match="empty"):
        v.encode([])
    with pytest.raises(ValueError, match="at most 60"):
        v.encode(["the"] * 61)


def test_a_batch_pads_with_zero_and_shifts_the_target(corpus):
    pairs = corpus.test[:3]
    b = data.batch(pairs, corpus)
    n = len(pairs[1].target)
    assert b.source.shape == (3, max(len(p.source) for p in pairs))
    assert b.source_mask.sum(1).tolist() == [len(p.source) for p in pairs]
    assert (
        b.target_in[1, 0] == 1
        and b.target_out[1, n] == 2
        and (b.target_in[1, 1 : n + 1] == b.target_out[1, :n]).all()
    )
    assert corpus.target_vocab.decode(b.target_out[0]) == ["vou", "à", "loja"]


def test_aer_by_hand():
    # A = {(0,0),(1,1),(1,2)}, S = P = {(0,0),(1,2)}: |A∩S| = 2, so AER = 1 − (2 + 2)/(3 + 2) = 0.2
    assert metrics.alignment_error_rate([{(0, 0), (1, 1), (1, 2)}], [{(0, 0), (1, 2)}]) == pytest.approx(0.2)
    # with P = S ∪ {(1,1)}: 1 − (2 + 3)/(3 + 2) = 0
    p = [{(0, 0), (1, 2), (1, 1)}]
    assert metrics.alignment_error_rate([{(0, 0), (1, 1), (1, 2)}], [{(0, 0), (1, 2)}], p) == pytest.approx(
        0.0
    )
    # corpus sums, not a mean of ratios: (1 − 2·1/(1+1)) and (1 − 0/(1+3)) → 1 − 2·1/(2+4) = 2/3
    assert metrics.alignment_error_rate(
        [{(0, 0)}, {(0, 1)}], [{(0, 0)}, {(0, 0), (1, 1), (2, 2)}]
    ) == pytest.approx(2 / 3)


def test_argmax_links_skip_eos_rows_and_padding():
    import torch

    a = torch.tensor([[0.1, 0.7, 0.2, 0.9], [0.6, 0.3, 0.1, 0.0], [0.2, 0.2, 0.6, 0.0]])
    assert metrics.argmax_links(a, target_length=2, source_length=3) == {(0, 1), (1, 0)}


def test_bleu_is_sacrebleus_own_call_and_a_hand_count():
    hyp = [["o", "gato", "vê", "o", "cão"], ["vou", "à", "loja"], ["a", "b", "c"]]
    ref = [["o", "gato", "vê", "um", "cão"], ["vou", "à", "loja", "hoje"], ["a", "b", "c"]]
    own = sacrebleu.corpus_bleu(
        [" ".join(h) for h in hyp], [[" ".join(r) for r in ref]], tokenize="none"
    ).score
    assert metrics.bleu(hyp, ref) == pytest.approx(own)
    # by hand: precisions 5/6, 4/5, 3/4, 2/3 and no brevity penalty: (1/3)^(1/4)
    assert metrics.bleu([list("abcdef")], [list("abcdeg")]) == pytest.approx(100 * (1 / 3) ** 0.25)
    # all precisions 1, hypothesis 5 words against 6: BP = exp(1 − 6/5)
    assert metrics.bleu([list("abcde")], [list("abcdef")]) == pytest.approx(100 * math.exp(1 - 6 / 5))


def test_exact_match_and_by_length():
    src = [["w"] * 3, ["w"] * 4, ["w"] * 9]
    hyp, ref = [["a"], ["b"], ["c"]], [["a"], ["x"], ["c"]]
    assert metrics.exact_match(hyp, ref) == pytest.approx(2 / 3)
    rows = metrics.by_length(src, hyp, ref, width=5)
    assert [(r.lo, r.hi, r.n, r.exact) for r in rows] == [(3, 7, 2, 0.5), (8, 12, 1, 1.0)]


# --- the models: Bahdanau's step against a float64 loop, padding, beam search against brute force ---


def _loop_additive(s_prev, h, W_a, U_a, v_a, lengths):
    """e_ij = v_aᵀ tanh(W_a s_{i−1} + U_a h_j) word by word in float64, softmax over j < length."""
    out_alpha, out_c = [], []
    for b in range(h.shape[0]):
        e = []
        for j in range(lengths[b]):
            pre = [
                sum(W_a[k][m] * s_prev[b][m] for m in range(len(s_prev[b])))
                + sum(U_a[k][m] * h[b][j][m] for m in range(len(h[b][j])))
                for k in range(len(v_a))
            ]
            e.append(sum(v_a[k] * math.tanh(pre[k]) for k in range(len(v_a))))
        top = max(e)
        z = sum(math.exp(x - top) for x in e)
        alpha = [math.exp(x - top) / z for x in e] + [0.0] * (h.shape[1] - lengths[b])
        out_alpha.append(alpha)
        out_c.append([sum(alpha[j] * h[b][j][m] for j in range(h.shape[1])) for m in range(h.shape[2])])
    return out_alpha, out_c


def test_bahdanau_step_of_the_model_equals_a_float64_loop_and_ignores_padding():
    import torch

    from xai_tf.seq2seq import attention
    from xai_tf.seq2seq.model import Config, Seq2Seq

    torch.manual_seed(0)
    m = Seq2Seq(Config(20, 20, d_e=4, d_h=3, d_att=5, score="additive")).double()
    source = torch.tensor([[5, 6, 7, 8], [9, 10, 0, 0]])
    mask = source != 0
    h, s0, keys, c = m.encode(source, mask)
    logits, s1, alpha = m.step(torch.tensor([1, 1]), s0, h, keys, c, mask)
    sc = m.scorer
    ref_alpha, ref_c = _loop_additive(
        s0.tolist(),
        h.detach(),
        sc.W_a.weight.tolist(),
        sc.U_a.weight.tolist(),
        sc.v_a.weight[0].tolist(),
        [4, 2],
    )
    assert torch.allclose(alpha, torch.tensor(ref_alpha, dtype=torch.float64), atol=1e-12)
    assert alpha[1, 2:].abs().max() == 0.0
    # the functional form used by the exercise agrees as well (c_i = Σ_j α_ij h_j)
    a2, c2 = attention.additive_attention(s0, h, sc.W_a.weight, sc.U_a.weight, sc.v_a.weight[0], mask)
    assert torch.allclose(c2, torch.tensor(ref_c, dtype=torch.float64), atol=1e-12)
    # padding does not enter: the second sentence alone, unpadded, gives the same state and attention
    h_1, s0_1, keys_1, c_1 = m.encode(source[1:, :2], mask[1:, :2])
    _, s1_1, alpha_1 = m.step(torch.tensor([1]), s0_1, h_1, keys_1, c_1, mask[1:, :2])
    assert torch.allclose(s1[1], s1_1[0], atol=1e-12) and torch.allclose(alpha[1, :2], alpha_1[0], atol=1e-12)


@pytest.mark.parametrize("score", ["dot", "scaled_dot", "bilinear", "additive", "mlp", None])
def test_every_score_function_gives_attention_rows_that_sum_to_one_on_words(score):
    import torch

    from xai_tf.seq2seq.model import Config, Seq2Seq

    torch.manual_seed(1)
    m = Seq2Seq(Config(20, 20, d_e=4, d_h=3, d_att=5, score=score))
    source = torch.tensor([[5, 6, 7], [9, 0, 0]])
    logits, alpha = m(source, source != 0, torch.tensor([[1, 4], [1, 5]]))
    assert logits.shape == (2, 2, 20)
    if score is None:
        assert alpha is None
    else:
        assert torch.allclose(alpha.sum(-1), torch.ones(2, 2)) and alpha[1, :, 1:].abs().max() == 0


def _markov(V: int, seed: int):
    import torch

    g = torch.Generator().manual_seed(seed)
    table = torch.log_softmax(torch.randn(V, V, generator=g) * 2, -1)
    return lambda tokens, state: (table[tokens], state)


def _brute_force(step, V, max_length, alpha):
    import itertools

    import torch

    from xai_tf.seq2seq.decoding import length_penalty

    best = (-math.inf, None)
    for n in range(max_length):
        for words in itertools.product([w for w in range(V) if w != 2], repeat=n):
            seq = [*words, 2]
            prev, logp = 1, 0.0
            for y in seq:
                logp += float(step(torch.tensor([prev]), None)[0][0, y])
                prev = y
            score = logp / length_penalty(len(seq), alpha)
            best = max(best, (score, seq), key=lambda t: t[0])
    return best


@pytest.mark.numerics
@pytest.mark.parametrize(("seed", "alpha"), [(0, 0.0), (1, 0.0), (2, 1.0), (3, 2.0)])
def test_beam_search_with_a_wide_beam_is_brute_force(seed, alpha):
    import torch

    from xai_tf.seq2seq.decoding import beam_search

    V, L = 5, 4
    step = _markov(V, seed)
    state = torch.zeros(1, 1)
    seq, score = beam_search(step, state, beam=V**L, max_length=L, alpha=alpha)
    ref_score, ref_seq = _brute_force(step, V, L, alpha)
    assert seq == ref_seq and score == pytest.approx(ref_score)


@pytest.mark.numerics
def test_the_shipped_models_are_current_and_score_their_recorded_metrics():
    """The weights were trained by the code as it is now (``artifacts`` fingerprint of the training and
    scoring modules' import graph), and re-scoring the shipped seed-0 models on the test split gives
    the recorded exact match, BLEU and AER (to rounding: another torch may differ in the last bits)."""
    from xai_tf.seq2seq import evaluate, shipped

    record = shipped.recorded()
    assert record["fingerprint"] == shipped.fingerprint(), (
        "the code behind xai_tf/data/seq2seq.* changed: rerun scripts/train_seq2seq.py"
    )
    corpus = data.make_corpus(0)
    for name in ("none", "additive"):
        got = evaluate.scores(shipped.model(name), corpus, corpus.test)
        want = next(d for d in record["draws"] if d["name"] == name and d["seed"] == 0)
        rescored(f"seq2seq {name}", "exact", got["exact"], want["exact"], 0.01)
        rescored(f"seq2seq {name}", "bleu", got["bleu"], want["bleu"], 0.5)
        if name != "none":
            rescored(f"seq2seq {name}", "aer", got["aer"], want["aer"], 0.01)


def test_log_prob_is_the_sum_of_the_greedy_steps_log_probabilities():
    """For the greedy output, log p(y | x) equals the sum of the chosen words' log-probabilities step by
    step (an independent loop over model.step)."""
    import torch

    from xai_tf.seq2seq import decoding, shipped

    corpus = data.make_corpus(0)
    model = shipped.model("additive")
    source = corpus.test[1].source
    words, _ = decoding.greedy(model, corpus, [source])
    ids, mask = decoding.encode_sources(model, corpus, [source])
    with torch.no_grad():
        h, s, keys, c = model.encode(ids, mask)
        y, total = torch.tensor([1]), 0.0
        for w in [*words[0], "<eos>"]:
            logits, s, _ = model.step(y, s, h, keys, c, mask)
            y = torch.tensor([corpus.target_vocab.words.index(w)])
            total += float(torch.log_softmax(logits, -1)[0, y])
    assert decoding.log_prob(model, corpus, source, words[0]) == pytest.approx(total, abs=1e-4)


@pytest.mark.parametrize("max_length", [1, 3])
def test_greedy_returns_at_most_max_length_words(corpus, max_length):
    """An untrained model rarely says <eos>: greedy stops at ``max_length`` words (it returned one more),
    with one attention row per word and one for the step after."""
    import torch

    from xai_tf.seq2seq import decoding
    from xai_tf.seq2seq.model import Config, Seq2Seq

    torch.manual_seed(0)
    model = Seq2Seq(Config(len(corpus.source_vocab), len(corpus.target_vocab), d_e=8, d_h=8, d_att=8))
    sources = [p.source for p in corpus.test[:20]]
    words, attention = decoding.greedy(model, corpus, sources, max_length=max_length)
    assert max(len(w) for w in words) == max_length
    assert all(a.shape == (len(w) + 1, len(x)) for w, a, x in zip(words, attention, sources, strict=True))


# --- the exercise checker and the panel ---


def _solution(s, h, W_a, U_a, v_a, i):
    """The reference written as a loop over j (independent of the vectorised helper)."""
    import torch

    e = torch.stack([v_a @ torch.tanh(W_a @ s[i - 1] + U_a @ h[j]) for j in range(h.size(0))])
    alpha = torch.softmax(e, 0)
    return alpha, sum(alpha[j] * h[j] for j in range(h.size(0)))


def test_the_checker_passes_right_answers_in_float32_and_names_the_usual_mistakes(capsys):
    import torch

    from xai_tf.exercises.seq2seq import check_additive_attention

    assert check_additive_attention(_solution)
    assert check_additive_attention(
        lambda *a: tuple(t.float() for t in _solution(*(x.float() for x in a[:5]), a[5]))
    )
    capsys.readouterr()

    def wrong_axis(s, h, W_a, U_a, v_a, i):
        e = (torch.tanh(s[i - 1] @ W_a.T + h @ U_a.T) @ v_a)[:, None]
        alpha = torch.softmax(e, -1)[:, 0]
        return alpha, alpha @ h

    assert not check_additive_attention(wrong_axis)
    assert "softmax over the wrong axis" in capsys.readouterr().out
    assert not check_additive_attention(lambda s, h, W_a, U_a, v_a, i: _solution(s, h, W_a, U_a, v_a, i + 1))
    assert "previous state s_{i−1}" in capsys.readouterr().out
    assert not check_additive_attention(
        lambda s, h, W_a, U_a, v_a, i: (_solution(s, h, W_a, U_a, v_a, i)[0], h[0])
    )
    assert "c[" in capsys.readouterr().out


def test_the_panel_translates_word_by_word_and_refuses_bad_sentences_in_one_line():
    from xai_tf.seq2seq import shipped
    from xai_tf.widgets.seq2seq import translation_panel

    corpus = data.make_corpus(0)
    panel = translation_panel({"none": shipped.model("none"), "additive": shipped.model("additive")}, corpus)
    assert panel.message.value == "" and "translation:</b> vou à loja" in panel.view.value
    assert panel.view.value.count("<tr>") == 4  # vou, à, loja, <eos>
    assert "2px solid #2ca02c" in panel.view.value  # gold links framed
    panel["model"].value = "none"
    assert "has no attention" in panel.view.value
    for text, message in (
        ("the zebra sings", "unknown source word"),
        ("", "empty"),
        ("vou à loja", "target language"),
        ("the dog " * 31, "at most 60"),
    ):
        panel["text"].value = text
        assert message in panel.message.value and panel.view.value == "", text
    panel["pick"].value = panel["pick"].options[2]
    assert panel["text"].value == panel["pick"].options[2] and panel.message.value == ""


def test_beam_rows_read_each_draw_with_beam_rows_in_seed_order():
    """``summary.beam_rows`` against a loop over the JSON record itself."""
    import json

    from xai_tf.seq2seq import shipped, summary

    record = json.loads(shipped.METRICS.read_text())
    for name in ("none", "additive"):
        ds = [d for d in record["draws"] if d["name"] == name and "beam" in d]
        ds.sort(key=lambda d: d["seed"])
        for key in ("bleu", "length_ratio"):
            got = summary.beam_rows(name, key)
            for setting in ("greedy", "beam5 alpha=0", "beam5 alpha=1"):
                assert got[setting].tolist() == [d["beam"][setting][key] for d in ds]


def test_disagreement_kinds_and_early_words_count_a_hand_made_case():
    """Row by row, by hand: argmax one before the first gold word ("just before"), on it (agrees), far off
    ("elsewhere"), one after the last ("just after"); a word without gold links is "elsewhere"."""
    import torch

    from xai_tf.seq2seq import data, summary

    def rows(argmaxes, width):
        return torch.nn.functional.one_hot(torch.tensor(argmaxes), width).double() + 0.1

    pairs = [
        data.Pair(["a", "b", "c", "d"], ["x", "y", "z", "w"], {(0, 1), (1, 2), (2, 3), (3, 0)}),
        data.Pair(["a", "b", "c"], ["x", "v"], {(0, 2)}),
    ]
    maps = [rows([0, 2, 0, 1], 4), rows([1, 0], 3)]
    kinds = summary.disagreement_kinds(maps, [p.links for p in pairs])
    assert kinds == {"words": 6, "disagree": 5, "just before": 2, "just after": 1, "elsewhere": 2}
    assert summary.early_words(maps, pairs) == {"x": 2}


def test_one_step_scores_weights_and_context_equal_float64_loops():
    """Lesson 16's exercise functions: additive_scores + context_vector and additive_step against the loop
    above; bilinear_scores against a loop over s_{i−1}ᵀ W_a h_j and against the model's Bilinear scorer."""
    import torch

    from xai_tf.seq2seq import attention, step

    g = torch.Generator().manual_seed(0)
    s, h = (
        torch.randn(3, 4, generator=g, dtype=torch.float64),
        torch.randn(5, 4, generator=g, dtype=torch.float64),
    )
    W_a, U_a, v_a = (
        torch.randn(*shape, generator=g, dtype=torch.float64) for shape in ((2, 4), (2, 4), (2,))
    )
    ref_alpha, ref_c = _loop_additive([s[1].tolist()], h[None], W_a.tolist(), U_a.tolist(), v_a.tolist(), [5])
    alpha, c = step.context_vector(step.additive_scores(s[1], h, W_a, U_a, v_a), h)
    assert torch.allclose(alpha, torch.tensor(ref_alpha[0], dtype=torch.float64), atol=1e-12)
    assert torch.allclose(c, torch.tensor(ref_c[0], dtype=torch.float64), atol=1e-12)
    step_alpha, step_c = step.additive_step(s, h, W_a, U_a, v_a, 2)  # scores s_{i−1} = s[1]
    assert torch.equal(step_alpha, alpha) and torch.equal(step_c, c)
    W = torch.randn(4, 4, generator=g, dtype=torch.float64)
    loop = [
        sum(float(s[0, a]) * float(W[a, b]) * float(h[j, b]) for a in range(4) for b in range(4))
        for j in range(5)
    ]
    e = step.bilinear_scores(s[0], h, W)
    assert torch.allclose(e, torch.tensor(loop, dtype=torch.float64), atol=1e-12)
    module = attention.scorer("bilinear", 4, 2).double()
    module.W_a.weight.data = W
    assert torch.allclose(module(s[:1], module.keys(h[None]))[0], e, atol=1e-12)
