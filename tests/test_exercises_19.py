"""Lesson 19's exercises (issue 55): each checker names its typical mistakes, and accepts loops and
vectorised answers. The lesson's own solutions pass in every float dtype by ``test_exercises``'s generic
tests (SOLUTIONS, CHECKERS)."""

import math

import pytest
import torch
import torch.nn.functional as F
from test_exercises import CHECKERS, SOLUTIONS, _rejects_with

from xai_tf.exercises import probing as ex
from xai_tf.exercises import probing_heads as exh
from xai_tf.probing.mdl import FRACTIONS

LESSON_19 = [
    "check_line_kind",
    "check_majority_baseline",
    "check_depth_labels",
    "check_control_labels",
    "check_timestamps",
    "check_codelength",
    "check_target_share",
    "check_identified",
    "check_first_order_delta",
]


def test_lesson_19_has_a_solution_for_each_of_its_checkers():
    assert set(LESSON_19) <= set(SOLUTIONS) and set(LESSON_19) <= set(CHECKERS)


def _kind_unstripped(line):
    if not line.strip():
        return None
    if line.startswith("["):
        return "direction"
    return "heading" if line.isupper() and line.endswith(".") else "speech"


def _kind_full_stop(line):
    text = line.strip()
    if not text:
        return None
    return "direction" if text.startswith("[") else "heading" if text.endswith(".") else "speech"


def _kind_blank_is_speech(line):
    text = line.strip()
    if text.startswith("["):
        return "direction"
    return "heading" if text.isupper() and text.endswith(".") else "speech"


def _depth(strings, before=False, kinds="([", closers=")]"):
    out = []
    for s in strings:
        d = 0
        for c in s:
            step = 1 if c in kinds else -1 if c in closers else 0
            out.append(d if before else d + step)
            d += step
    return torch.tensor(out)


def _control_per_token(types, labels, seed):
    g = torch.Generator().manual_seed(seed)
    return labels[torch.randperm(len(labels), generator=g)]


def _control_uniform(types, labels, seed):
    g = torch.Generator().manual_seed(seed)
    values, inverse = types.unique(return_inverse=True)
    return torch.randint(0, int(labels.max()) + 1, (len(values),), generator=g)[inverse]


def _control_unseeded(types, labels, seed):
    values, inverse = types.unique(return_inverse=True)
    return torch.multinomial(torch.bincount(labels).double(), len(values), replacement=True)[inverse]


def _control_seed_ignored(types, labels, seed):
    g = torch.Generator().manual_seed(0)
    values, inverse = types.unique(return_inverse=True)
    return torch.multinomial(torch.bincount(labels).double(), len(values), replacement=True, generator=g)[
        inverse
    ]


def _control_loop(types, labels, seed):  # a student's loop: a dict from type to a label of a random token
    g = torch.Generator().manual_seed(seed)
    chosen = {}
    for v in types.tolist():
        if v not in chosen:
            chosen[v] = int(labels[torch.randint(len(labels), (1,), generator=g)])
    return torch.tensor([chosen[v] for v in types.tolist()])


def _share_all_queries(A, S):
    return (A * S).sum(-1).mean(-1)


def _share_per_target(A, S):
    rows = S.sum(-1) > 0
    return ((A * S).sum(-1)[..., rows] / S.sum(-1)[rows]).mean(-1)


def _share_loop(A, S):  # one head and one query at a time, a float32 table
    flat = A.reshape(-1, *A.shape[-2:])
    out = torch.zeros(len(flat))
    for h, a in enumerate(flat):
        queries = [s for s in range(S.shape[0]) if S[s].sum() > 0]
        out[h] = sum(sum(float(a[s, t]) for t in range(S.shape[1]) if S[s, t]) for s in queries) / len(
            queries
        )
    return out.reshape(A.shape[:-2])


def _identified_euclid(g_h, e, ids):
    return ids.gather(1, torch.cdist(g_h, e).argmin(-1)) == ids


def _identified_dot(g_h, e, ids):
    return ids.gather(1, (g_h @ e.transpose(1, 2)).argmax(-1)) == ids


def _identified_positions(g_h, e, ids):
    cos = F.normalize(g_h, dim=-1) @ F.normalize(e, dim=-1).transpose(1, 2)
    return cos.argmax(-1) == torch.arange(ids.shape[1])


def _identified_loop(g_h, e, ids):
    n, T, _ = e.shape
    out = torch.zeros(n, T, dtype=torch.bool)
    for w in range(n):
        for i in range(T):
            cos = [float(F.cosine_similarity(g_h[w, i], e[w, j], dim=0)) for j in range(T)]
            out[w, i] = ids[w, max(range(T), key=cos.__getitem__)] == ids[w, i]
    return out


