"""Bad-input probes for lesson 19 (probing and specialised heads: ``xai_tf.probing``), collected by
``test_bad_inputs.py``: labels of the wrong length, one class only, a layer out of range, float labels,
an empty text, a model of the wrong kind, probabilities outside (0, 1]."""

import torch
from probe_kit import NAN, TE, VE, lm, z

from xai_tf.exercises import probing as ex
from xai_tf.probing import (
    by_layer,
    control,
    data,
    dyck_depth,
    erasure,
    features,
    head_ablation,
    heads,
    identifiability,
    mdl,
    pos,
    pos_heads,
    probes,
    wordpiece,
)
from xai_tf.tasks.dyck_model import DyckModel
from xai_tf.widgets import probing as wp

P = "xai_tf.probing"
H = z(3, 10, 4)
Y = torch.tensor([0, 1] * 5)
ONE = torch.zeros(10, dtype=torch.long)
FIT = probes.fit_linear(H[0], Y)

EXEMPT: dict = {}

RAISES = [
    (f"{P}.data.line_kind", lambda: data.line_kind(3), TE, "line must be a string"),
    (f"{P}.data.play_data", lambda: data.play_data(lm(), "  "), VE, "text is empty"),
    (f"{P}.data.spread", lambda: data.spread([3, 9], 4), VE, "2 usable line starts; n_windows must be ≤"),
    (
        f"{P}.wordpiece.token_labels",
        lambda: wordpiece.token_labels("Is this\n", [(0, 2), (3, 7)], ["is"]),
        VE,
        "2 offsets but 1 pieces",
    ),
    (
        f"{P}.wordpiece.play_data",
        lambda: wordpiece.play_data(lm(), "MACBETH.\nSo foul.\n"),
        VE,
        r"shakespeare is a causal language model: WordPiece probe labels needs an encoder \('minilm'\)",
    ),
    (
        f"{P}.wordpiece.residual_streams",
        lambda: wordpiece.residual_streams(lm(), torch.tensor([[1, 2]])),
        VE,
        "needs an encoder",
    ),
    (
        f"{P}.features.residual_streams",
        lambda: features.residual_streams(lm(), torch.tensor([[5000]])),
        VE,
        r"(ids|windows) must lie in 0\.\.4095",
    ),
    (f"{P}.probes.check_probe_data", lambda: probes.check_probe_data(H[0], Y[:9]), VE, "one label each"),
    (f"{P}.probes.fit_linear", lambda: probes.fit_linear(H[0], ONE), VE, "one class only"),
    (f"{P}.probes.fit_mlp", lambda: probes.fit_mlp(H[0], Y.float()), TE, "y must be an integer tensor"),
    (
        f"{P}.probes.fit_probe",
        lambda: probes.fit_probe("svm", H[0], Y),
        VE,
        r"kind must be one of \('linear'",
    ),
    (
        f"{P}.probes.accuracy",
        lambda: probes.accuracy(FIT, H[0], Y[:3]),
        VE,
        "y must be a tensor of 10 labels",
    ),
    (f"{P}.probes.majority_baseline", lambda: probes.majority_baseline(Y[:0], Y), VE, "at least one label"),
    (f"{P}.control.control_labels", lambda: control.control_labels(Y[:4], Y), VE, "4 types but 10 labels"),
    (
        f"{P}.control.selectivity",
        lambda: control.selectivity(1.5, 0.2),
        VE,
        r"task_accuracy must be .* \[0, 1\]",
    ),
    (f"{P}.mdl.timestamps", lambda: mdl.timestamps(1), VE, "N must be an integer ≥ 2"),
    (
        f"{P}.mdl.codelength",
        lambda: mdl.codelength(torch.tensor([0.5, 0.0]), 1, 2),
        VE,
        r"probabilities in \(0, 1\]",
    ),
    (
        f"{P}.mdl.online_codelength",
        lambda: mdl.online_codelength(probes.fit_linear, H[0], ONE),
        VE,
        "one class",
    ),
    (
        f"{P}.by_layer.layer_states",
        lambda: by_layer.layer_states(H, 3),
        VE,
        r"layer must be an integer in 0\.\.2",
    ),
    (f"{P}.by_layer.probe_by_layer", lambda: by_layer.probe_by_layer(H, [Y[:9]], Y, Y), VE, "10 labels each"),
    (f"{P}.by_layer.mdl_by_layer", lambda: by_layer.mdl_by_layer(H.fill_(NAN), [Y], Y), VE, "H has NaN"),
    (
        f"{P}.by_layer.mdl_by_layer",
        lambda: by_layer.mdl_by_layer(z(3, 10, 4), [Y], Y, kind="svm"),
        VE,
        r"kind must be one of \('linear'",
    ),
    (f"{P}.dyck_depth.depth_labels", lambda: dyck_depth.depth_labels(["()", "(]"]), VE, r"strings\[1\]"),
    (
        f"{P}.dyck_depth.dyck_states",
        lambda: dyck_depth.dyck_states(None, ["()"]),
        TE,
        "model must be a DyckModel",
    ),
    (
        f"{P}.dyck_depth.depth_by_layer",
        lambda: dyck_depth.depth_by_layer(DyckModel(), ["()()"] * 4, train_share=1.5),
        VE,
        "train_share",
    ),
    (
        f"{P}.pos_heads.pos_pairs",
        lambda: pos_heads.pos_pairs(["det", "NN"]),
        VE,
        "tags must be a list of coarse",
    ),
    (
        f"{P}.pos_heads.word_attention",
        lambda: pos_heads.word_attention(z(3, 3), [[0], [1]]),
        VE,
        "groups must split the window's 3 tokens",
    ),
    (
        f"{P}.pos_heads.determiner_heads",
        lambda: pos_heads.determiner_heads(lm(), torch.tensor([[1, 2, 3]]), Y),
        VE,
        "pos_labels must be a tensor of 3 tags",
    ),
    (f"{P}.by_layer.study", lambda: by_layer.study(z(3, 10, 4), ONE, Y, Y, Y), VE, "one class only"),
    (
        f"{P}.head_ablation.head_importance",
        lambda: head_ablation.head_importance(lm(), torch.tensor([[1]])),
        VE,
        "T ≥ 2",
    ),
    (
        f"{P}.head_ablation.pruning_curve",
        lambda: head_ablation.pruning_curve(lm(), torch.tensor([[1, 2]]), [(0, 0), (0, 0)]),
        VE,
        r"heads \(order\) must list distinct",
    ),
    (
        f"{P}.head_ablation.pruning_curve",
        lambda: head_ablation.pruning_curve(lm(), torch.tensor([[1, 2]]), [(0, 0)], ks=[2]),
        VE,
        r"ks must be integers in 0\.\.1",
    ),
    (
        f"{P}.head_ablation.ablated_loss",
        lambda: head_ablation.ablated_loss(lm(), torch.tensor([[1, 2]]), [(0, 9)]),
        VE,
        r"heads \(order\) must list distinct \(layer, head\) pairs",
    ),
    (f"{P}.head_ablation.table_heads", lambda: head_ablation.table_heads({}), TE, "non-empty dict"),
    (
        f"{P}.heads.target_share",
        lambda: heads.target_share(z(2, 3, 3), torch.zeros(3, 3)),
        VE,
        "S has no targets",
    ),
    (
        f"{P}.heads.target_share",
        lambda: heads.target_share(z(2, 3, 3), torch.zeros(4, 4)),
        VE,
        r"A must be \[\.\.\., T, T\] and S \[T, T\]",
    ),
    (
        f"{P}.erasure.first_order_delta",
        lambda: erasure.first_order_delta(z(3, 4), z(3, 4), z(3)),
        VE,
        r"grad and h must be \[T, d_e\] and b \[d_e\]",
    ),
    (
        f"{P}.heads.head_shares",
        lambda: heads.head_shares(lm(), torch.tensor([[1, 2, 3]]), Y),
        VE,
        "counts must be",
    ),
    (f"{P}.heads.text_windows", lambda: heads.text_windows(lm(), "ab", n=0), VE, "n must be an integer ≥ 1"),
    (
        f"{P}.identifiability.identified",
        lambda: identifiability.identified(z(1, 3, 4), z(1, 2, 4), torch.zeros(1, 2, dtype=torch.long)),
        VE,
        "g_h",
    ),
    (
        f"{P}.identifiability.identifiability_by_layer",
        lambda: identifiability.identifiability_by_layer(
            z(3, 10, 4), torch.zeros(3, 4, dtype=torch.long), Y, Y
        ),
        VE,
        "H holds 10 tokens but ids has n·T = 12",
    ),
    (
        f"{P}.erasure.erasable_share",
        lambda: erasure.erasable_share(lm(), torch.tensor([[1, 2]]), z(2, 3)),
        VE,
        r"baselines must be \[6, 256\]",
    ),
    (
        f"{P}.erasure.mean_states",
        lambda: erasure.mean_states(lm(), torch.tensor([[-1]])),
        VE,
        r"(ids|windows) must lie in 0\.\.4095",
    ),
    (f"{P}.pos.coarse", lambda: pos.coarse(None), TE, "penn must be a Penn Treebank tag"),
    (f"{P}.pos.tag_words", lambda: pos.tag_words(["Is", "this"]), TE, "text must be a string"),
    (f"{P}.pos.byte_tags", lambda: pos.byte_tags(b"two\nlines"), TE, "line must be one line"),
    (
        f"{P}.pos.token_tags",
        lambda: pos.token_tags(lm(), [1, 5000]),
        VE,
        r"ids must be token ids in 0\.\.4095",
    ),
    (f"{P}.pos.pos_labels", lambda: pos.pos_labels(lm(), torch.tensor([1, 2])), VE, "a 2-d tensor"),
    ("xai_tf.widgets.probing.plot_study", lambda: wp.plot_study({}), TE, "tables must be a non-empty dict"),
    (
        "xai_tf.widgets.probing.probing_panel",
        lambda: wp.probing_panel([]),
        TE,
        "tables must be a non-empty dict",
    ),
    (
        "xai_tf.widgets.probing.head_table_html",
        lambda: wp.head_table_html({}, 4),
        TE,
        "result must be a non-empty",
    ),
]

