"""Part of speech as a probe label (lesson 19), from TextBlob's PatternTagger, offline.

The tagger: TextBlob's ``PatternTagger`` (Tom De Smedt's Pattern: a Brill tagger whose lexicon and
contextual rules ship inside the ``textblob`` wheel; it needs no NLTK data, unlike TextBlob's default
sentence splitting and its NLTK tagger). It tags words with the Penn Treebank tag set; its lexicon and
rules come from Brill's tagger v1.14, trained on the Brown corpus and the Penn Treebank (the wheel's
``en-lexicon.txt`` says so): *modern* English. Shakespeare's Early Modern English ("thou art", "thy",
"'tis") lies outside that, so its tags are a noisy label here.

Penn tags are mapped to a coarse tag set after Petrov, Das & McDonald (2012), "A Universal Part-of-Speech
Tagset", with NUM, X and tokens that belong to no tagged word (line breaks, spaces) merged into "other":

    noun NN NNS NNP NNPS · verb VB VBD VBG VBN VBP VBZ MD · adj JJ JJR JJS · adv RB RBR RBS WRB ·
    pron PRP PRP$ WP WP$ · det DT PDT WDT EX · adp IN · prt RP TO POS · conj CC · punct (punctuation tags)

From words to sub-word tokens: each token takes the tag of the tagged word that contains its first
non-space byte. Each window is tagged line by line (the line its tokens lie on, as the window shows it: a
line cut by the window's end is tagged as cut).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.models.loaded import LoadedModel
from xai_tf.probing import _windows

COARSE = ("noun", "verb", "adj", "adv", "pron", "det", "adp", "prt", "conj", "punct", "other")
_PENN = {
    "noun": "NN NNS NNP NNPS",
    "verb": "VB VBD VBG VBN VBP VBZ MD",
    "adj": "JJ JJR JJS",
    "adv": "RB RBR RBS WRB",
    "pron": "PRP PRP$ WP WP$",
    "det": "DT PDT WDT EX",
    "adp": "IN",
    "prt": "RP TO POS",
    "conj": "CC",
    "punct": "-LRB- -RRB-",  # brackets; every other punctuation tag has no letter (``coarse``)
}
PENN_TO_COARSE = {penn: coarse for coarse, tags in _PENN.items() for penn in tags.split()}


def coarse(penn: str) -> str:
    """The coarse tag of a Penn Treebank tag: punctuation tags (no letter) → "punct", unknown → "other"."""
    if not isinstance(penn, str):
        raise TypeError(f"penn must be a Penn Treebank tag (a string), got {type(penn).__name__}")
    if penn in PENN_TO_COARSE:
        return PENN_TO_COARSE[penn]
    return "punct" if penn and not any(c.isalpha() for c in penn) else "other"


@cache
def _tagger() -> Any:
    from textblob.en.taggers import PatternTagger  # imports nltk: done once, when first tagging

    return PatternTagger()


def tag_words(text: str) -> list[tuple[str, str]]:
    """TextBlob's PatternTagger on ``text``: ``[(word, Penn tag), …]`` (its own tokenization)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    return [(str(w), str(t)) for w, t in _tagger().tag(text)] if text.strip() else []


def byte_tags(line: bytes) -> list[str]:
    """The coarse tag of every byte of one line: the tag of the tagged word that spans it, else "other".
    Words are found left to right in the line; a word the tagger rewrote (not found) tags nothing."""
    if not isinstance(line, bytes) or b"\n" in line:
        raise TypeError("line must be one line of text as bytes (no newline), e.g. 'Is this'.encode()")
    tags = ["other"] * len(line)
    at = 0
    for word, penn in tag_words(line.decode("utf-8", errors="replace")):
        w = word.encode("utf-8")
        start = line.find(w, at)
        if start < 0:
            continue
        tags[start : start + len(w)] = [coarse(penn)] * len(w)
        at = start + len(w)
    return tags


def token_tags(lm: LoadedModel, ids: list[int] | Tensor) -> list[str]:
    """The coarse tag of each token of one window ``ids`` (module docstring: first non-space byte)."""
    lm = _windows.loaded(lm)
    if not hasattr(lm.tokenizer, "decode_single_token_bytes"):
        raise ValueError(
            f"{lm.name}'s tokenizer is not byte-level BPE: token_tags needs 'shakespeare' or 'gpt2'"
        )
    ids = _checks.token_ids("ids", ids, lm.vocab_size)
    if ids.dim() != 1:
        raise ValueError(f"ids must be one window of token ids [T], got shape {tuple(ids.shape)}")
    pieces = [lm.tokenizer.decode_single_token_bytes(i) for i in ids.tolist()]
    text = b"".join(pieces)
    per_byte = [tag for line in text.split(b"\n") for tag in byte_tags(line) + ["other"]]
    out, at = [], 0
    for piece in pieces:
        first = next((at + k for k, b in enumerate(piece) if not bytes([b]).isspace()), None)
        out.append("other" if first is None else per_byte[first])
        at += len(piece)
    return out


def pos_labels(lm: LoadedModel, ids: Tensor) -> Tensor:
    """Index into ``COARSE`` of every token of the windows ``ids [n, T]``, flattened (n·T), in order."""
    if not isinstance(ids, Tensor) or ids.dim() != 2:
        raise ValueError("ids must be token windows [n, T] (ProbeData.ids), a 2-d tensor")
    return torch.tensor([COARSE.index(t) for row in ids for t in token_tags(lm, row)])
