"""Lessons 14 and 15's checkers name the typical mistakes (issue 55): each wrong solution below is one a
student writes, and its ✘ line must say what is wrong with it."""

import math

import pytest
import torch
import torch.nn.functional as F
from test_exercises import CHECKERS, SOLUTIONS, _rejects_with

from xai_tf.efficient import linear
from xai_tf.exercises import circuits, efficient

# --- lesson 14 ---------------------------------------------------------------------------------------------


def _slope(x, y):
    x, y = torch.tensor(x, dtype=torch.float64), torch.tensor(y, dtype=torch.float64)
    x, y = x - x.mean(), y - y.mean()
    return float((x * y).sum() / (x * x).sum())


def _fit_all_points(ns, costs, last):  # ignores `last`
    return _slope([math.log(n) for n in ns], [math.log(c) for c in costs])


def _fit_endpoints(ns, costs, last):  # the slope between the first and the last of the points
    return (math.log(costs[-1]) - math.log(costs[-last])) / (math.log(ns[-1]) - math.log(ns[-last]))


def _fit_n_not_logged(ns, costs, last):
    return _slope(ns[-last:], [math.log(c) for c in costs[-last:]])


def _linear_no_denominator(Q, K, V):
    return ((F.elu(Q) + 1) @ (F.elu(K) + 1).transpose(-2, -1)).tril() @ V


def _entmax_grad_parts(p, alpha, normalise=True, swap=False):
    on = p > 0
    safe = torch.where(on, p, torch.ones_like(p))
    s = torch.where(on, safe ** (2 - alpha), torch.zeros_like(p))
    p_tilde = s / s.sum(-1, keepdim=True) if normalise else s
    h = torch.where(on, -p * safe.log(), torch.zeros_like(p))
    first, second = (alpha - 1, (alpha - 1) ** 2) if swap else ((alpha - 1) ** 2, alpha - 1)
    grad = (p - p_tilde) / first + (h - p_tilde * h.sum(-1, keepdim=True)) / second
    return torch.where(on, grad, torch.zeros_like(p))


def _entmax_grad_nan(p, alpha):  # 0 · log 0 left in
    s = p ** (2 - alpha)
    p_tilde, h = s / s.sum(-1, keepdim=True), -p * p.log()
    return (p - p_tilde) / (alpha - 1) ** 2 + (h - p_tilde * h.sum(-1, keepdim=True)) / (alpha - 1)


def _update_unscaled(m, ell, acc, s, v):  # adds the new terms without moving the old sum to the new maximum
    m_new, ell_new, acc_new = SOLUTIONS["check_online_softmax_update"](m, ell, acc, s, v)
    shift = m_new.masked_fill(m_new == float("-inf"), 0.0)
    return m_new, ell + (s - shift).exp().sum(-1, keepdim=True), acc_new


def _update_nan(m, ell, acc, s, v):  # shifts by m′ even where m′ = −∞
    m_new = torch.maximum(m, s.amax(-1, keepdim=True))
    rescale, e = (m - m_new).exp(), (s - m_new).exp()
    return m_new, rescale * ell + e.sum(-1, keepdim=True), rescale * acc + e @ v


def _window_both_sides(n, window):
    offset = torch.arange(n).unsqueeze(-1) - torch.arange(n)
    return offset.abs() <= window


def _window_one_short(n, window):
    offset = torch.arange(n).unsqueeze(-1) - torch.arange(n)
    return (offset >= 0) & (offset < window)


LESSON_14 = [
    (efficient.check_fit_exponent, _fit_all_points, r"with last = 3, fit only the last 3 points, not all 5"),
    (efficient.check_fit_exponent, _fit_endpoints, r"the slope between the first and last point only"),
    (efficient.check_fit_exponent, _fit_n_not_logged, r"log\(cost\) against n: take the log of n as well"),
    (efficient.check_fit_exponent, lambda ns, costs, last: None, r"is None: did you forget to `return` it"),
    (efficient.check_fit_exponent, lambda ns, costs, last: "two", r"should be a number, got str"),
    (
        efficient.check_linear_attention,
        lambda Q, K, V: linear.linear_attention(Q, K, V, causal=False),
        r"every output reads every key, later ones too: the sums run over j ≤ i only",
    ),
    (efficient.check_linear_attention, _linear_no_denominator, r"the outputs are not normalised"),
    (
        efficient.check_entmax_alpha_grad,
        _entmax_grad_nan,
        r"NaN where p_j = 0: 0 · log 0 is NaN",
    ),
    (
        efficient.check_entmax_alpha_grad,
        lambda p, a: _entmax_grad_parts(p, a, normalise=False),
        r"p̃ is not normalised",
    ),
    (
        efficient.check_entmax_alpha_grad,
        lambda p, a: _entmax_grad_parts(p, a, swap=True),
        r"the powers of \(α − 1\) are swapped",
    ),
    (efficient.check_online_softmax_update, _update_unscaled, r"without rescaling it by e\^\(m − m′\)"),
    (efficient.check_online_softmax_update, _update_nan, r"a row that has seen only −∞ has m = −∞"),
    (efficient.check_sliding_window_mask, _window_both_sides, r"in its future"),
    (efficient.check_sliding_window_mask, _window_one_short, r"it should see itself and up to 2 before it"),
]