CHECKERS = {
    f"xai_tf.exercises.{module}.check_{name}": r"None.*did you forget to `return`"
    for module, names in (
        (
            "probing",
            ("codelength", "line_kind", "majority_baseline", "depth_labels", "control_labels", "timestamps"),
        ),
        ("probing_heads", ("target_share", "identified", "first_order_delta")),
    )
    for name in names
}

PANELS: dict = {}
_ = ex  # the checker is reached by name above


# Issue 58: sizes whose buffers would not fit in memory are refused before they are allocated.
RAISES += [
    (
        "xai_tf.probing.probes.fit_mlp",
        lambda: probes.fit_mlp(z(10, 4), torch.arange(10) % 2, 2, hidden=10**10),
        VE,
        "an MLP probe of hidden = 10000000000 needs .* choose a smaller hidden",
    ),
    (
        "xai_tf.probing.features.residual_streams",
        lambda: features.residual_streams(lm(), torch.zeros(1, 16, dtype=torch.long).expand(10**7, 16)),
        VE,
        "the residual streams of 10000000 windows needs .* read fewer windows",
    ),
]


# Issue 58: a list where a tensor is expected is named, not met by .shape.
RAISES += [
    (
        "xai_tf.probing.identifiability.identified",
        lambda: identifiability.identified([[[1.0]]], z(1, 1, 1), torch.zeros(1, 1).long()),
        TE,
        "g_h must be a torch.Tensor, got list",
    ),
]


