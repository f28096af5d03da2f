"""Lesson 06's sentiment classifier: its batched features against one phrase at a time, in float64."""

import copy

import pytest
import torch

from xai_tf.tasks import sentiment


@pytest.fixture(scope="module")
def phrases() -> list[tuple[str, int]]:
    """Every 11th phrase of both sets: 59 phrases of 4 to 8 tokens on the bundled model, lengths mixed."""
    train, test = sentiment.sentiment_phrases()
    return (train + test)[::11]


def _one_at_a_time(clf: sentiment.SequenceClassifier, lm, texts: list[str]) -> torch.Tensor:
    """Class scores of each phrase alone, by a float64 copy of the classifier (the reference)."""
    exact = copy.deepcopy(clf).double()
    with torch.no_grad():
        return torch.cat([exact(lm.encode(text)) for text in texts])


def test_batched_scores_are_the_one_phrase_forward_passes(bundled, phrases, monkeypatch):
    """Grouping by token length and cutting each group into batches keeps every row's phrase and its
    scores: the float32 batched scores agree with float64 one-phrase passes to float32 rounding (here
    1.1e-6 at most, float32 one phrase at a time 5.0e-7, scores up to 1.4; a row off by one: 0.87)."""
    texts = [text for text, _ in phrases]
    assert len({len(bundled.encode(t)) for t in texts}) >= 4  # several groups, interleaved in texts
    torch.manual_seed(0)
    clf = sentiment.SequenceClassifier(bundled.model).eval()
    reference = _one_at_a_time(clf, bundled, texts)
    for max_tokens in (sentiment.MAX_BATCH_TOKENS, 20):  # one batch per length, then several
        monkeypatch.setattr(sentiment, "MAX_BATCH_TOKENS", max_tokens)
        found = clf.head(sentiment.phrase_features(clf, bundled, texts))
        assert found.dtype == torch.float32 and found.shape == (len(texts), 2)
        torch.testing.assert_close(found.double(), reference, rtol=0, atol=1e-5)


def test_accuracy_and_training_read_the_batched_features(bundled, phrases):
    """accuracy is the share of right argmaxes of the float64 one-phrase reference."""
    clf = sentiment.train_classifier(bundled, phrases, sentiment.OPTIONS.replace(steps=30))
    reference = _one_at_a_time(clf, bundled, [text for text, _ in phrases])
    right = sum(int(r.argmax()) == label for r, (_, label) in zip(reference, phrases, strict=True))
    assert (reference[:, 0] - reference[:, 1]).abs().min() > 1e-4  # no argmax decided by rounding
    assert sentiment.accuracy(clf, bundled, phrases) == right / len(phrases)