@pytest.mark.parametrize(("checker", "fn", "message"), LESSON_14, ids=lambda x: getattr(x, "__name__", None))
def test_lesson_14_checkers_name_the_mistake(checker, fn, message, capsys):
    _rejects_with(checker, fn, message, capsys)


def _linear_loop(Q, K, V):  # one position at a time, the RNN form, into a float32 table
    fq, fk = F.elu(Q) + 1, F.elu(K) + 1
    out = torch.zeros(*Q.shape[:-1], V.size(-1))
    S = torch.zeros(*Q.shape[:-2], Q.size(-1), V.size(-1), dtype=Q.dtype)
    z = torch.zeros(*Q.shape[:-2], Q.size(-1), dtype=Q.dtype)
    for i in range(Q.size(-2)):
        S = S + fk[..., i, :, None] * V[..., i, None, :]
        z = z + fk[..., i, :]
        out[..., i, :] = (fq[..., i, None, :] @ S).squeeze(-2) / (fq[..., i, :] * z).sum(-1, keepdim=True)
    return out


def _fit_numpy(ns, costs, last):
    import numpy as np

    return np.polyfit(np.log(ns[-last:]), np.log(costs[-last:]), 1)[0]  # a numpy float


@pytest.mark.parametrize(
    ("name", "fn"),
    [("check_linear_attention", _linear_loop), ("check_fit_exponent", _fit_numpy)],
)
def test_lesson_14_checkers_pass_other_right_answers(name, fn, capsys):
    assert CHECKERS[name](fn), capsys.readouterr().out


# --- lesson 15 ---------------------------------------------------------------------------------------------

_FRO = torch.linalg.matrix_norm


def _ablate(z, head, dims=(0, 1), value=None, clone=True):
    out = z.clone() if clone else z
    out[:, head] = z[:, head].mean(dim=dims, keepdim=True) if value is None else value
    return out


def _ld(logits, c, w, position=-1):
    return logits[:, position, c] - logits[:, position, w]


LESSON_15 = [
    (
        circuits.check_k_composition,
        lambda W_QK, W_OV: _FRO(W_QK @ W_OV) / (_FRO(W_QK) * _FRO(W_OV)),
        r"W_OV is not transposed",
    ),
    (circuits.check_k_composition, lambda W_QK, W_OV: _FRO(W_QK @ W_OV.T), r"not normalised"),
    (
        circuits.check_k_composition,
        lambda W_QK, W_OV: (_FRO(W_QK @ W_OV.T) / (_FRO(W_QK) * _FRO(W_OV))).reshape(1),
        r"return a 0-d tensor \(one number\), got shape \(1,\)",
    ),
    (circuits.check_mean_ablate, lambda z, h: _ablate(z, h, clone=False), r"changed z in place: clone it"),
    (circuits.check_mean_ablate, lambda z, h: _ablate(z, h, value=0.0), r"that is zero ablation"),
    (circuits.check_mean_ablate, lambda z, h: _ablate(z, h, dims=1), r"the mean is over the positions only"),
    (
        circuits.check_mean_ablate,
        lambda z, h: z.mean(dim=(0, 2), keepdim=True).expand_as(z).clone(),
        r"heads other than 0 changed",
    ),
    (
        circuits.check_normalised_logit_difference,
        lambda logits, c, w, clean, corr: 1 - (_ld(logits, c, w) - corr) / (clean - corr),
        r"that is 1 − m",
    ),
    (
        circuits.check_normalised_logit_difference,
        lambda logits, c, w, clean, corr: _ld(logits, c, w),
        r"that is the raw LD: normalise it",
    ),
    (
        circuits.check_normalised_logit_difference,
        lambda logits, c, w, clean, corr: (_ld(logits, c, w, 0) - corr) / (clean - corr),
        r"that reads the first position",
    ),
    (
        circuits.check_first_order_estimate,
        lambda m, s, t, g: m[..., None] + (s - t) * g,
        r"one number per cell: sum the product over the last dim",
    ),
    (
        circuits.check_first_order_estimate,
        lambda m, s, t, g: m + ((t - s) * g).sum(-1),
        r"the step has the wrong sign",
    ),
    (
        circuits.check_first_order_estimate,
        lambda m, s, t, g: ((s - t) * g).sum(-1),
        r"that is the change in m only: add m_target",
    ),
    (
        circuits.check_induction_scores,
        lambda p: p.diagonal(-(p.size(-1) // 2), -2, -1).mean(dim=(1, 3)),
        r"attention to the earlier copy of x_t itself",
    ),
    (
        circuits.check_induction_scores,
        lambda p: p.diagonal(-1, -2, -1).mean(dim=(1, 3)),
        r"that is the previous-token score",
    ),
]


@pytest.mark.parametrize(("checker", "fn", "message"), LESSON_15)
def test_lesson_15_checkers_name_the_mistake(checker, fn, message, capsys):
    _rejects_with(checker, fn, message, capsys)
