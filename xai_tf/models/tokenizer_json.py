"""A checkpoint's own tokenizer (every lesson, on a model loaded from a directory): Hugging Face's
``tokenizer.json`` read by the ``tokenizers`` library, behind the calls the helpers make of a causal
model's tokenizer (tiktoken's, ``tokenization.py``):

    encode(text)     the text's token ids, nothing added: ``encode(" ")[0]`` is the token of a space
    decode(ids)      the text of ids, special tokens written out as tiktoken writes <|endoftext|>
    eot_token        the end-of-sequence id (config.json's ``eos_token_id``; None when it has none)
    token_bytes(i)   the bytes token i stands for: byte-level BPE's pieces (GPT-2, Qwen2, Llama 3: "Ġbe")
                     mapped back through GPT-2's byte-to-character table, SentencePiece's (Llama 2,
                     Mistral: "▁be") with "▁" as a space and "<0x0A>" as its byte, special tokens as written
    len(tokenizer)   D, the model's vocabulary (it may have rows beyond the tokenizer's: label "<id>")
    prepended        the ids Hugging Face's tokenizer puts before every text: the beginning-of-sequence
                     token of Llama and Mistral (``<s>``, ``<|begin_of_text|>``), none for Qwen2

``LoadedModel.encode`` puts ``prepended`` before the text's ids, as ``AutoTokenizer`` does by default;
the prefix is read off the file's post-processor. A post-processor that adds tokens after the text
(BERT's [SEP]) is refused: a causal model here reads no end marker it was not given.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from tokenizers import Tokenizer

BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")


@cache
def _byte_decoder() -> dict[str, int]:
    """GPT-2's table from the printable character that stands for each byte in a byte-level BPE's
    vocabulary back to the byte: bytes ! .. ~, ¡ .. ¬ and ® .. ÿ stand for themselves, the other 68
    (space, control characters, …) for chr(256), chr(257), … in byte order (space is "Ġ")."""
    printable = {
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    }
    shifted = (b for b in range(256) if b not in printable)
    table = {chr(b): b for b in printable}
    table |= {chr(256 + n): b for n, b in enumerate(shifted)}
    return table


class JSONTokenizer:
    """A ``tokenizers.Tokenizer`` for a model of ``n_vocab`` token ids (the calls in the module docstring)."""

    def __init__(
        self, tokenizer: Tokenizer, n_vocab: int, eot_token: int | None, source: str = "tokenizer.json"
    ):
        self._tokenizer = tokenizer
        self.n_vocab = n_vocab
        # an id the model cannot emit (a default left in a small config) ends nothing: no end-of-text
        self.eot_token = eot_token if eot_token is not None and 0 <= eot_token < n_vocab else None
        size = tokenizer.get_vocab_size(with_added_tokens=True)
        if size > n_vocab:
            raise ValueError(f"{source} has {size} tokens but the model's vocab_size is {n_vocab}")
        plain = tokenizer.encode("a", add_special_tokens=False).ids
        full = tokenizer.encode("a", add_special_tokens=True).ids
        n = len(full) - len(plain)
        if n < 0 or full[n:] != plain:
            raise ValueError(
                f"{source}'s post_processor adds tokens after the text ({full} for 'a', {plain} without): "
                "only tokens before it (a beginning-of-sequence token) are supported"
            )
        self.prepended = tuple(full[:n])
        specials = [t for t in tokenizer.get_added_tokens_decoder().items() if t[1].special]
        self._special_ids = {i for i, _ in specials}
        #: The special tokens' text (``LoadedModel.encode`` refuses them in a prompt).
        self.special_tokens_set = {t.content for _, t in specials}
        self._byte_level = "ByteLevel" in _decoder_types(json.loads(tokenizer.to_str()).get("decoder"))

    @classmethod
    def from_file(cls, path: Path, n_vocab: int, eot_token: int | None) -> JSONTokenizer:
        """The tokenizer of ``path`` (a ``tokenizer.json``)."""
        try:
            tokenizer = Tokenizer.from_file(str(path))
        except Exception as err:  # the tokenizers library raises its own Exception subclass for any bad file
            raise ValueError(f"{path} is not a tokenizer the tokenizers library reads: {err}") from err
        return cls(tokenizer, n_vocab, eot_token, str(path))

    def __len__(self) -> int:
        return self.n_vocab

    def encode(self, text: str) -> list[int]:
        """The ids of ``text``'s tokens, with nothing added before or after."""
        return self._tokenizer.encode(text, add_special_tokens=False).ids

    def decode(self, ids: list[int]) -> str:
        """The text of ``ids`` (special tokens included, as written)."""
        return self._tokenizer.decode([int(i) for i in ids], skip_special_tokens=False)

    def token_bytes(self, token: int) -> bytes:
        """The bytes token id ``token`` stands for (the module docstring says how each kind is read)."""
        piece = self._tokenizer.id_to_token(int(token))
        if piece is None:
            return f"<{int(token)}>".encode()
        if int(token) in self._special_ids:
            return piece.encode()
        if self._byte_level:
            table = _byte_decoder()
            if all(c in table for c in piece):
                return bytes(table[c] for c in piece)
            return piece.encode()
        byte = BYTE_PIECE.fullmatch(piece)
        return bytes([int(byte[1], 16)]) if byte else piece.replace("▁", " ").encode()


def _decoder_types(decoder: dict | None) -> set[str]:
    """The types of a tokenizer.json ``decoder`` and of those it chains (``Sequence``)."""
    if not decoder:
        return set()
    return {decoder["type"]}.union(*(_decoder_types(d) for d in decoder.get("decoders", [])))
