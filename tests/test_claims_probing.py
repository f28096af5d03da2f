"""Lesson 19's claims about signs, on the lesson's data (20 windows × 40 tokens of Macbeth, 600 training
tokens, linear probes, layers 0–6), each over 20 draws: seeds 0..19 at offset 0, where seed s at offset 0
is the lesson run under XAI_TF_SEED_OFFSET=s (a seed sets the split, the control labels, the MLP's
initialisation and the MDL order). Intel Xeon, 2 cores shared with other jobs, 1 thread. Bounds follow
DESIGN.md's margin rule: a quarter of the spread beyond the worst draw.

Section 3, the MLP memorises a control task better than a linear probe: the MLP's control accuracy minus
the linear probe's, averaged over the three labels the text defines at h_0 and h_L. Draws 0..19: 0.035,
0.027, 0.037, 0.032, 0.037, 0.029, 0.038, 0.039, 0.046, 0.043, 0.046, 0.044, 0.054, 0.022, 0.041, 0.027,
0.043, 0.055, 0.033, 0.042. Worst 0.022, spread 0.033: asserted > 0.013.

Sections 3 and 4, the signs (linear probes; selectivity = task − control accuracy; MDL margin = the task's
compression minus its control's; min over layers 0–6 unless said), draws 0..19:
- word start, min selectivity: +0.110, +0.130, +0.080, +0.120, +0.065, +0.175, +0.055, +0.095, +0.135,
  +0.135, +0.100, +0.095, +0.085, +0.085, +0.120, +0.095, +0.165, +0.135, +0.085, +0.140. Worst +0.055,
  spread 0.120, bound +0.025; positive on 20 of 20.
- part of speech, min selectivity: +0.025, +0.105, +0.090, +0.160, +0.060, +0.110, +0.020, +0.065, +0.120,
  +0.095, +0.040, +0.110, +0.085, +0.075, +0.170, +0.090, +0.040, +0.120, +0.115, +0.075. Worst +0.020,
  spread 0.150, bound -0.018; positive on 20 of 20.
- position, min selectivity: -0.230, -0.185, -0.235, -0.160, -0.225, -0.145, -0.240, -0.275, -0.295, -0.185,
  -0.245, -0.230, -0.245, -0.185, -0.135, -0.175, -0.085, -0.165, -0.210, -0.130. Worst -0.085, spread
  0.210, bound -0.033; negative on 20 of 20.
- word start, min MDL margin (re-measured on an AMD EPYC, 1 thread, after issue 58 item 2: the add-one
  fallback decided per problem, an unseen class's escape cost): +1.061, +0.444, +0.745, +0.872, +1.000,
  +0.678, +0.759, +0.633, +0.990, +0.894, +0.707, +0.639, +0.939, +1.254, +0.873, +0.767, +0.956, +0.492,
  +0.597, +0.902. Worst +0.444, spread 0.811, bound +0.241; positive on 20 of 20.
- part of speech, min MDL margin (the same re-measurement): +0.865, +0.760, +0.871, +0.835, +0.873, +0.912,
  +0.777, +0.859, +0.860, +0.755, +1.005, +0.807, +0.821, +1.016, +0.836, +0.983, +1.098, +0.974, +0.797,
  +1.020. Worst +0.755, spread 0.343, bound +0.670; positive on 20 of 20 (before the fix its worst draw,
  +0.148, lay far below the rest: an unseen class's cost was whatever the optimiser had reached).
- part of speech, selectivity at l = 6 minus at l = 0: +0.220, +0.075, +0.115, +0.045, +0.080, +0.080,
  +0.190, +0.210, +0.075, +0.130, +0.085, +0.060, +0.255, +0.115, +0.055, +0.115, +0.155, +0.135, +0.130,
  +0.255. Worst +0.045, spread 0.210, bound -0.007; positive on 20 of 20.
- part of speech, linear accuracy at l = 0 minus the majority baseline: worst +0.275, best +0.575;
  positive on 20 of 20.
- line kind, the task's compression below its control's at l = 0: 14 of 20; position, task above control at
  3–6 of 7 layers (re-measured after issue 58 item 2; before: 13 of 20 and 2–5).
  Beyond draws 0..19 (issue 56, the lesson run under XAI_TF_SEED_OFFSET=23 and 37, AMD EPYC, 1 thread):
  position above control at 2 and 4 of 7 layers; line kind below its control at l = 0 under 23, not 37.
Asserted on the reruns: word start's selectivity > 0.025 and MDL margin > 0.241 at every layer, position's
selectivity < −0.033 at some layer. Part of speech's selectivity bound falls below 0 (its worst draws lie far
below the rest), so that sign is a count in the lesson (20 of 20 here), not asserted.

The tests rerun seed 0 at the claim offsets 0 and 5 (draws 0 and 5); the full 20 take minutes.

Issue 58: the word-start selectivities above (and word start's share of section 3's mean) were measured
when a two-class linear probe fitted scikit-learn's 2C; it fits C now (``probes``). The reruns at offsets
0 and 5 pass under the fix; those 20 draws are not re-measured. The MDL figures are.
"""

