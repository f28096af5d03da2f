import pytest
import tiktoken
from hypothesis import given
from hypothesis import strategies as st

from xai_tf.transformer.bpe import Merge, bpe_segment, merge_step, train_bpe, word_counts

# Sennrich et al.'s toy corpus: low ×5, lower ×2, newest ×6, widest ×3
CORPUS = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)


def test_merges_worked_out_by_hand():
    """Pair counts, by hand: e·s 9 = s·t 9 (newest 6 + widest 3) → e·s first (alphabetical tie);
    es·t 9; l·o 7 = o·w 7 → l·o, lo·w; then e·w 6 = n·e 6 = w·est 6 → e·w; ew·est 6 = n·ew 6 → ew·est;
    n·ewest 6."""
    want = [("e", "s", 9), ("es", "t", 9), ("l", "o", 7), ("lo", "w", 7), ("e", "w", 6), ("ew", "est", 6)]
    want.append(("n", "ewest", 6))
    assert train_bpe(CORPUS, 7) == [Merge(*m) for m in want]
    merges = train_bpe(CORPUS, 7)
    assert bpe_segment("lowest", merges) == ["low", "est"]
    assert bpe_segment("newer", merges) == ["n", "ew", "e", "r"]


def test_training_stops_when_every_word_is_one_symbol():
    assert len(train_bpe("ab ab abc", 100)) == 2


@pytest.mark.parametrize(
    ("text", "n", "message"),
    [("", 3, "text is empty"), ("ab", -1, "n_merges must be an integer ≥ 0, got -1")],
)
def test_bad_bpe_arguments(text, n, message):
    with pytest.raises(ValueError, match=message):
        train_bpe(text, n)


def _tiktoken_from(merges: list[Merge]) -> tiktoken.Encoding:
    """A tiktoken Encoding whose ranks are the 256 bytes, then the merged symbols in learned order."""
    ranks = {bytes([b]): b for b in range(256)}
    for m in merges:
        ranks.setdefault((m.left + m.right).encode(), len(ranks))
    return tiktoken.Encoding("toy", pat_str=r"\S+", mergeable_ranks=ranks, special_tokens={})


@given(st.lists(st.text("abcde", min_size=1, max_size=8), min_size=1, max_size=30), st.integers(0, 30))
def test_segmentation_matches_tiktoken_with_the_same_ranks(words, n):
    """Applying merges in learned order is what tiktoken does when the rank of a symbol is the
    order in which it was learned."""
    merges = train_bpe(" ".join(words), n)
    enc = _tiktoken_from(merges)
    for word in {*words, "abcdeabcde", "eddcba"}:
        pieces = bpe_segment(word, merges)
        assert "".join(pieces) == word
        assert pieces == [enc.decode([t]) for t in enc.encode(word)]


def _sennrich_stats(vocab: dict[str, int]) -> dict[tuple[str, str], int]:
    """Sennrich et al. (2016), Algorithm 1, as the paper prints it: words as space-separated symbols, pair
    statistics, then the merge by a regular expression (``get_stats``, ``merge_vocab``)."""
    import collections

    pairs: dict[tuple[str, str], int] = collections.defaultdict(int)
    for word, freq in vocab.items():
        symbols = word.split()
        for i in range(len(symbols) - 1):
            pairs[symbols[i], symbols[i + 1]] += freq
    return dict(pairs)


def _sennrich_merge(pair: tuple[str, str], vocab: dict[str, int]) -> dict[str, int]:
    import re

    bigram = re.escape(" ".join(pair))
    p = re.compile(r"(?<!\S)" + bigram + r"(?!\S)")
    return {p.sub("".join(pair), word): freq for word, freq in vocab.items()}


@given(st.lists(st.text("abcd", min_size=1, max_size=7), min_size=1, max_size=20))
def test_merge_step_is_sennrichs_algorithm(words):
    """The pair is one of the paper's most frequent (the paper's ``max`` breaks ties by dict order; ours by
    the alphabetically first pair), its count the paper's, and the words its merged vocabulary."""
    counts = word_counts(" ".join(words))
    if all(len(w) < 2 for w in counts):
        with pytest.raises(ValueError, match="no pair left"):
            merge_step(counts)
        return
    vocab = {" ".join(w): n for w, n in counts.items()}
    stats = _sennrich_stats(vocab)
    pair, count, merged = merge_step(counts)
    best = max(stats.values())
    assert count == best == stats[pair] and pair == min(p for p, c in stats.items() if c == best)
    assert {" ".join(w): n for w, n in merged.items()} == _sennrich_merge(pair, vocab)


def test_merge_step_on_the_toy_corpus_by_hand():
    """e·s and s·t both occur 9 times (newest 6 + widest 3): e·s, alphabetically first, is merged."""
    pair, count, merged = merge_step(word_counts(CORPUS))
    assert (pair, count) == (("e", "s"), 9)
    assert merged[("w", "i", "d", "es", "t")] == 3 and merged[("l", "o", "w")] == 5
