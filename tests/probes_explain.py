"""Bad-input probes for lessons 06–07 (``xai_tf.explain``: path integrals, attribution, the logit
lens, word-level attention and agreement; the sentiment task; their exercises and panels), collected by
``test_bad_inputs.py``."""

import torch
from probe_kit import NAN, TE, VE, lm, tiny, z

import xai_tf
from xai_tf.explain import agreement as ag
from xai_tf.explain import attribution as attr
from xai_tf.explain import encoder, lens, registry, setting
from xai_tf.explain import wordlevel as wl
from xai_tf.tasks import sentiment
from xai_tf.widgets import attribution, wordlevel

EXEMPT = {
    "xai_tf.tasks.sentiment.sentiment_phrases": "no arguments",
}


RAISES = [
    # lecture errata and notation (issue 15), whole characters (issue 14)
    (
        "xai_tf.explain.wordlevel.attention_received",
        lambda: wl.attention_received(z(1, 1, 3, 3).softmax(-1), ["a", "b"], [[0], [1], [2]]),
        VE,
        "2 tokens for attention over 3 positions",
    ),
    (
        "xai_tf.explain.agreement.method_scores",
        lambda: ag.method_scores(lm(), [1, 2, 3], 4, methods=["IG", "SHAP"]),
        VE,
        "methods must be a non-empty list of names from",
    ),
    (
        "xai_tf.explain.agreement.rank_agreement",
        lambda: ag.rank_agreement([{"a": z(3), "b": z(3)}], "pearson"),
        VE,
        r"statistic must be one of \('kendall', 'spearman'\), got 'pearson'",
    ),
    # explanations
    (
        "xai_tf.explain.path_integral.quadrature",
        lambda: attr.quadrature(2.5),
        TE,
        "n_steps must be an integer ≥ 1, got 2.5",
    ),
    (
        "xai_tf.explain.path_integral.path_integrated_gradients",
        lambda: attr.path_integrated_gradients(lambda x: x.sum(-1), z(3), z(4)),
        VE,
        "baseline has shape",
    ),
    (
        "xai_tf.explain.setting.named_baselines",
        lambda: attr.named_baselines(xai_tf.load_model("minilm")),
        VE,
        "minilm is an encoder",
    ),
    (
        "xai_tf.explain.setting.target_function",
        lambda: attr.target_function(tiny(), 0, output="probability"),
        VE,
        r"output must be one of \('logit', 'logprob', 'prob'\)",
    ),
    (
        "xai_tf.explain.setting.explained_module",
        lambda: setting.explained_module("gpt2"),
        TE,
        "model must be a model from xai_tf.load_model",
    ),
    (
        "xai_tf.explain.setting.token_ids",
        lambda: setting.token_ids(tiny(), [[1, 2], [3, 4]]),
        VE,
        r"explain one prompt at a time: input_ids has shape \(2, 2\)",
    ),
    (
        "xai_tf.explain.setting.explained",
        lambda: setting.explained(tiny(), [1, 2, 3], 0, 7, "logit"),
        VE,
        "position must be an integer in -3..2, got 7",
    ),
    (  # a language model's target is checked when F is made, not at its first call
        "xai_tf.explain.setting.explained",
        lambda: setting.explained(tiny(), [1, 2, 3], 10**6, -1, "logit"),
        VE,
        "target must be an integer in 0..",
    ),
    (
        "xai_tf.explain.setting.embeddings",
        lambda: setting.embeddings(tiny(), torch.tensor([1, 2]), "blank"),
        VE,
        "baseline must be 'token0', 'zeros'",
    ),
    (
        "xai_tf.explain.setting.fitting_batch",
        lambda: setting.fitting_batch(tiny(), 0),
        VE,
        "T must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.explain.setting.baseline_ids",
        lambda: attr.baseline_ids(tiny(), torch.tensor([1, 2]), "ones"),
        VE,
        "baseline must be 'token0', 'zeros'",
    ),
    (
        "xai_tf.explain.attribution.integrated_gradients",
        lambda: attr.integrated_gradients(tiny(), [1, 2], 99),
        VE,
        "target must be an integer in 0..49, got 99",
    ),
    (
        "xai_tf.explain.attribution.sequential_integrated_gradients",
        lambda: attr.sequential_integrated_gradients(tiny(), [1, 2], 3, n_steps=0),
        VE,
        "n_steps must be an integer ≥ 1",
    ),
    (
        "xai_tf.explain.attribution.embedding_gradients",
        lambda: attr.embedding_gradients(tiny(), [[1], [2]], 3),
        VE,
        "explain one prompt at a time",
    ),
    (
        "xai_tf.explain.attribution.gradient_saliency",
        lambda: attr.gradient_saliency(z(3, 4), "l3"),
        VE,
        "aggregation must be one of",
    ),
    (
        "xai_tf.explain.attribution.gradient_times_input",
        lambda: attr.gradient_times_input(z(3, 4), z(3, 5)),
        VE,
        r"g has shape \(3, 4\), E \(3, 5\)",
    ),
    (
        "xai_tf.explain.attribution.leave_one_out",
        lambda: attr.leave_one_out(tiny(), [1, 2], 3, replacement=99),
        VE,
        "replacement must be an integer in 0..49, got 99",
    ),
    (
        "xai_tf.explain.lens.logit_lens",
        lambda: lens.logit_lens(tiny(), [1, 2], position=5),
        VE,
        "position in -2..1",
    ),
    (
        "xai_tf.explain.lens.logit_lens_top",
        lambda: lens.logit_lens_top(tiny(), [1, 2], k=0),
        VE,
        "k must be an integer in 1..50, got 0",
    ),
    (
        "xai_tf.explain.wordlevel.word_groups",
        lambda: wl.word_groups(["a"], "sentencepiece"),
        VE,
        "scheme must be 'bpe' or 'wordpiece'",
    ),
    ("xai_tf.explain.wordlevel.words_of", lambda: wl.words_of(lm(), []), VE, "ids is empty"),
    ("xai_tf.explain.wordlevel.attention_of", lambda: wl.attention_of(lm(), ""), VE, "prompt is empty"),
    (
        "xai_tf.explain.wordlevel.word_strings",
        lambda: wl.word_strings(["a"], [[0]], "sentencepiece"),
        VE,
        "scheme must be 'bpe' or 'wordpiece'",
    ),
    (
        "xai_tf.explain.wordlevel.word_attention",
        lambda: wl.word_attention(z(3, 3), [[0], [2]]),
        VE,
        "groups must be non-empty lists",
    ),
    (
        "xai_tf.explain.wordlevel.aggregate_heads",
        lambda: wl.aggregate_heads(z(2, 2, 3, 3), "median"),
        VE,
        "how must be 'mean' or 'max'",
    ),
    (
        "xai_tf.explain.wordlevel.residual_attention",
        lambda: wl.residual_attention(z(2, 2, 3, 3).softmax(-1), NAN),
        VE,
        "residual must be a finite number in",
    ),
    (
        "xai_tf.explain.wordlevel.attention_rollout",
        lambda: wl.attention_rollout(z(3, 3)),
        VE,
        r"attentions must be \[layers, heads, T, T\]",
    ),
    (
        "xai_tf.explain.wordlevel.attention_flow",
        lambda: wl.attention_flow(torch.ones(0, 1, 2, 2)),
        VE,
        "at least one of each",
    ),
    (
        "xai_tf.explain.wordlevel.head_statistics",
        lambda: wl.head_statistics(z(1, 1, 2, 2).softmax(-1), ["a"]),
        VE,
        "1 tokens for attention over 2 positions",
    ),
    # tasks
    (
        "xai_tf.tasks.sentiment.train_classifier",
        lambda: sentiment.train_classifier(lm(), [("good", 1)], options=sentiment.OPTIONS.replace(steps=0)),
        VE,
        "steps must be an integer in 1..100000, got 0",
    ),
    ("xai_tf.tasks.sentiment.accuracy", lambda: sentiment.accuracy(None, lm(), []), VE, "data is empty"),
    (
        "xai_tf.tasks.sentiment.phrase_features",
        lambda: sentiment.phrase_features(None, lm(), []),
        VE,
        "texts is empty",
    ),
    # the method registry (issue 41): unknown ids, kinds and options refused by name
    (
        "xai_tf.explain.registry.explain",
        lambda: registry.explain("gradient", lm(), [1, 2, 3], 4),
        VE,
        r"method must be one of the ids \['ig', 'grad_avg', 'grad_l1', 'grad_l2', 'grad_x_input'",
    ),
    (
        "xai_tf.explain.registry.explain",
        lambda: registry.explain(None, lm(), [1, 2, 3], 4),
        VE,
        r"method must be one of the ids \['ig',",
    ),
    (
        "xai_tf.explain.registry.explain",
        lambda: registry.explain("ig", lm(), [1, 2, 3], 4, steps=8),
        TE,
        r"ig on 'causal' models takes the options \['baseline', 'n_steps', 'quadrature'\], got \['steps'\]",
    ),
    (
        "xai_tf.explain.registry.explain",
        lambda: registry.explain("rollout", lm(), [1, 2, 3], 4),
        VE,
        r"rollout does not explain 'causal' models: it explains \['sequence', 'encoder'\]",
    ),
    (
        "xai_tf.explain.registry.explain",
        lambda: registry.explain("loo", torch.nn.Linear(2, 2), [1, 2, 3], 4),
        TE,
        r"model must be a model of a kind in \['causal', 'attention', 'sequence', 'encoder'\]",
    ),
    (
        "xai_tf.explain.registry.explain",
        lambda: registry.explain("grad_l2", lm(), [[1, 2], [3, 4]], 4),
        VE,
        "explain one prompt at a time",
    ),
    (
        "xai_tf.explain.registry.explain",
        lambda: registry.explain("ig", lm(), [1, 2, 3], None),
        TE,
        "target must be an integer",
    ),
    (
        "xai_tf.explain.registry.explain",
        lambda: registry.explain("loo", lm(), [1, 2, 3], 10**6),
        VE,
        r"target must be an integer in 0\.\.4095",
    ),
    (
        "xai_tf.explain.registry.explain",
        lambda: registry.explain("ig", lm(), [1, 2, NAN], 4),
        VE,
        "input_ids must",
    ),
    (
        "xai_tf.explain.registry.kind_of",
        lambda: registry.kind_of("gpt2"),
        TE,
        r"model must be a model of a kind in \['causal', 'attention', 'sequence', 'encoder'\] .*got str",
    ),
    (
        "xai_tf.explain.registry.table",
        lambda: registry.table("vision"),
        VE,
        r"kind must be one of \['causal', 'attention', 'sequence', 'encoder'\] or None, got 'vision'",
    ),
    (
        "xai_tf.explain.encoder.received",
        lambda: encoder.received(z(2, 2, 3, 3).softmax(-1), "raw"),
        VE,
        r"how must be one of \['attention', 'rollout', 'flow'\], got 'raw'",
    ),
    (
        "xai_tf.explain.encoder.received",
        lambda: encoder.received(z(1, 1, 41, 41).softmax(-1), "flow"),
        VE,
        "flow is offered for up to 40 tokens, got 41",
    ),
]


