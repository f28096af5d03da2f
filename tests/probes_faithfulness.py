"""Bad-input probes for lesson 08 (is attention explanation?: the tasks, the recurrent classifiers and
``xai_tf.faithfulness``), collected by ``test_bad_inputs.py``."""

from functools import cache
from pathlib import Path

import torch
from probe_kit import TE, VE, lm, z

from xai_tf.faithfulness import adversary as fadv
from xai_tf.faithfulness import baselines as fbase
from xai_tf.faithfulness import correlation as fcorr
from xai_tf.faithfulness import deceive as fdec
from xai_tf.faithfulness import diagnostic as fdiag
from xai_tf.faithfulness import divergence as fdiv
from xai_tf.faithfulness import erasure as ferase
from xai_tf.faithfulness import heads as fheads
from xai_tf.faithfulness import identifiability as fid
from xai_tf.faithfulness import importance as fimp
from xai_tf.faithfulness import permutation as fperm
from xai_tf.faithfulness import plausibility as fplaus
from xai_tf.faithfulness import transformer as ftr
from xai_tf.tasks import cues, recurrent, tweets, words
from xai_tf.widgets import faithfulness as faithfulness_w


@cache
def clf() -> recurrent.AttentionClassifier:
    """An untrained attention classifier over the planted-cue vocabulary (lesson 08)."""
    torch.manual_seed(0)
    return recurrent.AttentionClassifier(recurrent.RecurrentConfig(len(cues.VOCAB)))


def cue_data(n: int = 3) -> list:
    return cues.cue_sentences(n, seed=0)


EXEMPT = {
    "xai_tf.tasks.tweets.sdist_path": "no arguments",
    "xai_tf.tasks.tweets.fetch_tweets": "no arguments; downloads (tests stay offline)",
}