import pytest
import torch

import xai_tf
from xai_tf.probing import by_layer, control, data, features, probes
from xai_tf.transformer import corpus

TEXT_LABELS = ("line kind", "position", "word start")


@pytest.fixture(scope="module")
def lesson_data():
    lm = xai_tf.load_model("shakespeare")
    d = data.play_data(lm, corpus.read_plays()[corpus.HELDOUT_FILES[0]], n_windows=20, T=40)
    return d, features.residual_streams(lm, d.ids)


@pytest.mark.claims
@pytest.mark.parametrize("seed", [0])
def test_an_mlp_probe_memorises_a_control_task_better_than_a_linear_one(lesson_data, seed):
    d, H = lesson_data
    train, test = d.split(seed=seed)
    ys = [control.control_labels(d.types, d.labels[name], seed) for name in TEXT_LABELS]
    S, Y = H[[0, -1]].repeat(len(ys), 1, 1), torch.cat([y.expand(2, -1) for y in ys])
    acc = {
        kind: probes.accuracy(
            probes.fit_probe(kind, S[:, train], Y[:, train], 8, seed), S[:, test], Y[:, test]
        )
        for kind in probes.PROBES
    }
    assert float((acc["mlp"] - acc["linear"]).mean()) > 0.013


@pytest.mark.claims
@pytest.mark.parametrize("seed", [0])
def test_the_signs_section_3_and_4_state(lesson_data, seed):
    d, H = lesson_data
    train, test = d.split(seed=seed)
    table = {
        name: by_layer.study(
            H, d.labels[name], d.types, train, test, ("linear",), ("linear",) * (name != "position"), seed
        )
        for name in ("word start", "position")
    }
    selective = {name: min(t["linear selectivity"]) for name, t in table.items()}
    t = table["word start"]
    margin = min(a - b for a, b in zip(t["linear mdl task"], t["linear mdl control"], strict=True))
    assert selective["word start"] > 0.025  # selective at every layer
    assert selective["position"] < -0.033  # negative at some layer
    assert margin > 0.241  # the task out-compresses its control at every layer


@pytest.mark.claims
@pytest.mark.parametrize("seed", [0])
def test_lesson_09s_dyck_models_hold_the_depth_after_their_first_layer(seed):
    """Section 2b: linear probes for the Dyck depth on lesson 09's three shipped models (120 strings of 24
    brackets, ``sample_dyck(seed=s)``, 90 strings to train; draw s = seed s at offset 0), draws 0..19:
    - free attention, accuracy at h_1: 0.988, 0.985, 0.986, 0.996, 0.993, 0.990, 0.985, 0.992, 0.988,
      0.983, 0.988, 0.981, 0.990, 0.983, 0.983, 0.994, 0.988, 0.990, 0.989, 0.993. Worst 0.981, spread
      0.015: asserted > 0.977 (the lesson says "above 0.97"); layer 1 uniform: worst 0.994, spread 0.006.
    - h_1 − h_0: free worst +0.317 (spread 0.083), uniform worst +0.324 (0.085), pushed off the stack
      worst +0.215 (0.085): asserted > 0.19 for all three.
    - h_2 − h_1: free −0.033 … −0.004 (negative on 20 of 20; the margin rule allows no bound below 0, so a
      count in the lesson), uniform −0.046 … −0.017 (asserted < −0.010), pushed −0.017 … +0.025 (either).
    - free − pushed at h_1: +0.083 … +0.133, spread 0.050: asserted > 0.070.
    - MLP − linear at h_1, the largest over the three models: +0.001 … +0.025 ("adds little").
    """
    from xai_tf.probing import dyck_depth
    from xai_tf.tasks import dyck, toytasks

    strings = dyck.sample_dyck(120, 24, seed=seed)
    t = {
        name: dyck_depth.depth_by_layer(m, strings, seed=seed)["linear"]
        for name, m in toytasks.load_toytasks()[1].items()
    }
    free, uniform, pushed = t["free attention"], t["layer 1 uniform"], t["pushed off the stack"]
    assert min(free[1], uniform[1]) > 0.977
    assert all(a[1] - a[0] > 0.19 for a in t.values())
    assert uniform[2] - uniform[1] < -0.010
    assert free[1] - pushed[1] > 0.070


