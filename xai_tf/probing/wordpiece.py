"""Probe labels for an encoder's WordPiece tokens, aligned by character offsets (lesson 19, MiniLM).

MiniLM's tokenizer (BERT's uncased WordPiece) splits the text at whitespace and drops it: no token holds
a line break, so ``data``'s labels cannot be read off its tokens the way they are off the bundled BPE's
bytes. Its fast tokenizer gives every token i its character span [a_i, b_i) in the text (the offset
mapping), and the labels follow from the text at a_i, the token's first character:

- ``line kind``: ``data.line_kind`` of the line that holds a_i;
- ``position``: the token's index among the tokens of that line, 0, 1, …, capped at ``MAX_POSITION``;
- ``word start``: WordPiece's own boundary — 0 for a continuation piece ("##…"), else 1 (whitespace and
  every punctuation mark start a word, so "Banquo." is two words, where lesson 07's groups merge the stop);
- ``part of speech``: the coarse tag (``pos``) of the tagged word that holds a_i, the line tagged whole, as
  the play prints it (the bundled model's labels tag a line as its window cuts it).

Windows hold T such tokens and start at a line start; the model reads each as [CLS] window [SEP], as it
was trained, and the states of [CLS] and [SEP] are dropped: they have no labels.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from itertools import accumulate

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.models.loaded import LoadedModel
from xai_tf.probing import _windows, features, pos
from xai_tf.probing.data import LABELS, LINE_KINDS, MAX_POSITION, ProbeData, line_kind, spread


def _char_tags(line: str) -> list[str]:
    """``pos.byte_tags`` of one line, one tag per character (the tag of its first byte)."""
    tags = pos.byte_tags(line.encode("utf-8"))
    firsts = accumulate((len(c.encode("utf-8")) for c in line), initial=0)
    return [tags[b] for b, _ in zip(firsts, line, strict=False)]


def token_labels(text: str, offsets: Sequence[tuple[int, int]], pieces: Sequence[str]) -> dict[str, Tensor]:
    """``data.LABELS``' four labels (indices into their names) of tokens given by their character spans
    ``offsets`` in ``text`` (in order) and their WordPiece strings ``pieces``; the first token must start a
    line (its position is counted from there)."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("text is empty: pass the text the tokens were cut from")
    if not isinstance(offsets, list | tuple) or not isinstance(pieces, list | tuple):
        raise TypeError(
            "offsets and pieces must be lists (character spans and WordPiece strings, one per token)"
        )
    _checks.same_length("token labels", "offsets", offsets, "pieces", pieces)
    starts = [a for a, _ in offsets]
    if not starts or starts != sorted(starts) or starts[0] < 0 or any(b > len(text) for _, b in offsets):
        raise ValueError(f"offsets must be non-empty character spans in order within text's {len(text)}")
    line_starts = [0, *(i + 1 for i, c in enumerate(text) if c == "\n")]
    lines = text.split("\n")
    line_of = [bisect.bisect_right(line_starts, a) - 1 for a in starts]
    if starts[0] != line_starts[line_of[0]] + len(lines[line_of[0]]) - len(lines[line_of[0]].lstrip()):
        raise ValueError("offsets must start at a line's first token: a position is counted from there")
    tags = {line: _char_tags(lines[line]) for line in sorted(set(line_of))}
    kind: list[int] = []
    position: list[int] = []
    start: list[int] = []
    tag: list[int] = []
    for i, (a, line) in enumerate(zip(starts, line_of, strict=True)):
        kind.append(LINE_KINDS.index(line_kind(lines[line]) or "speech"))
        position.append(0 if i == 0 or line_of[i - 1] != line else min(position[-1] + 1, MAX_POSITION))
        start.append(int(not pieces[i].startswith("##")))
        tag.append(pos.COARSE.index(tags[line][a - line_starts[line]]))
    values = (kind, position, start, tag)
    return {name: torch.tensor(v) for name, v in zip(LABELS, values, strict=True)}


def _encoder(lm: LoadedModel) -> LoadedModel:
    lm = _windows.loaded(lm)
    lm.require("encoder", "WordPiece probe labels")
    if not getattr(lm.tokenizer, "is_fast", False):
        raise ValueError(f"{lm.name}'s tokenizer gives no character offsets: a fast tokenizer is needed")
    return lm


def play_data(lm: LoadedModel, text: str, n_windows: int = 20, T: int = 40) -> ProbeData:
    """``n_windows`` windows of ``T`` WordPiece tokens of ``text``, spread evenly over it, each starting at
    a line start, with the labels above (``ids`` hold the tokens only; ``residual_streams`` adds [CLS] and
    [SEP])."""
    lm = _encoder(lm)
    _checks.integer("n_windows", n_windows, 2)
    _checks.integer("T", T, 2, lm.n_ctx - 2)
    if not isinstance(text, str) or not text.strip():
        raise ValueError("text is empty: pass a play's text (corpus.read_plays())")
    enc = lm.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
    ids, offsets = enc["input_ids"], [tuple(o) for o in enc["offset_mapping"]]
    breaks = [i for i, c in enumerate(text) if c == "\n"]
    line_of = [bisect.bisect_right(breaks, a) for a, _ in offsets]
    firsts = [i for i in range(1, len(ids) - T) if line_of[i] != line_of[i - 1]]
    windows = [list(range(s, s + T)) for s in spread(firsts, n_windows)]
    pieces = lm.tokenizer.convert_ids_to_tokens(ids)
    per_window = [token_labels(text, [offsets[i] for i in w], [pieces[i] for i in w]) for w in windows]
    ids_t = torch.tensor([[ids[i] for i in w] for w in windows])
    labels = {name: torch.cat([lab[name] for lab in per_window]) for name in LABELS}
    return ProbeData(ids_t, labels, ids_t.flatten())


@torch.no_grad()
def residual_streams(lm: LoadedModel, ids: Tensor, batch_size: int = 16) -> Tensor:
    """h_0..h_L of every token of the windows ``ids [n, T]``, each read as [CLS] window [SEP]:
    ``[L + 1, n·T, d_e]`` (``features.residual_streams`` without the two special tokens' states)."""
    lm = _encoder(lm)
    ids = _checks.token_ids("ids", ids, lm.vocab_size)
    if ids.dim() != 2:
        raise ValueError(f"ids must be token windows [n, T] (ProbeData.ids), got shape {tuple(ids.shape)}")
    n, T = ids.shape
    cls = torch.full((n, 1), lm.tokenizer.cls_token_id, dtype=ids.dtype, device=ids.device)
    sep = torch.full((n, 1), lm.tokenizer.sep_token_id, dtype=ids.dtype, device=ids.device)
    H = features.residual_streams(lm, torch.cat([cls, ids, sep], 1), batch_size)
    return H.view(H.size(0), n, T + 2, -1)[:, :, 1:-1].flatten(1, 2)
