"""Lesson 17's beam search with a length penalty: against brute-force enumeration of every output on a
tiny vocabulary (the reference scores each sequence with one teacher-forced pass, not with the search's
incremental steps), width 1 against greedy decoding written out by hand, and the shipped record."""

import itertools
import json
import math

import pytest
import torch

from xai_tf import _cancel
from xai_tf.encdec import beam, beam_sweep, evaluate, shipped
from xai_tf.encdec.model import DecoderOnly, Seq2SeqTransformer

pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")

WORDS = (3, 4, 5)  # a target vocabulary of padding, <bos>, <eos> and three words


def _tiny(kind: type, seed: int):
    torch.manual_seed(seed)
    n_layers = 2 if kind is DecoderOnly else 1
    m = kind(9, 6, d_e=8, n_heads=2, n_layers=n_layers, d_ff=16).double().eval()
    for p in m.parameters():  # sharper, seed-dependent distributions than the initialisation's
        p.data *= 3
    return m


def _log_p(model, source: list[int], target: list[int]) -> float:
    """log p(target, <eos> | source) from one teacher-forced pass."""
    x = torch.tensor([source])
    with torch.no_grad():
        logits = model(x, x != 0, torch.tensor([[1, *target]]))[0][0]
    logp = torch.log_softmax(logits.double(), -1)
    return float(sum(logp[i, y] for i, y in enumerate([*target, 2])))


def _brute_force(model, source: list[int], max_length: int, alpha: float) -> tuple[float, list[int]]:
    best: tuple[float, list[int]] = (-math.inf, [])
    for n in range(max_length):
        for words in itertools.product(WORDS, repeat=n):
            score = _log_p(model, source, list(words)) / ((5 + n + 1) ** alpha / 6**alpha)
            if score > best[0]:
                best = (score, [*words, 2])
    return best


@pytest.mark.parametrize("kind", [Seq2SeqTransformer, DecoderOnly])
@pytest.mark.parametrize(("seed", "alpha"), [(0, 0.0), (2, 0.6), (4, 2.0)])
def test_a_wide_beam_is_brute_force(kind, seed, alpha):
    model, source, L = _tiny(kind, seed), [3, 7, 5], 4
    seq, score = beam.search_ids(model, source, beam=len(WORDS) ** L, alpha=alpha, max_length=L)
    ref_score, ref_seq = _brute_force(model, source, L, alpha)
    assert seq == ref_seq and score == pytest.approx(ref_score, abs=1e-9)


def test_the_length_penalty_changes_the_winner_somewhere():
    """On some of the tiny models a large α makes a longer sequence win (so the cases above read α)."""
    changed = 0
    for kind, seed in itertools.product((Seq2SeqTransformer, DecoderOnly), range(3)):
        model = _tiny(kind, seed)
        short, long = (_brute_force(model, [3, 7, 5], 4, a)[1] for a in (0.0, 3.0))
        assert len(long) >= len(short)  # the penalty only ever favours length
        changed += len(long) > len(short)
    assert changed >= 1


def _greedy_by_hand(model, source: list[int], max_length: int) -> list[int]:
    """argmax over words and <eos> (never padding or <bos>), one teacher-forced pass per step."""
    out: list[int] = []
    x = torch.tensor([source])
    while len(out) < max_length:
        with torch.no_grad():
            logits = model(x, x != 0, torch.tensor([[1, *out]]))[0][0, -1]
        logits[:2] = -torch.inf
        out.append(int(logits.argmax()))
        if out[-1] == 2:
            break
    return out


@pytest.mark.parametrize("seed", range(4))
def test_width_one_returns_the_best_truncation_of_greedy(seed):
    """β = 1 follows greedy's path and, since every step's <eos> extension is kept as a candidate,
    returns the best-scoring way to stop on it: greedy's translation itself when that scores best."""
    model, source, L = _tiny(Seq2SeqTransformer, seed), [4, 8, 6, 3], 6
    path = _greedy_by_hand(model, source, L)
    words = [w for w in path if w != 2]
    stops = [words[:n] for n in range(len(words) + 1)] if path[-1] == 2 else [words[:n] for n in range(L)]
    for alpha in (0.0, 1.0):
        want = max(stops, key=lambda y: _log_p(model, source, y) / ((5 + len(y) + 1) / 6) ** alpha)
        seq, _ = beam.search_ids(model, source, beam=1, alpha=alpha, max_length=L)
        assert seq == [*want, 2]