CHECKERS = {
    "xai_tf.exercises.attribution.check_integrated_gradients": "IG is None",
    "xai_tf.exercises.attribution.check_g_l1": "G-L1 is None",
    "xai_tf.exercises.wordlevel.check_word_attention": "Ã is None",
    "xai_tf.exercises.wordlevel.check_rollout": "R is None",
}


PANELS = {
    "xai_tf.widgets.attribution.attribution_panel": (
        lambda: attribution.attribution_panel(lm()),
        "text",
        "",
    ),
    "xai_tf.widgets.wordlevel.word_attention_panel": (
        lambda: wordlevel.word_attention_panel(lm()),
        "text",
        "",
    ),
}

# lesson 07's exercises (issue 54)
RAISES += [
    (
        "xai_tf.explain.wordlevel.previous_token_share",
        lambda: wl.previous_token_share(z(3, 3)),
        VE,
        r"attentions must be \[layers, heads, T, T\]",
    ),
    (
        "xai_tf.explain.wordlevel.received_per_word",
        lambda: wl.received_per_word(z(1, 1, 3, 3).softmax(-1), [[0], [2]]),
        VE,
        "groups must be non-empty lists of token indices covering 0..2",
    ),
]
CHECKERS |= {
    "xai_tf.exercises.wordlevel.check_previous_token_share": "prev is None",
    "xai_tf.exercises.wordlevel.check_received_per_word": "received is None",
    "xai_tf.exercises.wordlevel.check_residual_attention": "Â is None",
}


# Issue 58: token scores that are not numbers are named by prompt (torch said "invalid data type").
RAISES += [
    (
        "xai_tf.explain.agreement.rank_agreement",
        lambda: ag.rank_agreement([{"a": "abc", "b": torch.tensor([1.0, 2.0, 3.0])}]),
        TE,
        "scores\\[0\\] must map each method to its token scores, a tensor or array of numbers",
    ),
]
