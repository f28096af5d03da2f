"""Lesson 18's claims. Three sources:

1. The structural bias, on fixed data and weights: lesson 16's corpus (data: no offset moves it) and its
   shipped additive model's teacher-forced scores on the first 150 test pairs. Measured here (Intel Xeon,
   torch CPU): mean monotone share 0.972, fully monotone pairs 13.9%, jumps δ ∈ {1, 2} 69.2% of 11,378;
   support softmax 5.92, sparsemax 1.14, fusedmax (λ = 0.5) 1.25; one contiguous run: softmax 25.9%,
   sparsemax 94.1%, fusedmax 95.0%; gold mass 0.687 / 0.729 / 0.726.
2. ``xai_tf/data/structured.json``: the structured decoders (``scripts/train_structured.py``), 20 seeds
   of each of softmax, sparsemax, fusedmax (λ = 0.5), sigmoid, CRF, normalised-CRF and SparseMAP attention,
   800 steps on the 3–12-word pairs, one thread a draw on a 2-core Intel Xeon. Claims are counts over the
   20 seeds (same seed against same seed) as the lesson prints them, and bounds beyond the worst draw by a
   quarter of the spread. Recorded: sigmoid, CRF and SparseMAP below softmax in exact match and BLEU and
   above it in AER on 20 of 20; support ≥ 0.999 (sigmoid, CRF) and 0.855–0.989 (SparseMAP, below the CRF's on
   20 of 20); Σα 5.07–8.48; normalised CRF above raw CRF in exact match on 20 of 20 and above softmax in AER
   on 20 of 20; sparsemax below softmax in AER on 19, above in BLEU on 18 and in exact match on 14 of 20;
   fusedmax below softmax and sparsemax in exact match and BLEU and above both in AER on 20 of 20, its
   support above sparsemax's on 20 of 20; SparseMAP above raw CRF in exact match on 15 of 20 and below it in
   AER on 8 (above on 11, one tie); normalised CRF below raw CRF in AER on 20 of 20.
3. ``xai_tf/data/hierarchy.json``: hierarchical vs flat document classifiers, 20 seeds each, 200 steps,
   test accuracy every 25 steps. Recorded: at 75 steps hierarchical ahead on 20 of 20 (hierarchical
   0.990–1.000, flat 0.500–0.997); at 50 steps ahead on 15 of 20, behind on 4; at 200 steps every draw of
   both ≥ 0.999.

``test_structured_lesson.py`` checks that both records belong to the shipped code.
"""

import numpy as np
import pytest

from xai_tf.seq2seq import data
from xai_tf.seq2seq import shipped as seq2seq_shipped
from xai_tf.structured import bias, decoder, hierarchy, shipped


@pytest.fixture(scope="module")
def corpus():
    return data.make_corpus(0)


def test_gold_alignments_are_nearly_monotone_but_few_sentences_entirely(corpus):
    share = np.array([bias.monotone_share(p.links) for p in corpus.test])
    jumps = np.array([d for p in corpus.test for d in bias.jumps(p.links)])
    assert share.mean() > 0.9 and (share == 1).mean() < 0.3  # 0.972 and 13.9%
    assert (
        np.isin(jumps, (1, 2)).mean() > 0.5 and (jumps == 1).mean() > (jumps <= 0).mean()
    )  # 69.2%; 42.8 > 22.8%


def test_softmax_spreads_sparsemax_keeps_about_one_word_fusedmax_keeps_the_gold_mass(corpus):
    pairs = corpus.test[:150]
    table = bias.structure_table(bias.forced_scores(seq2seq_shipped.model("additive"), corpus, pairs), pairs)
    assert table["softmax"]["support"] > 4 and table["sparsemax"]["support"] < 1.5  # 5.92 and 1.14
    assert table["softmax"]["contiguous"] < 0.5 < table["sparsemax"]["contiguous"]  # 25.9% and 94.1%
    assert abs(table["fusedmax"]["gold mass"] - table["sparsemax"]["gold mass"]) < 0.03  # 0.003


def _curves():
    steps, h = hierarchy.recorded_curves("hierarchical")
    _, f = hierarchy.recorded_curves("flat")
    return steps, np.array(h), np.array(f)


def test_the_hierarchy_learns_in_fewer_steps_and_both_end_near_perfect():
    steps, h, f = _curves()
    assert len(h) == len(f) == 20
    at75, at50 = steps.index(75), steps.index(50)
    assert (h[:, at75] > f[:, at75]).sum() == 20  # "ahead on every seed (20 of 20)"
    assert (h[:, at50] > f[:, at50]).sum() == 15  # "at 50 steps on most (15 of 20)"
    assert h[:, -1].min() > 0.99 and f[:, -1].min() > 0.99  # worst 1.000 and 0.999


def _draws(name, key):
    return np.array(shipped.draws(name, key))


def _count(name, key, other, sign):
    """On how many seeds ``name``'s ``key`` is above (sign +1) or below (−1) ``other``'s, same seed."""
    return int((sign * (_draws(name, key) - _draws(other, key)) > 0).sum())


def test_raw_marginals_switch_every_word_on_and_lose_to_softmax_on_every_seed():
    assert all(len(_draws(name, "exact")) == 20 for name in decoder.NORMALIZERS)
    for name in ("sigmoid", "crf", "sparsemap"):
        assert _count(name, "exact", "softmax", -1) == 20
        assert _count(name, "bleu", "softmax", -1) == 20
        assert _count(name, "aer", "softmax", +1) == 20
        mass = _draws(name, "mass")
        assert mass.min() - (mass.max() - mass.min()) / 4 > 4.0  # "between 5 and 9": worst 5.07, spread 3.41
        assert mass.max() + (mass.max() - mass.min()) / 4 < 9.5  # best 8.48
    for name in ("sigmoid", "crf"):
        assert _draws(name, "support").min() > 0.95  # worst 0.999
    support = _draws("sparsemap", "support")
    assert support.min() - (support.max() - support.min()) / 4 > 0.8  # "85–100%": worst 0.855, spread 0.134
    assert _count("sparsemap", "support", "crf", -1) == 20  # "support below the CRF's"
    assert _count("sparsemap", "exact", "crf", +1) == 15  # "ahead of the raw CRF in exact match ... 15 of 20"
    assert _count("sparsemap", "aer", "crf", -1) == 8  # "lower AER on fewer than half, 8 of 20"


def test_normalised_marginals_recover_most_of_it_and_sparsemax_aligns_better_on_most_seeds():
    assert _count("crf_normalized", "exact", "crf", +1) == 20  # "beats the raw CRF on every seed"
    assert _count("crf_normalized", "aer", "crf", -1) == 20
    assert _count("crf_normalized", "aer", "softmax", +1) == 20
    assert _count("sparsemax", "aer", "softmax", -1) >= 15  # 19 of 20: "most seeds"
    assert _count("sparsemax", "bleu", "softmax", +1) >= 15  # 18 of 20: "most"
    assert _count("sparsemax", "exact", "softmax", +1) > 10  # 14 of 20: "a smaller majority"


def test_fusedmax_at_half_loses_to_softmax_and_sparsemax_on_every_seed():
    for other in ("softmax", "sparsemax"):
        assert _count("fusedmax", "exact", other, -1) == 20
        assert _count("fusedmax", "bleu", other, -1) == 20
        assert _count("fusedmax", "aer", other, +1) == 20
    assert _count("fusedmax", "support", "sparsemax", +1) == 20  # "a wider support than sparsemax's"