def test_width_one_on_the_shipped_model_is_greedy_or_a_prefix_of_it():
    corpus, model = shipped.corpus(), shipped.model("pre")
    pairs = corpus.test[:10]
    same = 0
    for p in pairs:
        g = evaluate.greedy(model, [p], corpus)[0]
        b = beam.translate(model, corpus, p.source, beam=1, alpha=0.0)
        assert b == g[: len(b)]
        same += b == g
    assert same >= 1  # not a vacuous prefix (the recorded split: β = 1 equals greedy's scores)


@pytest.mark.parametrize("kind", [Seq2SeqTransformer, DecoderOnly])
def test_on_step_runs_before_each_decoding_step_and_can_only_stop_the_search(kind):
    """``on_step()`` runs once before each decoder pass of the search (the passes counted apart from it,
    by a hook on the target embedding, which every pass reads and the encoder does not); one that returns
    leaves the result as it was, and one that raises stops the search before its next pass."""
    model, source, passes, polls = _tiny(kind, 0), [3, 7, 5], [], []
    hook = model.target.register_forward_pre_hook(lambda *_: passes.append(1))
    try:
        plain = beam.search_ids(model, source, beam=3, alpha=1.0, max_length=6)
        n = len(passes)
        passes.clear()
        assert n >= 3
        polled = beam.search_ids(model, source, 3, 1.0, 6, on_step=lambda: polls.append(len(passes)))
        assert polled == plain and polls == list(range(n))  # a poll before each pass, none after the last
        passes.clear()
        with pytest.raises(_cancel.Abandoned), _cancel.abandon_when(lambda: len(passes) >= 2):
            beam.search_ids(model, source, 3, 1.0, 6, on_step=_cancel.checkpoint)
        assert len(passes) == 2
        passes.clear()
        assert beam.search_ids(model, source, 3, 1.0, 6, on_step=_cancel.checkpoint) == plain  # not stale
        assert len(passes) == n
    finally:
        hook.remove()


def test_log_prob_is_the_teacher_forced_sum():
    model, source = _tiny(DecoderOnly, 5), [3, 7, 5]
    assert beam_sweep.log_prob(model, source, [4, 3]) == pytest.approx(_log_p(model, source, [4, 3]))


@pytest.mark.numerics
def test_the_record_is_current_and_its_spot_check_reproduces():
    """The record was made by the search as it is now (fingerprint), and the first test sentences'
    translations at ``CHECK`` come out again (one near-tie may break another way on another CPU)."""
    record = beam_sweep.recorded()
    assert record["fingerprint"] == beam_sweep.fingerprint(), "rerun scripts/beam_encdec.py"
    corpus, (b, a) = shipped.corpus(), beam_sweep.CHECK
    got = [
        beam.translate(shipped.model("pre"), corpus, p.source, b, a)
        for p in corpus.test[: beam_sweep.CHECK_PAIRS]
    ]
    assert sum(x != y for x, y in zip(got, record["check"]["pre"], strict=True)) <= 1
    greedy = beam_sweep.table("pre")[(0, 0.0)]
    want = evaluate.exact_match(shipped.model("pre"), corpus.test[: record["pairs"]], corpus)
    assert greedy["exact"] == pytest.approx(want, abs=0.01)


def test_draw_gains_are_beam_minus_greedy_seed_by_seed():
    """``draw_gains`` against a loop over the JSON itself: seed 0 from the shipped models' rows, then each
    retrained seed's rows; every retrained draw reproduced its recorded training (loss curve)."""
    record = json.loads(beam_sweep.RECORD.read_text())
    for name in shipped.NAMES:
        draws = sorted((d for d in record["draws"] if d["name"] == name), key=lambda d: d["seed"])
        assert [d["seed"] for d in draws] == list(range(1, 20)) and all(d["reproduced"] for d in draws)
        for b, a in beam_sweep.DRAW_GRID[1:]:
            want = []
            for rows in [record["models"][name], *(d["rows"] for d in draws)]:
                greedy = next(r for r in rows if r["beam"] == 0)
                want.append(
                    next(r for r in rows if (r["beam"], r["alpha"]) == (b, a))["bleu"] - greedy["bleu"]
                )
            assert beam_sweep.draw_gains(name, "bleu")[(b, a)] == pytest.approx(want, abs=1e-12)