@pytest.mark.claims
@pytest.mark.parametrize("seed", [0])
def test_the_determiner_head_tracks_determiners_beyond_a_fixed_offset(seed):
    """Section 5's proxy: determiner–noun pairs in a seeded 80 of 320 windows of Macbeth (T = 40), draws
    0..19 (seed s at offset 0):
    - the best head is L5 H2 on 20 of 20; heads above the fixed-offset baseline: 0 on 20 of 20.
    - baseline − best head: 0.019, 0.090, 0.000, 0.028, 0.093, 0.050, 0.044, 0.054, 0.098, 0.098, 0.020,
      0.109, 0.204, 0.013, 0.093, 0.075, 0.079, 0.109, 0.052, 0.111 (≥ 0 on 20 of 20, one tie; the margin
      rule allows no bound above 0, so a count in the lesson). Baseline (offset −1) 0.78 … 0.88 over 76–107
      pairs.
    - the best head on the 10–23 pairs at another offset: 0.870, 0.917, 0.778, 0.818, 0.750, 0.800, 0.824,
      0.846, 0.833, 0.938, 0.737, 0.867, 0.667, 0.692, 0.762, 0.667, 0.842, 0.667, 1.000, 0.714. Worst
      0.667, spread 0.333: asserted > 0.5 ("more than half").
    """
    from xai_tf import seeds
    from xai_tf.probing import pos_heads

    lm = xai_tf.load_model("shakespeare")
    pool = data.play_data(lm, corpus.read_plays()[corpus.HELDOUT_FILES[0]], n_windows=320, T=40)
    pick = torch.randperm(320, generator=seeds.generator(seed))[:80]
    det = pos_heads.determiner_heads(
        lm, pool.ids[pick], pool.labels["part of speech"].view(320, -1)[pick].flatten()
    )
    best_layer, best_head = divmod(int(det["accuracy"].argmax()), lm.n_head)
    assert float(det["accuracy away"][best_layer, best_head]) > 0.5