@pytest.mark.parametrize(
    ("checker", "fn", "message"),
    [
        (ex.check_line_kind, lambda line: None, r"returned None for 'MACBETH.': did you forget to `return`"),
        (ex.check_line_kind, _kind_unstripped, r"strip the line first"),
        (ex.check_line_kind, _kind_full_stop, r"is no heading: a heading is a name in capitals"),
        (ex.check_line_kind, _kind_blank_is_speech, r"a blank line has no kind, return None"),
        (
            ex.check_majority_baseline,
            lambda a, b: float((b == b.mode().values).double().mean()),
            "commonest \\*test\\*",
        ),
        (
            ex.check_majority_baseline,
            lambda a, b: float((a == a.mode().values).double().mean()),
            "training labels: score",
        ),
        (ex.check_majority_baseline, lambda a, b: (b == a.mode().values).sum(), r"got 1, a count"),
        (ex.check_majority_baseline, lambda a, b: None, "returned None: did you forget to `return`"),
        (ex.check_depth_labels, lambda s: _depth(s, kinds="(", closers=")"), r"both kinds of bracket count"),
        (ex.check_depth_labels, lambda s: _depth(s, before=True), r"the depth before each bracket"),
        (ex.check_depth_labels, lambda s: _depth(s).view(len(s), -1), r"flatten: .* shape \[36\]"),
        (ex.check_control_labels, lambda t, y, s: y.clone(), "the task's own labels"),
        (ex.check_control_labels, _control_per_token, r"type \d+ got labels \[.*\]: draw one label per type"),
        (ex.check_control_labels, _control_uniform, r"label 0 went to 3\d% of the types .* not uniformly"),
        (ex.check_control_labels, _control_unseeded, "the same seed gave other labels"),
        (ex.check_control_labels, _control_seed_ignored, "seeds 0 and 1 gave the same labels"),
        (
            ex.check_timestamps,
            lambda N: [max(1, math.ceil(f * N)) for f in FRACTIONS],
            r"N = 37: .* repeats",
        ),
        (
            ex.check_timestamps,
            lambda N: sorted({max(1, math.floor(f * N)) for f in FRACTIONS} | {N}),
            r"N = 37: round up",
        ),
        (
            ex.check_timestamps,
            lambda N: sorted({math.floor(f * N) for f in FRACTIONS}),
            r"N = 37: a timestamp is 0",
        ),
        (exh.check_target_share, _share_all_queries, "averaged over every query"),
        (exh.check_target_share, lambda A, S: (A * S).sum((-1, -2)), "summed over the queries"),
        (exh.check_target_share, _share_per_target, r"divided by the number of targets"),
        (exh.check_target_share, lambda A, S: (A * S).sum(-2), r"sum over the keys t \(last axis\)"),
        (exh.check_identified, _identified_euclid, "Euclidean distance"),
        (exh.check_identified, _identified_dot, "a dot product favours long embeddings"),
        (exh.check_identified, _identified_positions, "compare token ids, not positions"),
        (exh.check_first_order_delta, lambda g, h, b: (g * (b - h)).sum(-1), "δ is an absolute value"),
        (exh.check_first_order_delta, lambda g, h, b: (g * h).sum(-1).abs(), r"the step is b − h\[t\]"),
        (
            exh.check_first_order_delta,
            lambda g, h, b: (g * (b - h)).abs().sum(-1),
            "not of each of its terms",
        ),
        (
            exh.check_first_order_delta,
            lambda g, h, b: (g * (b - h)).sum(-1).abs() * 2,
            r"δ\[\d\] is .*\(off by",
        ),
    ],
)
def test_lesson_19_checkers_name_the_mistake(checker, fn, message, capsys):
    _rejects_with(checker, fn, message, capsys)


@pytest.mark.parametrize(
    ("checker", "fn"),
    [
        (ex.check_control_labels, _control_loop),
        (ex.check_majority_baseline, lambda a, b: (b == torch.bincount(a).argmax()).float().mean()),
        (ex.check_depth_labels, lambda s: _depth(s).tolist()),
        (
            ex.check_timestamps,
            lambda N: torch.tensor(
                sorted({max(1, -(-int(f * 10000) * N // 10000)) for f in FRACTIONS} | {N})
            ),
        ),
        (exh.check_target_share, _share_loop),
        (exh.check_identified, _identified_loop),
        (exh.check_identified, lambda g_h, e, ids: _identified_loop(g_h, e, ids).float()),
    ],
)
def test_lesson_19_checkers_accept_loops_and_other_types(checker, fn, capsys):
    assert checker(fn) is True, capsys.readouterr().out
