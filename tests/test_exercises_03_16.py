"""The exercises lessons 03 (§5 hard top-k, §6 sigmoid attention) and 16 (§5 exposure bias, §6 the length
penalty) gained for issue 54: each checker names its typical mistakes and accepts loops and vectorised
answers. The lessons' own solutions pass in every float dtype by ``test_exercises``'s generic tests."""

import math

import pytest
import torch
from test_exercises import CHECKERS, SOLUTIONS, _rejects_with

from xai_tf.attention.sigmoid import sigmoid_attention
from xai_tf.exercises import attention as ex03
from xai_tf.exercises import seq2seq as ex16
from xai_tf.seq2seq import data, exposure, shipped
from xai_tf.seq2seq.word_loss import pair_logits, word_losses

NEW = ["check_hard_topk", "check_sigmoid", "check_word_losses", "check_length_penalty"]


def test_the_new_exercises_have_a_lesson_solution():
    assert set(NEW) <= set(SOLUTIONS) and set(NEW) <= set(CHECKERS)


def _topk_loop(theta, k):
    rows = theta.reshape(-1, theta.shape[-1])
    out = torch.zeros_like(rows)
    for r, row in enumerate(rows):
        for j in sorted(range(len(row)), key=lambda j: -float(row[j]))[:k]:
            out[r, j] = 1.0
    return out.reshape(theta.shape)


def _word_losses_loop(z, y):
    out = []
    for row, t in zip(z.tolist(), y.tolist(), strict=True):
        top = max(row)
        out.append(top + math.log(sum(math.exp(v - top) for v in row)) - row[t])
    return torch.tensor(out, dtype=torch.float64)


def _sigmoid_loop(z):
    return torch.tensor([1 / (1 + math.exp(-v)) for v in z.flatten().tolist()]).reshape(z.shape)


@pytest.mark.parametrize(
    ("checker", "fn"),
    [
        (ex03.check_hard_topk, _topk_loop),
        (ex03.check_sigmoid, _sigmoid_loop),
        (ex03.check_sigmoid, lambda z: 0.5 * (1 + torch.tanh(z.double() / 2))),
        (ex16.check_word_losses, _word_losses_loop),
        (ex16.check_word_losses, lambda z, y: torch.nn.functional.cross_entropy(z, y, reduction="none")),
        (ex16.check_length_penalty, lambda n, a: torch.tensor([(5 + n) / 6]).pow(a)),
    ],
)
def test_the_checkers_accept_other_correct_answers(checker, fn, capsys):
    assert checker(fn) is True, capsys.readouterr().out


def _topk(theta, k, largest=True):
    index = theta.topk(k, dim=-1, largest=largest).indices
    return torch.zeros_like(theta).scatter(-1, index, 1.0)


@pytest.mark.parametrize(
    ("checker", "fn", "message"),
    [
        (ex03.check_hard_topk, lambda t, k: _topk(t, k, largest=False), "keeps the k smallest"),
        (ex03.check_hard_topk, lambda t, k: _topk(t, k) * t, "the mask holds the scores"),
        (ex03.check_hard_topk, lambda t, k: _topk(t, 1), "only the argmax is kept"),
        (ex03.check_hard_topk, lambda t, k: t.topk(k, dim=-1).indices, "shape"),
        (ex03.check_sigmoid, lambda z: torch.exp(z) / (1 + torch.exp(z)), "NaN for large scores"),
        (ex03.check_sigmoid, lambda z: torch.softmax(z, -1), "that is softmax"),
        (ex03.check_sigmoid, lambda z: 1 / (1 + torch.exp(z)), "the sign of the exponent"),
        (
            ex16.check_word_losses,
            lambda z, y: -torch.log(torch.softmax(z, -1)).gather(1, y[:, None])[:, 0],
            "underflows",
        ),
        (ex16.check_word_losses, lambda z, y: -z.gather(1, y[:, None])[:, 0], "normalise first"),
        (
            ex16.check_word_losses,
            lambda z, y: torch.log_softmax(z, -1).gather(1, y[:, None])[:, 0],
            "the sign",
        ),
        (
            ex16.check_word_losses,
            lambda z, y: -torch.softmax(z, -1).gather(1, y[:, None])[:, 0],
            "take the log",
        ),
        (
            ex16.check_word_losses,
            lambda z, y: -torch.log_softmax(z, 0).gather(1, y[:, None])[:, 0],
            "over the vocabulary",
        ),
        (ex16.check_word_losses, lambda z, y: word_losses(z, y).mean(), "one loss per position"),
        (ex16.check_length_penalty, lambda n, a: (5 + n) ** a, "divide by 6"),
        (ex16.check_length_penalty, lambda n, a: a * (5 + n) / 6, "α is the exponent"),
        (ex16.check_length_penalty, lambda n, a: float(n) ** a, "the 5 and the 6 are missing"),
    ],
)
def test_the_checkers_name_the_mistake(checker, fn, message, capsys):
    _rejects_with(checker, fn, message, capsys)


def test_sigmoid_attention_against_the_formula():
    z = torch.tensor([[-100.0, -2.5, 0.0], [0.3, 7.0, 100.0]], dtype=torch.float64)
    want = torch.tensor([[1 / (1 + math.exp(-v)) for v in row] for row in z.tolist()], dtype=torch.float64)
    torch.testing.assert_close(sigmoid_attention(z), want, rtol=1e-12, atol=1e-300)
    assert sigmoid_attention(z).sum(-1)[0].item() < 1 < sigmoid_attention(z).sum(-1)[1].item()


def test_sigmoid_attention_refuses_integer_scores():
    with pytest.raises(TypeError, match="z must be a float"):
        sigmoid_attention(torch.tensor([1, 2]))


def test_word_losses_against_cross_entropy_and_bad_input():
    g = torch.Generator().manual_seed(0)
    z, y = torch.randn(6, 9, generator=g, dtype=torch.float64) * 50, torch.randint(0, 9, (6,), generator=g)
    want = [float(torch.logsumexp(z[i], 0) - z[i, y[i]]) for i in range(6)]
    torch.testing.assert_close(word_losses(z, y), torch.tensor(want, dtype=torch.float64))
    with pytest.raises(ValueError, match="targets must be 6 ids in 0..8"):
        word_losses(z, y.float())


def test_pair_logits_give_exposures_losses():
    """One sentence's ℓ^TF and ℓ^FR from ``pair_logits`` are ``exposure.token_losses``'s row for it."""
    corpus, model = data.make_corpus(0), shipped.model("additive")
    pair = corpus.test[3]
    forced, free, gold = pair_logits(model, corpus, pair)
    want_tf, want_fr, _, _ = exposure.token_losses(model, corpus, [pair])
    torch.testing.assert_close(word_losses(forced.double(), gold), want_tf[0], atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(word_losses(free.double(), gold), want_fr[0], atol=1e-4, rtol=1e-4)
    assert gold[-1].item() == 2 and len(gold) == len(pair.target) + 1  # y_1 … y_T <eos>
