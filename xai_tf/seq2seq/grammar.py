"""The grammar that generates lesson 16's sentence pairs, each with its gold word alignment.

A pair is built from phrases that carry their own links; joining phrases shifts the links, and a
phrase's target may put its parts in another order than its source. What makes the alignment
interesting, and where it comes from:

- adjective–noun swap: ``the red car`` → ``o carro vermelho`` (and the adjective agrees in gender);
- a verb-final subordinate clause (invented for the reordering; Portuguese does not do this):
  ``because the dog sees the cat`` → ``porque o cão o gato vê``;
- many-to-one: ``to the`` → ``à``/``ao``, ``in the`` → ``na``/``no``, ``from the`` → ``da``/``do``,
  ``I am going`` → ``vou``, ``I see`` → ``vejo`` (the pronoun lives in the verb's ending),
  ``does not`` + verb → ``não`` + verb (``does`` links to the verb);
- one-to-many: ``my`` → ``o meu``/``a minha``, ``again`` → ``outra vez``, ``every day`` →
  ``todos os dias``;
- length: coordination (``and``, ``but``), relative clauses (``that`` …) and one subordinate clause
  make source sentences of 3 to about 40 words.

Links are pairs (i, j): target position i, source position j — the row and column of the attention
matrix α_ij of lesson 16. All links are *sure* links (the grammar knows every correspondence).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import accumulate
from typing import TypeVar

from xai_tf import _checks
from xai_tf.seq2seq import lexicon

Link = tuple[int, int]
T = TypeVar("T")

CONTRACTIONS = {"to": ("ao", "à"), "in": ("no", "na"), "from": ("do", "da")}
DETERMINERS = {"the": (("o",), ("a",)), "a": (("um",), ("uma",)), "my": (("o", "meu"), ("a", "minha"))}
CONJUNCTIONS = {"and": "e", "but": "mas"}
SUBORDINATORS = {"because": "porque", "when": "quando", "while": "enquanto"}
ADVERBS = {("today",): ("hoje",), ("now",): ("agora",), ("again",): ("outra", "vez"),
           ("every", "day"): ("todos", "os", "dias")}  # fmt: skip
OTHER_SOURCE = ("I", "am", "is", "going", "do", "does", "not", "that", "with")
OTHER_TARGET = ("vou", "vai", "não", "que", "com")


@dataclass(frozen=True)
class Phrase:
    """Source words, target words and the links (i, j) between them (target i, source j)."""

    source: tuple[str, ...]
    target: tuple[str, ...]
    links: frozenset[Link]


def _phrase(
    source: tuple[str, ...], target: tuple[str, ...], pairs: tuple[tuple[int, int], ...] | None = None
) -> Phrase:
    """A phrase whose links are the (source j, target i) ``pairs``; None links every word to every word
    (one unit: one-to-one, many-to-one or one-to-many)."""
    if pairs is None:
        pairs = tuple((j, i) for j in range(len(source)) for i in range(len(target)))
    return Phrase(source, target, frozenset((i, j) for j, i in pairs))


EMPTY = Phrase((), (), frozenset())


def _join(*parts: Phrase, order: tuple[int, ...] | None = None) -> Phrase:
    """The parts' sources in their order and their targets in ``order`` (default: the same), links shifted."""
    order = tuple(range(len(parts))) if order is None else order
    j0 = list(accumulate((len(p.source) for p in parts), initial=0))
    i0: dict[int, int] = {}
    start = 0
    for k in order:
        i0[k], start = start, start + len(parts[k].target)
    return Phrase(
        tuple(w for p in parts for w in p.source),
        tuple(w for k in order for w in parts[k].target),
        frozenset((i + i0[k], j + j0[k]) for k, p in enumerate(parts) for i, j in p.links),
    )


