"""The exercises lessons 03 (§5 hard top-k, §6 sigmoid attention) and 16 (§5 exposure bias, §6 the length
penalty) gained for issue 54: each checker names its typical mistakes and accepts loops and vectorised
answers. The lessons' own solutions pass in every float dtype by ``test_exercises``'s generic tests."""

import math

import pytest
import torch
from test_exercises import CHECKERS, SOLUTIONS, _rejects_with

from xai_tf.attention.sigmoid import sigmoid_attention
from xai_tf.exercises import attention as ex03

NEW = ["check_hard_topk", "check_sigmoid"]


def test_the_new_exercises_have_a_lesson_solution():
    assert set(NEW) <= set(SOLUTIONS) and set(NEW) <= set(CHECKERS)


def _topk_loop(theta, k):
    rows = theta.reshape(-1, theta.shape[-1])
    out = torch.zeros_like(rows)
    for r, row in enumerate(rows):
        for j in sorted(range(len(row)), key=lambda j: -float(row[j]))[:k]:
            out[r, j] = 1.0
    return out.reshape(theta.shape)


def _sigmoid_loop(z):
    return torch.tensor([1 / (1 + math.exp(-v)) for v in z.flatten().tolist()]).reshape(z.shape)


@pytest.mark.parametrize(
    ("checker", "fn"),
    [
        (ex03.check_hard_topk, _topk_loop),
        (ex03.check_sigmoid, _sigmoid_loop),
        (ex03.check_sigmoid, lambda z: 0.5 * (1 + torch.tanh(z.double() / 2))),
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
