"""Lesson 07's norm-based exercise (issue 56: Kobayashi et al., 2020): the checker names the typical
mistakes and accepts loops and vectorised answers. The lesson's own solution passes in every float dtype
by ``test_exercises``'s generic tests (SOLUTIONS, CHECKERS)."""

import pytest
import torch
from test_exercises import CHECKERS, SOLUTIONS, _rejects_with

from xai_tf.exercises.norm_based import check_weighted_norms


def test_lesson_07_has_a_solution_for_its_norm_based_checker():
    assert "check_weighted_norms" in SOLUTIONS and "check_weighted_norms" in CHECKERS


def _f(v, W_O):
    return (v @ W_O).norm(dim=-1)  # ‖f(x_j)‖ [H, T]


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (
            lambda attn, v, W_O: _f(v, W_O)[:, None, :].expand_as(attn),
            "‖f\\(x_j\\)‖ alone: weight it by α_ij",
        ),
        (lambda attn, v, W_O: attn * v.norm(dim=-1)[:, None, :], "α_ij ‖v_j‖: map the value through"),
        (lambda attn, v, W_O: attn * _f(v, W_O)[:, None, :] ** 2, "the norm is squared"),
        (lambda attn, v, W_O: (attn * _f(v, W_O)[:, None, :]) ** 2, "the norm is squared"),
        (lambda attn, v, W_O: attn * _f(v, W_O)[:, :, None], "weighted by the query's ‖f\\(x_i\\)‖"),
        (lambda attn, v, W_O: attn * _f(v, W_O)[:, None, :] + 1, r"‖α f\(x\)‖\[\d, \d, \d\] is .*, expected"),
        (lambda attn, v, W_O: None, "is None: did you forget to `return` it"),
        (
            lambda attn, v, W_O: attn.mul_(_f(v, W_O)[:, None, :]),
            "your function changed attn in place: clone it first",
        ),
    ],
)
def test_the_norm_based_checker_names_the_mistake(fn, message, capsys):
    _rejects_with(check_weighted_norms, fn, message, capsys)


def _loop(attn, v, W_O):
    """A student's loop into a float32 table, one entry at a time."""
    H, T, _ = attn.shape
    out = torch.zeros(H, T, T)
    for h in range(H):
        for i in range(T):
            for j in range(T):
                out[h, i, j] = torch.linalg.norm(attn[h, i, j] * (v[h, j] @ W_O[h]))
    return out


def _einsum(attn, v, W_O):
    """Every vector α_ij f(x_j) built, in float64, then its norm."""
    return torch.einsum("hij,hjd->hijd", attn.double(), (v @ W_O).double()).norm(dim=-1)


def test_the_norm_based_checker_passes_a_loop_and_the_einsum(capsys):
    assert check_weighted_norms(_loop), capsys.readouterr().out
    assert check_weighted_norms(_einsum), capsys.readouterr().out
