"""``xai_tf.encdec.summary`` against a hand-made record: every array is the record's numbers by seed."""

import numpy as np
import pytest

from xai_tf.encdec import shipped, summary


def _draw(name, seed, exact, ece, aer=None):
    rows = [[3, 7, 10, exact + 0.1, 90.0], [8, 12, 10, exact - 0.1, 80.0]]
    d = {"name": name, "seed": seed, "exact": exact, "bleu": 50.0, "word_accuracy": 0.9, "ece": ece}
    d |= {
        "seconds": 60.0,
        "by_length": rows,
        "dev_curve": [[100, 1.0, 0.2], [200, 2.0, 0.5], [300, 3.0, exact]],
    }
    return d | ({"aer": aer} if aer is not None else {})


@pytest.fixture
def record(monkeypatch):
    # two layers × (two heads + the heads' mean): seed 1's best head is layer 0, head 1 (0.2);
    # its best mean is layer 1 (0.30 < 0.35); seed 0's best head and mean are both in layer 1
    aer0 = [[0.5, 0.6, 0.55], [0.4, 0.3, 0.35]]
    aer1 = [[0.9, 0.2, 0.35], [0.4, 0.3, 0.30]]
    draws = [
        _draw("pre", 1, 0.6, 0.01, aer1),
        _draw("pre", 0, 0.5, 0.02, aer0),
        _draw("post", 0, 0.4, 0.03, aer0),
        _draw("decoder_only", 2, 0.7, 0.01),
        _draw("decoder_only", 1, 0.8, 0.02),
    ]
    monkeypatch.setattr(shipped, "recorded", lambda: {"draws": draws})


def test_per_draw_is_in_seed_order(record):
    assert summary.per_draw("pre", "exact").tolist() == [0.5, 0.6]
    assert summary.per_draw("pre", "ece").tolist() == [0.02, 0.01]


def test_paired_keeps_the_common_seeds_only(record):
    a, b = summary.paired("pre", "decoder_only", "exact")
    assert a.tolist() == [0.6] and b.tolist() == [0.8]  # seed 1 is the only seed both have


def test_by_length_reads_exact_and_bleu_columns(record):
    labels, exact = summary.by_length("pre")
    assert labels == ["3–7", "8–12"]
    np.testing.assert_allclose(exact, [[0.6, 0.4], [0.7, 0.5]])
    assert summary.by_length("pre", "bleu")[1].tolist() == [[90.0, 80.0], [90.0, 80.0]]


def test_best_layers_by_hand(record):
    heads, means = summary.best_layers("pre")
    assert heads.tolist() == [1, 0] and means.tolist() == [1, 1]


def test_late_gain_by_hand(record):
    np.testing.assert_allclose(summary.late_gain("pre"), [0.5 - 0.2, 0.6 - 0.2])  # seeds 0, 1
    np.testing.assert_allclose(summary.late_gain("pre", back=1), [0.0, 0.1])
