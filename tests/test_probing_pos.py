"""Lesson 19's part-of-speech label (``xai_tf.probing.pos``): TextBlob's PatternTagger tags offline (no
NLTK data, no network), its tags for a fixed line, the coarse map against Petrov et al. (2012)'s table,
and the mapping from tagged words to the bundled model's sub-word tokens, written out by hand."""

import os
import subprocess
import sys

import pytest

import xai_tf
from xai_tf.probing import data, pos

LINE = "Is this a dagger which I see before me,"
#: PatternTagger's output for LINE (textblob 0.20.1), each tag read and checked by hand
LINE_TAGS = [
    ("Is", "VBZ"), ("this", "DT"), ("a", "DT"), ("dagger", "NN"), ("which", "WDT"), ("I", "PRP"),
    ("see", "VB"), ("before", "IN"), ("me", "PRP"), (",", ","),
]  # fmt: skip


@pytest.fixture(scope="module")
def lm():
    return xai_tf.load_model("shakespeare")


def test_the_tagger_gives_its_penn_tags_for_a_fixed_line():
    assert pos.tag_words(LINE) == LINE_TAGS
    assert pos.tag_words("   ") == []


def test_tagging_needs_no_nltk_data_and_no_network(tmp_path):
    """In a fresh interpreter with an empty HOME, NLTK_DATA pointing at an empty folder and every socket
    connection refused, the tagger still tags (its lexicon and rules ship in the textblob wheel)."""
    script = (
        "import socket\n"
        "def refuse(*a, **k): raise OSError('network')\n"
        "socket.socket.connect = refuse\nsocket.create_connection = refuse\n"
        "import nltk, os\n"
        "assert not [p for p in nltk.data.path if os.path.exists(p)], nltk.data.path\n"
        "from xai_tf.probing import pos\n"
        f"print(pos.tag_words({LINE!r}))\n"
    )
    env = {**os.environ, "HOME": str(tmp_path), "NLTK_DATA": str(tmp_path / "none")}
    env.pop("XDG_DATA_HOME", None)
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == repr(LINE_TAGS)


def test_the_coarse_map_follows_petrov_et_al_with_num_and_x_merged_into_other():
    # Petrov, Das & McDonald (2012), en-ptb.map, written out: NUM (CD) and X (FW, LS, SYM, UH) → other
    table = {
        "noun": "NN NNS NNP NNPS", "verb": "MD VB VBD VBG VBN VBP VBZ", "adj": "JJ JJR JJS",
        "adv": "RB RBR RBS WRB", "pron": "PRP PRP$ WP WP$", "det": "DT EX PDT WDT", "adp": "IN",
        "prt": "POS RP TO", "conj": "CC", "punct": ". , : `` '' -LRB- -RRB- ( ) # $ \"",
        "other": "CD FW LS SYM UH",
    }  # fmt: skip
    for tag, penn in table.items():
        assert [pos.coarse(p) for p in penn.split()] == [tag] * len(penn.split()), tag
    assert set(table) == set(pos.COARSE)


def test_tokens_take_the_tag_of_the_word_that_holds_their_first_byte(lm):
    text = "MACBETH.\n" + LINE + "\nCome, let me clutch thee.\n"
    ids = lm.tokenizer.encode(text)
    # by hand: the tagger's word tags (noun for the heading, "clutch" mis-tagged NN), each sub-word piece
    # of a word (MA|C|BE|TH, d|ag|ger, cl|ut|ch) with its word, line breaks "other"
    expected = [
        ("MA", "noun"), ("C", "noun"), ("BE", "noun"), ("TH", "noun"), (".", "punct"), ("↵", "other"),
        ("Is", "verb"), (" this", "det"), (" a", "det"), (" d", "noun"), ("ag", "noun"), ("ger", "noun"),
        (" which", "det"), (" I", "pron"), (" see", "verb"), (" before", "adp"), (" me", "pron"),
        (",", "punct"), ("↵", "other"), ("Come", "verb"), (",", "punct"), (" let", "verb"), (" me", "pron"),
        (" cl", "noun"), ("ut", "noun"), ("ch", "noun"), (" thee", "pron"), (".", "punct"), ("↵", "other"),
    ]  # fmt: skip
    assert list(zip(lm.token_strings(ids), pos.token_tags(lm, ids), strict=True)) == expected


def test_play_data_carries_the_tags_of_each_window(lm):
    scene = "MACBETH.\n" + LINE + "\n\nBANQUO.\nCome, let me clutch thee.\n\n"
    d = data.play_data(lm, scene * 6, n_windows=4, T=16)
    y = d.labels["part of speech"]
    assert y.shape == (d.n_tokens,) and data.LABELS["part of speech"] == list(pos.COARSE)
    for k, row in enumerate(d.ids):
        assert [pos.COARSE[i] for i in y[16 * k : 16 * (k + 1)]] == pos.token_tags(lm, row)