RAISES = [
    (
        "xai_tf.faithfulness.importance.explanations",
        lambda: fimp.explanations(clf(), [2, 3], dtype=torch.float16),
        VE,
        "dtype must be one of",
    ),
    (
        "xai_tf.faithfulness.importance.in_dtype",
        lambda: fimp.in_dtype("model", torch.float64),
        TE,
        "model must be an AttentionClassifier, got str",
    ),
    (
        "xai_tf.faithfulness.transformer.transformer_explanations",
        lambda: ftr.transformer_explanations(lm(), None, "Thou art a knave", n_step=3),
        TE,
        r"takes the options \['n_steps'\], got \['n_step'\]",
    ),
    (
        "xai_tf.faithfulness.baselines.consistent_adversary",
        lambda: fbase.consistent_adversary(clf(), cue_data(), -0.5),
        VE,
        "lam must be",
    ),
    (
        "xai_tf.faithfulness.diagnostic.frozen_guide",
        lambda: fdiag.frozen_guide(3),
        TE,
        "model must be an AttentionClassifier, got int",
    ),
    (
        "xai_tf.faithfulness.diagnostic.guided_mlp",
        lambda: fdiag.guided_mlp(cue_data(), len(cues.VOCAB), "model"),
        TE,
        "model must be an AttentionClassifier, got str",
    ),
    (
        "xai_tf.faithfulness.diagnostic.mlp_diagnostic",
        lambda: fdiag.mlp_diagnostic(
            clf(), recurrent.AttentionClassifier(recurrent.RecurrentConfig(50)), cue_data(), cue_data()
        ),
        VE,
        "base and adversary must share a vocabulary",
    ),
    (
        "xai_tf.faithfulness.permutation.permuted_outputs",
        lambda: fperm.permuted_outputs(clf(), [2, 3], 0, 0),
        VE,
        "n_permutations must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.faithfulness.permutation.permutation_study",
        lambda: fperm.permutation_study(clf(), cue_data(), 0),
        VE,
        "n_permutations must be an integer ≥ 1, got 0",
    ),
    ("xai_tf.tasks.words.tokenize", lambda: words.tokenize(3), TE, "text must be a str, got int"),
    (
        "xai_tf.tasks.words.examples",
        lambda: words.examples(cues.VOCAB, [("zzz qqq", 0)]),
        VE,
        "data has no text with a word the vocabulary knows",
    ),
    ("xai_tf.tasks.cues.cue_sentences", lambda: cues.cue_sentences(0), VE, "n must be an integer ≥ 1, got 0"),
    (
        "xai_tf.tasks.tweets.read_tweets",
        lambda: tweets.read_tweets(Path("/nonexistent.tar.gz")),
        FileNotFoundError,
        "python -m xai_tf.tasks.tweets",
    ),
    (
        "xai_tf.tasks.tweets.tweet_split",
        lambda: tweets.tweet_split(n_train=1),
        VE,
        "n_train must be an integer ≥ 2, got 1",
    ),
    ("xai_tf.tasks.recurrent.batch", lambda: recurrent.batch([]), VE, "data is empty"),
    (
        "xai_tf.tasks.recurrent.nll",
        lambda: recurrent.nll([0.1], None, None),
        TE,
        "scores must be a torch.Tensor",
    ),
    (
        "xai_tf.tasks.recurrent.train_attention_classifier",
        lambda: recurrent.train_attention_classifier(cue_data(), len(cues.VOCAB), encoder="gru"),
        VE,
        "encoder must be one of",
    ),
    ("xai_tf.tasks.recurrent.predict", lambda: recurrent.predict(clf(), []), VE, "data is empty"),
    ("xai_tf.tasks.recurrent.accuracy", lambda: recurrent.accuracy(clf(), []), VE, "data is empty"),
    (
        "xai_tf.faithfulness.importance.attention_weights",
        lambda: fimp.attention_weights(clf(), [0, 2]),
        VE,
        r"input_ids must lie in 1\.\.",
    ),
    (
        "xai_tf.faithfulness.importance.importances",
        lambda: fimp.importances(clf(), [2, 3], ["saliency"]),
        VE,
        "methods must be a non-empty list of names from",
    ),
    (
        "xai_tf.faithfulness.correlation.kendall",
        lambda: fcorr.kendall([1.0], [2.0]),
        VE,
        "vectors of one length ≥ 2",
    ),
    (
        "xai_tf.faithfulness.correlation.correlation_study",
        lambda: fcorr.correlation_study(clf(), []),
        VE,
        "data has no sentence of at least 2 words",
    ),
    (
        "xai_tf.faithfulness.divergence.kl",
        lambda: fdiv.kl(z(3), z(4)),
        VE,
        "p and q must be distributions of one shape",
    ),
    (
        "xai_tf.faithfulness.divergence.jsd",
        lambda: fdiv.jsd(z(3).abs(), -z(3).abs() - 1),
        VE,
        "q must be finite and ≥ 0",
    ),
    (
        "xai_tf.faithfulness.divergence.tvd",
        lambda: fdiv.tvd([0.5, 0.5], z(2)),
        TE,
        "p must be a torch.Tensor",
    ),
    (
        "xai_tf.faithfulness.adversary.epsilon_adversary",
        lambda: fadv.epsilon_adversary(clf(), [2, 3], epsilon=0),
        VE,
        r"epsilon must be a finite number in \(0, 1\], got 0",
    ),
    (
        "xai_tf.faithfulness.adversary.adversary_study",
        lambda: fadv.adversary_study(clf(), []),
        VE,
        "data is empty",
    ),
    (
        "xai_tf.faithfulness.erasure.erase",
        lambda: ferase.erase(torch.ones(3) / 3, [5]),
        VE,
        r"removed must be an integer in 0\.\.2, got 5",
    ),
    (
        "xai_tf.faithfulness.erasure.sentence_states",
        lambda: ferase.sentence_states(clf(), [[2, 3], [3, 4]]),
        VE,
        "explain one sentence at a time",
    ),
    (
        "xai_tf.faithfulness.erasure.removal_order",
        lambda: ferase.removal_order(clf(), [2, 3], "saliency"),
        VE,
        "by must be one of",
    ),
    (
        "xai_tf.faithfulness.erasure.removals_to_flip",
        lambda: ferase.removals_to_flip(clf(), [], [0]),
        VE,
        r"input_ids must be word ids \[T\] or \[batch, T\], T ≥ 1",
    ),
    (
        "xai_tf.faithfulness.erasure.erasure_study",
        lambda: ferase.erasure_study(clf(), []),
        VE,
        "data has no sentence of at least 2 words",
    ),
    (
        "xai_tf.faithfulness.deceive.deceive_penalty",
        lambda: fdec.deceive_penalty(z(2, 3), z(2, 4)),
        VE,
        "alpha and m must have one shape",
    ),
    (
        "xai_tf.faithfulness.deceive.deceive_loss",
        lambda: fdec.deceive_loss(-1),
        VE,
        "lam must be a finite number ≥ 0",
    ),
    (
        "xai_tf.faithfulness.deceive.mass_on_cues",
        lambda: fdec.mass_on_cues(clf(), []),
        VE,
        "data has no sentence",
    ),
    (
        "xai_tf.faithfulness.deceive.deceive_table",
        lambda: fdec.deceive_table(cue_data(), cue_data(), len(cues.VOCAB), lams=()),
        VE,
        "lams is empty",
    ),
    ("xai_tf.faithfulness.deceive.state_norms", lambda: fdec.state_norms(clf(), []), VE, "data is empty"),
    (
        "xai_tf.faithfulness.baselines.seed_jsd",
        lambda: fbase.seed_jsd([clf()], cue_data()),
        VE,
        "models must hold at least 2 models, got 1",
    ),
    (
        "xai_tf.faithfulness.baselines.consistent_loss",
        lambda: fbase.consistent_loss(clf(), cue_data(), -0.5),
        VE,
        "lam must be a finite number ≥ 0",
    ),
    (
        "xai_tf.faithfulness.baselines.consistent_adversaries",
        lambda: fbase.consistent_adversaries(clf(), cue_data(), cue_data(), lams=()),
        VE,
        "lams is empty",
    ),
    (
        "xai_tf.faithfulness.plausibility.precision_at_k",
        lambda: fplaus.precision_at_k([0.1, 0.2], [1, 0], k=3),
        VE,
        r"k must be an integer in 1\.\.2, got 3",
    ),
    (
        "xai_tf.faithfulness.plausibility.precision_study",
        lambda: fplaus.precision_study(clf(), [e._replace(cues=[0] * len(e.ids)) for e in cue_data()]),
        VE,
        "data has no sentence with planted cues",
    ),
    (
        "xai_tf.faithfulness.identifiability.null_directions",
        lambda: fid.null_directions(z(3)),
        VE,
        r"V must be a finite matrix \[T, d_h\]",
    ),
    (
        "xai_tf.faithfulness.identifiability.equivalent_attention",
        lambda: fid.equivalent_attention(torch.ones(3), z(3, 2), 0),
        VE,
        "alpha must be a distribution",
    ),
    (
        "xai_tf.faithfulness.transformer.phrase_classifier",
        lambda: ftr.phrase_classifier(lm(), []),
        VE,
        "data is empty",
    ),
    (
        "xai_tf.faithfulness.transformer.transformer_importances",
        lambda: ftr.transformer_importances(lm(), None, "O"),
        VE,
        "text must have at least 2 tokens, got 1",
    ),
    (
        "xai_tf.faithfulness.transformer.transformer_correlation",
        lambda: ftr.transformer_correlation(lm(), None, []),
        VE,
        "texts is empty",
    ),
    (
        "xai_tf.faithfulness.heads.head_removal",
        lambda: fheads.head_removal(lm(), [5]),
        VE,
        r"ids must be one text of 2\.\.",
    ),
]


CHECKERS = {
    "xai_tf.exercises.faithfulness.check_kendall_tau": "returned None: did you forget",
    "xai_tf.exercises.faithfulness.check_erase": "is None: did you forget",
}


PANELS = {
    "xai_tf.widgets.faithfulness.faithfulness_panel": (
        lambda: faithfulness_w.faithfulness_panel({"untrained": clf()}, cues.VOCAB, cue_data()),
        "text",
        "zzz qqq",
    ),
}
