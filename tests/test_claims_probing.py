"""Lesson 19's claim (section 3): a high-capacity MLP probe memorises a control task better than a linear
probe — the MLP's control accuracy minus the linear probe's, averaged over the three labels at the first
and last layer (h_0 and h_L), on the lesson's data (20 windows × 40 tokens of Macbeth, 600 training tokens).

20 draws (seeds 0..19 at offset 0; a seed sets the split, the control labels and the MLP's initialisation),
Intel Xeon, 1 thread: 0.035, 0.027, 0.037, 0.032, 0.037, 0.029, 0.038, 0.039, 0.046, 0.043, 0.046, 0.044,
0.054, 0.022, 0.041, 0.027, 0.043, 0.055, 0.033, 0.042. Worst 0.022, spread 0.033: the bound 0.013 lies a
quarter of the spread below the worst draw. The test reruns two of them (seed 0 at the claim offsets 0 and 5:
draws 0 and 5; each fits 12 probes, and the full 20 take minutes on the shared machine).
"""

import pytest
import torch

import xai_tf
from xai_tf.probing import control, data, features, probes
from xai_tf.transformer import corpus


@pytest.fixture(scope="module")
def lesson_data():
    lm = xai_tf.load_model("shakespeare")
    d = data.play_data(lm, corpus.read_plays()[corpus.HELDOUT_FILES[0]], n_windows=20, T=40)
    return d, features.residual_streams(lm, d.ids)[[0, -1]]


@pytest.mark.claims
@pytest.mark.parametrize("seed", [0])
def test_an_mlp_probe_memorises_a_control_task_better_than_a_linear_one(lesson_data, seed):
    d, H = lesson_data
    train, test = d.split(seed=seed)
    ys = [control.control_labels(d.types, y, seed) for y in d.labels.values()]
    S, Y = H.repeat(len(ys), 1, 1), torch.cat([y.expand(2, -1) for y in ys])
    acc = {
        kind: probes.accuracy(
            probes.fit_probe(kind, S[:, train], Y[:, train], 8, seed), S[:, test], Y[:, test]
        )
        for kind in probes.PROBES
    }
    assert float((acc["mlp"] - acc["linear"]).mean()) > 0.013