@pytest.mark.claims
@pytest.mark.parametrize("seed", [0])
def test_an_mlp_probes_online_code_is_longer_than_a_linear_ones(lesson_data, seed):
    """Section 4, MDL with MLP probes (``mdl_by_layer(kind="mlp")``: each block's probe stopped early on
    a held-out tenth, as Voita & Titov's, issue 56) against linear ones, for word start and part of speech on
    the lesson's 600 training tokens; draws 0..19 (seed s at offset 0; AMD EPYC, 2 cores shared, 1 thread).
    The linear task compression minus the MLP's, min over layers:
    - word start: +0.332, +0.194, +0.475, +0.012, +0.115, +0.328, +0.867, +0.775, +0.010, +0.637, +0.478,
      +0.456, +0.321, +0.324, +0.283, +0.416, +0.310, +0.467, +0.731, +0.237. Worst +0.010, spread 0.858:
      bound −0.205 (positive on 20 of 20: a count in the lesson).
    - part of speech: +0.127, +0.235, +0.289, +0.170, +0.166, +0.067, +0.081, +0.145, +0.144, +0.147, +0.418,
      +0.202, +0.158, +0.123, +0.103, +0.041, +0.138, +0.213, +0.182, +0.033. Worst +0.033, spread 0.385:
      bound −0.063 (positive on 20 of 20: a count).
    The MLP's task compression minus its control's, min over layers, part of speech: +0.692, +0.515,
    +0.600, +0.294, +0.663, +0.834, +0.638, +0.623, +0.614, +0.560, +0.531, +0.475, +0.454, +0.788,
    +0.708, +0.931, +0.993, +0.616, +0.564, +0.852. Worst +0.294, spread 0.699: asserted > +0.119. Word
    start: positive on 16 of 20 (draws 1, 9, 17, 18 at 6, 6, 6 and 5 of 7 layers): a count.
    Counts in the lesson: the MLP's control compression below 1 at every layer on 1 of 20 draws (word start)
    and 0 of 20 (part of speech); before the early stopping, 20 of 20 for both. Draw 15's layer-4 control code
    reaches compression 0.004: its two-token prefix standardises a direction with σ = 6·10⁻⁶ and the next
    token's label costs 109,498 bits (measured on that draw).
    """
    d, H = lesson_data
    train, _ = d.split(seed=seed)
    gap = {}
    for name in ("word start", "part of speech"):
        y = d.labels[name]
        c = control.control_labels(d.types, y, seed)
        linear, mlp = (by_layer.mdl_by_layer(H, [y, c], train, kind, seed) for kind in probes.PROBES)
        gap[name] = min(a - b for a, b in zip(linear[0], mlp[0], strict=True))
        if name == "part of speech":
            assert min(a - b for a, b in zip(*mlp, strict=True)) > 0.119  # the MLP's task beats its control
    assert gap["word start"] > -0.205
    assert gap["part of speech"] > -0.063


@pytest.mark.claims
@pytest.mark.parametrize("seed", [0])
def test_minilms_probes_on_labels_aligned_by_offsets(seed):
    """Section 4b, MiniLM (``wordpiece.play_data``: 20 windows × 40 WordPiece tokens of Macbeth, 600
    training tokens, linear probes, layers 0–6), draws 0..19 (seed s at offset 0; Intel Xeon, 1 thread,
    about 5 s CPU a draw with the bundled model's two MDL codes):
    - part of speech, min selectivity: +0.115, +0.100, +0.065, +0.100, +0.075, +0.120, +0.120, +0.140,
      +0.045, +0.110, +0.065, +0.105, +0.140, +0.035, +0.135, +0.075, +0.140, +0.035, +0.140, +0.090. Worst
      +0.035, spread 0.105: asserted > +0.009 (selective at every layer, 20 of 20).
    - word start, min accuracy 0.950–0.995; min selectivity −0.015 … +0.040, ≤ 0 on 5 of 20 (a count).
    - position, layers where the task out-compresses its control (re-measured on an AMD EPYC after issue 58
      item 2): 0 of 7 on 20 of 20; the bundled model's 4, 4, 4, 4, 4, 3, 3, 3, 6, 4, 3, 3, 4, 3, 3, 3, 4, 3,
      4, 3 (3–6); the lesson under offsets 23 and 37 (issue 56): MiniLM 0 and 0, the bundled model's 2 and 4.
    - line kind, the same count: MiniLM 0, 0, 7, 3, 2, 0, 5, 5, 5, 7, 6, 6, 5, 7, 2, 6, 0, 4, 2, 0 (0 on 5
      of 20); the bundled model's 6, 3, 7, 6, 6, 2, 6, 6, 6, 7, 6, 7, 7, 7, 7, 6, 6, 6, 6, 5.
    """
    from xai_tf.probing import wordpiece

    m = xai_tf.load_model("minilm")
    d = wordpiece.play_data(m, corpus.read_plays()[corpus.HELDOUT_FILES[0]], n_windows=20, T=40)
    H = wordpiece.residual_streams(m, d.ids)
    train, test = d.split(seed=seed)
    y = d.labels["part of speech"]
    task, ctrl = by_layer.probe_by_layer(H, [y, control.control_labels(d.types, y, seed)], train, test)
    assert min(a - b for a, b in zip(task, ctrl, strict=True)) > 0.009
