"""Lesson 16's task data (the grammar's invariants) and metrics (AER by hand, BLEU against sacrebleu's
own call and by hand)."""

import math
from collections import Counter

import pytest
import sacrebleu

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