# Issue 58 (second sweep), one row per class: windows refused by the model's own check were named
# "input_ids", a model by "model" (the argument is ``lm``); float or out-of-range token indices for the
# train/test split reached indexing; float labels reached bincount; heads that are not (layer, head)
# pairs; lists where tensors are expected.
RAISES += [
    (
        "xai_tf.probing.head_ablation.head_importance",
        lambda: head_ablation.head_importance(lm(), torch.tensor([[1, 10**6]])),
        VE,
        r"windows must lie in 0\.\.",
    ),
    (
        "xai_tf.probing.heads.head_shares",
        lambda: heads.head_shares(None, torch.tensor([[1, 2]]), Y),
        TE,
        "lm must be a model from xai_tf.load_model",
    ),
    (
        "xai_tf.probing.by_layer.probe_by_layer",
        lambda: by_layer.probe_by_layer(z(3, 10, 4), [Y], torch.arange(5), torch.tensor([10**9])),
        VE,
        r"test\[0\] must be an integer in 0\.\.9",
    ),
    (
        "xai_tf.probing.control.control_labels",
        lambda: control.control_labels(Y, Y.float()),
        TE,
        "labels must be a 1-d integer tensor",
    ),
    (
        "xai_tf.probing.head_ablation.ablated_loss",
        lambda: head_ablation.ablated_loss(lm(), torch.tensor([[1, 2, 3]]), None),
        TE,
        r"heads \(order\) must be a list of \(layer, head\) pairs",
    ),
    (
        "xai_tf.probing.erasure.first_order_delta",
        lambda: erasure.first_order_delta([[1.0]], z(1, 1), z(1)),
        TE,
        "grad must be a torch.Tensor, got list",
    ),
]
