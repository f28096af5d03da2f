"""Probe labels, one per token (lesson 19): three the text defines exactly, and part of speech.

A play's text is tokenized once; every token t gets, from the text alone (no tagger, no annotator):

- ``line kind``: the kind of line the token lies on — "heading" (a speaker's name in capitals ending
  with a full stop, "LADY MACBETH."), "direction" (a stage direction in brackets, "[Enter Lady
  Macbeth.]") or "speech" (any other line: verse or prose). A newline token belongs to the line it ends.
- ``position``: the token's index in its line, 0, 1, …, capped at ``MAX_POSITION`` ("7+").
- ``word start``: 1 if the token starts a word, 0 if it continues one (lesson 07's ``word_groups``:
  a leading space or newline, or punctuation, starts a word).

and, from a tagger, ``part of speech``: the coarse tag of the word the token lies in (``pos``: TextBlob's
PatternTagger, offline, trained on modern English). And its ``type`` (token id), which the control task
of Hewitt & Liang (2019) keys its random labels on.
Windows of T tokens start at line starts (so a token's position in its line is visible to the model)
and are split into probe-training and test windows, never tokens of one window on both sides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import torch
from torch import Tensor

from xai_tf import _checks, seeds
from xai_tf.explain.wordlevel import words_of
from xai_tf.models.loaded import LoadedModel
from xai_tf.probing import _windows, pos

MAX_POSITION = 7
LINE_KINDS = ("heading", "direction", "speech")
LABELS = {
    "line kind": list(LINE_KINDS),
    "position": [str(i) for i in range(MAX_POSITION)] + [f"{MAX_POSITION}+"],
    "word start": ["continues a word", "starts a word"],
    "part of speech": list(pos.COARSE),
}
_HEADING = re.compile(r"^[A-Z][A-Z '\-]*\.$")


def line_kind(line: str) -> str | None:
    """ "heading", "direction", "speech", or None for a blank line."""
    if not isinstance(line, str):
        raise TypeError(f"line must be a string (one line of a play), got {type(line).__name__}")
    text = line.strip()
    if not text:
        return None
    if _HEADING.match(text):
        return "heading"
    return "direction" if text.startswith("[") else "speech"


@dataclass
class ProbeData:
    """Token windows ``ids [n, T]``, and per token (flattened, n·T) its ``labels[name]`` and ``types``."""

    ids: Tensor
    labels: dict[str, Tensor]
    types: Tensor

    @property
    def n_tokens(self) -> int:
        return self.ids.numel()

    def split(self, train_share: float = 0.75, seed: int = 0) -> tuple[Tensor, Tensor]:
        """Token indices ``(train, test)``: a seeded share of the windows for training, the rest test."""
        _checks.real("train_share", train_share, 0, 1, open_lo=True, open_hi=True)
        n, T = self.ids.shape
        order = torch.randperm(n, generator=seeds.generator(seed))
        cut = min(max(1, round(train_share * n)), n - 1)
        rows = torch.arange(n * T).view(n, T)
        return rows[order[:cut]].flatten(), rows[order[cut:]].flatten()


def spread(starts: list[int], n_windows: int) -> list[int]:
    """``n_windows`` of the usable window starts ``starts``, spread evenly from the first to the last."""
    n_windows = _checks.integer("n_windows", n_windows, 1)
    if not isinstance(starts, list | tuple) or not all(
        isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in starts
    ):
        raise TypeError("starts must be a list of window starts (integers ≥ 0)")
    if len(starts) < n_windows:
        raise ValueError(
            f"text has {len(starts)} usable line starts; n_windows must be ≤ that, got {n_windows}"
        )
    return [starts[round(k * (len(starts) - 1) / max(1, n_windows - 1))] for k in range(n_windows)]


def _token_lines(lm: LoadedModel, text: str, ids: list[int]) -> list[int]:
    """The line (0-based) each token belongs to: the line of its first character."""
    lines, offset, out = 0, 0, []
    data = text.encode("utf-8")
    for token in ids:
        width = len(lm.tokenizer.decode_single_token_bytes(token))
        piece = data[offset : offset + width]
        out.append(lines)  # a newline token starts on, and ends, the line it closes
        lines += piece.count(b"\n")
        offset += width
    return out


def play_data(lm: LoadedModel, text: str, n_windows: int = 48, T: int = 64) -> ProbeData:
    """``n_windows`` windows of ``T`` tokens of ``text``, spread evenly over it, each starting at a line
    start, with the labels above. Needs a model whose tokenizer is a byte-level BPE (the bundled model,
    GPT-2)."""
    lm = _windows.loaded(lm)
    if not hasattr(lm.tokenizer, "decode_single_token_bytes"):
        raise ValueError(
            f"{lm.name}'s tokenizer is not byte-level BPE: play_data needs 'shakespeare' or 'gpt2'"
            " (an encoder's WordPiece tokens: probing.wordpiece.play_data)"
        )
    _checks.integer("n_windows", n_windows, 2)
    _checks.integer("T", T, 2, lm.n_ctx)
    if not isinstance(text, str) or not text.strip():
        raise ValueError("text is empty: pass a play's text (corpus.read_plays())")
    ids = lm.tokenizer.encode(text)
    lines = _token_lines(lm, text, ids)
    kinds = [line_kind(line) for line in text.split("\n")]
    starts = [i for i in range(1, len(ids) - T) if lines[i] != lines[i - 1] and kinds[lines[i]]]
    windows, kind, position, start = [], [], [], []
    for s in spread(starts, n_windows):
        window = ids[s : s + T]
        windows.append(window)
        _, groups, _ = words_of(lm, window)
        firsts = {g[0] for g in groups}
        for i in range(T):
            line = lines[s + i]
            k = kinds[line] or "speech"
            kind.append(LINE_KINDS.index(k))
            first = next(j for j in range(i, -1, -1) if j == 0 or lines[s + j - 1] != line)
            position.append(min(i - first, MAX_POSITION))
            start.append(int(i in firsts))
    ids_t = torch.tensor(windows)
    labels = {
        "line kind": torch.tensor(kind),
        "position": torch.tensor(position),
        "word start": torch.tensor(start),
        "part of speech": pos.pos_labels(lm, ids_t),
    }
    return ProbeData(ids_t, labels, ids_t.flatten())