@dataclass(frozen=True)
class Lexicon:
    nouns: tuple[tuple[str, str, int, bool], ...]  # English, Portuguese, gender (0 m, 1 f), place
    adjectives: tuple[tuple[str, str], ...]
    transitive: tuple[tuple[str, str, str, str], ...]  # en base, en 3sg, pt 3sg, pt 1sg
    intransitive: tuple[tuple[str, str, str, str], ...]


def _verb(fields: list[str]) -> tuple[str, str, str, str]:
    base, third, infinitive = fields[:3]
    if len(fields) == 5:
        return base, third, fields[3], fields[4]
    stem, ending = infinitive[:-2], infinitive[-2:]
    return base, third, stem + ("a" if ending == "ar" else "e"), stem + "o"


@cache
def load() -> Lexicon:
    """The word tables of ``xai_tf.seq2seq.lexicon``, parsed."""
    rows = [line.split() for line in lexicon.NOUNS.strip().splitlines()]
    return Lexicon(
        tuple((r[0], r[1], int(r[2] == "f"), len(r) > 3) for r in rows),
        tuple(tuple(line.split()) for line in lexicon.ADJECTIVES.strip().splitlines()),  # type: ignore[misc]
        tuple(_verb(line.split()) for line in lexicon.TRANSITIVE.strip().splitlines()),
        tuple(_verb(line.split()) for line in lexicon.INTRANSITIVE.strip().splitlines()),
    )


def _feminine(adjective: str) -> str:
    """The feminine of a Portuguese adjective: -o → -a, other endings unchanged."""
    return adjective[:-1] + "a" if adjective.endswith("o") else adjective


def source_words() -> set[str]:
    """Every word the grammar can put in a source sentence."""
    lex = load()
    verbs = [w for v in lex.transitive + lex.intransitive for w in v[:2]]
    return {
        *(n[0] for n in lex.nouns), *(a[0] for a in lex.adjectives), *verbs, *CONTRACTIONS, *DETERMINERS,
        *CONJUNCTIONS, *SUBORDINATORS, *(w for a in ADVERBS for w in a), *OTHER_SOURCE,
    }  # fmt: skip


def target_words() -> set[str]:
    """Every word the grammar can put in a target sentence."""
    lex = load()
    verbs = [w for v in lex.transitive + lex.intransitive for w in v[2:]]
    adjectives = [f(a[1]) for a in lex.adjectives for f in (str, _feminine)]
    return {
        *(n[1] for n in lex.nouns), *adjectives, *verbs, *(w for c in CONTRACTIONS.values() for w in c),
        *(w for d in DETERMINERS.values() for g in d for w in g), *CONJUNCTIONS.values(),
        *SUBORDINATORS.values(), *(w for a in ADVERBS.values() for w in a), *OTHER_TARGET,
    }  # fmt: skip


