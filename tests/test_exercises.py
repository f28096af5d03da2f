import re

import pytest
import torch

from xai_tf import exercises as ex
from xai_tf.exercises import check_next_token_probs


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (lambda z: None, "is None: did you forget to `return` it?"),
        (lambda z: z[-1], "sum to"),
        (lambda z: z[0].softmax(-1), "first position"),
        (lambda z: z.softmax(-1), r"shape \(1, 5\), expected \(5,\)"),
        (lambda z: z[-1].softmax(-1).tolist(), "should be a torch.Tensor"),
        (lambda z: 1 / 0, "raised ZeroDivisionError"),
    ],
)
def test_checker_says_what_is_wrong(fn, message, capsys):
    assert check_next_token_probs(fn) is False
    out = capsys.readouterr().out
    assert out.startswith("✘") and re.search(message, out)


def test_checker_passes_a_right_answer(capsys):
    assert check_next_token_probs(lambda z: torch.softmax(z[-1], dim=0)) is True
    assert capsys.readouterr().out.startswith("✔")


def _softmax_no_shift(z):
    e = torch.exp(z)
    return e / e.sum(-1, keepdim=True)


def _attention_unscaled(Q, K, V):
    A = torch.softmax(Q @ K.T, -1)
    return A @ V, A


def _attention_columns(Q, K, V):
    A = torch.softmax(Q @ K.T / Q.shape[-1] ** 0.5, 0)
    return A @ V, A


def _masked_nan(Q, K, V, mask):
    A = torch.softmax((Q @ K.T / Q.shape[-1] ** 0.5).masked_fill(~mask, float("-inf")), -1)
    return A @ V, A


def _masked_leaky(Q, K, V, mask):
    A = torch.softmax((Q @ K.T / Q.shape[-1] ** 0.5).masked_fill(~mask, -5.0), -1)
    return A @ V, A


def _sparsemax_unclipped(z):
    from xai_tf.attention import sparsemax

    p = sparsemax(z)
    return torch.where(p == 0, torch.full_like(p, -0.1), p)


@pytest.mark.parametrize(
    ("checker", "fn", "message"),
    [
        (ex.check_softmax, _softmax_no_shift, "NaN: subtract the row maximum"),
        (ex.check_softmax, lambda z: torch.softmax(z, 0), r"softmax\(z\)\[0, 0\]"),
        (ex.check_scaled_dot_product_attention, _attention_unscaled, "not scaled"),
        (ex.check_scaled_dot_product_attention, _attention_columns, "down the columns"),
        (ex.check_scaled_dot_product_attention, lambda Q, K, V: None, r"return a pair"),
        (ex.check_causal_mask, lambda T: torch.ones(T, T).tril(), "should be boolean"),
        (ex.check_causal_mask, lambda T: torch.ones(T, T, dtype=torch.bool).triu(1), "True should mark"),
        (
            ex.check_causal_mask,
            lambda T: torch.ones(T, T, dtype=torch.bool).triu(),
            "looking into the future",
        ),
        (ex.check_masked_attention, _masked_nan, "NaN"),
        (ex.check_masked_attention, _masked_leaky, "leaked"),
        (ex.check_sparsemax, _sparsemax_unclipped, "negative probabilities"),
        (ex.check_sparsemax, lambda z: torch.softmax(z, -1), r"sparsemax\(z\)\[0\]"),
        (
            ex.check_sparsemax_jacobian,
            lambda p: torch.diag(p) - torch.outer(p, p),
            r"J\[1, 1\] is 0.1875, expected 0.5",
        ),
        (ex.check_sparsemax_jacobian, lambda p: torch.eye(len(p)), "sum to 0"),
    ],
)
def test_lesson_checkers_say_what_is_wrong(checker, fn, message, capsys):
    assert checker(fn) is False
    out = capsys.readouterr().out
    assert out.startswith("✘") and re.search(message, out), out


def test_lesson_checkers_pass_right_answers(capsys):
    from xai_tf import attention as att

    assert ex.check_softmax(lambda z: torch.softmax(z, -1))
    assert ex.check_scaled_dot_product_attention(lambda Q, K, V: att.attention(Q, K, V))
    assert ex.check_causal_mask(att.causal_mask)
    assert ex.check_masked_attention(lambda Q, K, V, m: att.attention(Q, K, V, mask=m))
    assert ex.check_sparsemax(att.sparsemax)
    assert ex.check_sparsemax_jacobian(_closed_form_sparsemax_jacobian)
    assert capsys.readouterr().out.count("✔") == 6


def _closed_form_sparsemax_jacobian(p):
    s = (p > 0).float()
    return torch.diag(s) - torch.outer(s, s) / s.sum()