class Generator:
    """Random sentence pairs from the grammar, drawn with Python's generator seeded with ``seed``."""

    def __init__(self, seed: int):
        self.rng = random.Random(_checks.integer("seed", seed, 0))
        self.lex = load()

    def _pick(self, options: Sequence[T]) -> T:
        return options[self.rng.randrange(len(options))]

    def _chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def noun_group(self, places: bool = False) -> tuple[Phrase, int]:
        """[adjective] noun → noun [adjective] (the swap), and the noun's gender."""
        nouns = [n for n in self.lex.nouns if n[3]] if places else self.lex.nouns
        en, pt, gender, _ = self._pick(nouns)
        noun = _phrase((en,), (pt,))
        if not self._chance(0.4):
            return noun, gender
        a_en, a_pt = self._pick(self.lex.adjectives)
        adjective = _phrase((a_en,), (_feminine(a_pt) if gender else a_pt,))
        return _join(adjective, noun, order=(1, 0)), gender

    def noun_phrase(self, relative: bool) -> Phrase:
        """determiner [adjective] noun [that + verb phrase]."""
        group, gender = self.noun_group()
        det = self._pick(list(DETERMINERS))
        np_ = _join(_phrase((det,), DETERMINERS[det][gender]), group)
        if relative and self._chance(0.25):
            verb, rest = self.predicate(first_person=False, relative=False)
            np_ = _join(np_, _phrase(("that",), ("que",)), verb, rest)
        return np_

    def place(self, preposition: str) -> Phrase:
        """to/in/from the [adjective] place → ao/à/no/na/do/da place [adjective]."""
        group, gender = self.noun_group(places=True)
        return _join(_phrase((preposition, "the"), (CONTRACTIONS[preposition][gender],)), group)

    def predicate(self, first_person: bool, relative: bool) -> tuple[Phrase, Phrase]:
        """The verb group (with ``I`` folded into the verb when ``first_person``) and what follows it."""
        kind = self._pick(("going", "intransitive", "transitive", "transitive"))
        subject = ("I",) if first_person else ()
        if kind == "going":
            verb = _phrase(
                (*subject, "am" if first_person else "is", "going"), ("vou" if first_person else "vai",)
            )
            return verb, self.place("to")
        en_base, en_3sg, pt_3sg, pt_1sg = self._pick(
            self.lex.intransitive if kind == "intransitive" else self.lex.transitive
        )
        pt = pt_1sg if first_person else pt_3sg
        s = len(subject)
        if self._chance(0.2):  # (I) do/does not V → não V
            aux = "do" if first_person else "does"
            links = tuple((j, 1) for j in range(s)) + ((s, 1), (s + 1, 0), (s + 2, 1))
            verb = _phrase((*subject, aux, "not", en_base), ("não", pt), links)
        else:
            verb = _phrase((*subject, en_base if first_person else en_3sg), (pt,))
        rest = self.noun_phrase(relative) if kind == "transitive" else EMPTY
        if self._chance(0.3):
            pp = (
                self.place(self._pick(("in", "from")))
                if self._chance(0.6)
                else _join(_phrase(("with",), ("com",)), self.noun_phrase(False))
            )
            rest = _join(rest, pp)
        return verb, rest

    def clause(self, verb_final: bool = False) -> Phrase:
        """subject verb rest; in a subordinate clause the target puts the verb last."""
        first_person = self._chance(0.25)
        subject = EMPTY if first_person else self.noun_phrase(relative=True)
        verb, rest = self.predicate(first_person, relative=True)
        return _join(subject, verb, rest, order=(0, 2, 1) if verb_final else None)

    def sentence(self, clauses: int, subordinate: bool, adverb: bool) -> Phrase:
        """Clauses joined by and/but, then an optional because/when/while clause and adverb."""
        out = self.clause()
        for _ in range(clauses - 1):
            conj = self._pick(list(CONJUNCTIONS))
            out = _join(out, _phrase((conj,), (CONJUNCTIONS[conj],)), self.clause())
        if subordinate:
            sub = self._pick(list(SUBORDINATORS))
            out = _join(out, _phrase((sub,), (SUBORDINATORS[sub],)), self.clause(verb_final=True))
        if adverb:
            en = self._pick(list(ADVERBS))
            out = _join(out, _phrase(en, ADVERBS[en]))
        return out

    def random_sentence(self) -> Phrase:
        """One pair of random shape: a third of the time one clause alone (short sentences), a third
        three clauses and a subordinate one (long sentences), else 1 to 3 clauses, a subordinate
        clause and an adverb at random."""
        mode = self.rng.randrange(3)
        if mode == 0:
            return self.sentence(1, False, False)
        if mode == 1:
            return self.sentence(3, True, self._chance(0.2))
        return self.sentence(self.rng.randint(1, 3), self._chance(0.4), self._chance(0.2))


#: The lecture's example (lecture 001: "I am going to the store → Vou à loja"), with its links.
EXAMPLE = _join(
    _phrase(("I", "am", "going"), ("vou",)), _phrase(("to", "the"), ("à",)), _phrase(("store",), ("loja",))
)
