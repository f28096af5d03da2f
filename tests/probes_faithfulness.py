"""Bad-input probes for lesson 08 (is attention explanation?: the tasks, the recurrent classifiers and
``xai_tf.faithfulness``), collected by ``test_bad_inputs.py``."""

import math
from functools import cache
from pathlib import Path

import torch
from probe_kit import NAN, TE, VE, lm, z

from xai_tf.exercises import faithfulness_adversary
from xai_tf.exercises.faithfulness import additive_weights, kendall_tau
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
from xai_tf.tasks.sentiment import SequenceClassifier
from xai_tf.widgets import faithfulness as faithfulness_w


@cache
def clf() -> recurrent.AttentionClassifier:
    """An untrained attention classifier over the planted-cue vocabulary (lesson 08)."""
    torch.manual_seed(0)
    return recurrent.AttentionClassifier(recurrent.RecurrentConfig(len(cues.VOCAB)))


def cue_data(n: int = 3) -> list:
    return cues.cue_sentences(n, seed=0)


@cache
def uniform() -> recurrent.AttentionClassifier:
    """An untrained classifier with uniform attention, α_t = 1/T (lesson 08's baseline)."""
    torch.manual_seed(0)
    return recurrent.AttentionClassifier(recurrent.RecurrentConfig(len(cues.VOCAB), attention="uniform"))


@cache
def other_vocab() -> words.Vocabulary:
    """A vocabulary of 402 words: another task's (as the tweets' is to the cue task's)."""
    return words.Vocabulary.build([" ".join(f"w{i}" for i in range(400))] * 2, min_count=1)


def other_data() -> list:
    """A sentence encoded with ``other_vocab``: ids beyond the cue vocabulary's 38 words."""
    return words.examples(other_vocab(), [(" ".join(f"w{i}" for i in range(300, 306)), 1)])


def all_cues() -> list:
    """Cue sentences whose every word is marked impermissible (m_t = 1 for all t)."""
    return [e._replace(cues=[1] * len(e.ids)) for e in cue_data(4)]


EXEMPT = {
    "xai_tf.tasks.tweets.sdist_path": "no arguments",
    "xai_tf.tasks.tweets.fetch_tweets": "no arguments; downloads (tests stay offline)",
}


RAISES = [
    (
        "xai_tf.faithfulness.importance.sentence_ids",
        lambda: fimp.sentence_ids(clf(), [3, 38]),
        VE,
        r"ids must be token ids in 0\.\.37 \(the model's vocabulary\), got 38",
    ),
    (
        "xai_tf.faithfulness.importance.vocabulary_size",
        lambda: fimp.vocabulary_size(cues.VOCAB),
        TE,
        "model must be an AttentionClassifier, got Vocabulary",
    ),
    # issue 31: every class of bad input for lesson 08's helpers (wrong shapes, empty data, NaN/inf,
    # dtypes, paired lengths, lists/strings, float and out-of-range indices, seeds, sizes, vocabularies)
    (
        "xai_tf.faithfulness.correlation.kendall",
        lambda: fcorr.kendall([1, NAN, 3], [1, 2, 3]),
        VE,
        r"a has NaN or ±inf entries: every score must b",
    ),  # kendall NaN
    (
        "xai_tf.faithfulness.correlation.kendall",
        lambda: fcorr.kendall([1, 2, 3], [1, math.inf, 3]),
        VE,
        r"b has NaN or ±inf entries: every score must b",
    ),  # kendall inf
    (
        "xai_tf.faithfulness.correlation.kendall",
        lambda: fcorr.kendall("abc", [1, 2, 3]),
        TE,
        r"a must be a list or tensor of real numbers \[T",
    ),  # kendall str
    (
        "xai_tf.faithfulness.correlation.kendall",
        lambda: fcorr.kendall(torch.ones(2, 3), torch.ones(2, 3)),
        VE,
        r"a must be a vector \[T\], got shape \(2, 3\)",
    ),  # kendall 2-D
    (
        "xai_tf.faithfulness.correlation.kendall",
        lambda: fcorr.kendall([1, 2, 3], [1, 2]),
        VE,
        r"a and b must be vectors of one length ≥ 2, go",
    ),  # kendall lengths
    (
        "xai_tf.faithfulness.correlation.kendall",
        lambda: fcorr.kendall([True, False, True], [1, 2, 3]),
        TE,
        r"a must be a list or tensor of real numbers \[T",
    ),  # kendall bool
    (
        "xai_tf.faithfulness.plausibility.precision_at_k",
        lambda: fplaus.precision_at_k([NAN, 0.1, 0.2], [0, 1, 1]),
        VE,
        r"scores has NaN or ±inf entries: every score m",
    ),  # P@k NaN
    (
        "xai_tf.faithfulness.plausibility.precision_at_k",
        lambda: fplaus.precision_at_k([0.3, 0.1, 0.2], [0, 1]),
        VE,
        r"3 scores but 2 cues: P@k needs one of each",
    ),  # P@k lengths
    (
        "xai_tf.faithfulness.plausibility.precision_at_k",
        lambda: fplaus.precision_at_k([0.3, 0.1, 0.2], [0, 1, 1], k=1.5),
        TE,
        r"k must be an integer in 1\.\.3, got 1\.5",
    ),  # P@k k float
    (
        "xai_tf.faithfulness.plausibility.precision_at_k",
        lambda: fplaus.precision_at_k([0.3, 0.1, 0.2], [0, 2, 1]),
        VE,
        r"cues\[1\] must be an integer in 0\.\.1, got 2",
    ),  # P@k cues 2
    (
        "xai_tf.faithfulness.plausibility.precision_at_k",
        lambda: fplaus.precision_at_k("abc", [0, 1, 1]),
        TE,
        r"scores must be a list or tensor of real numbe",
    ),  # P@k str scores
    (
        "xai_tf.faithfulness.plausibility.precision_at_k",
        lambda: fplaus.precision_at_k([], []),
        VE,
        r"scores is empty: give one score per word of a",
    ),  # P@k empty
    (
        "xai_tf.faithfulness.plausibility.precision_at_k",
        lambda: fplaus.precision_at_k([0.3, 0.1], [0, 1], k=0),
        VE,
        r"k must be an integer in 1\.\.2, got 0",
    ),  # P@k k=0
    (
        "xai_tf.faithfulness.divergence.jsd",
        lambda: fdiv.jsd(torch.tensor([3.0, 1.0]), torch.tensor([0.0, 5.0])),
        VE,
        r"p must sum to 1 along the last dim \(a distrib",
    ),  # jsd unnormalised
    (
        "xai_tf.faithfulness.divergence.kl",
        lambda: fdiv.kl(torch.tensor([3.0, 1.0]), torch.tensor([0.5, 0.5])),
        VE,
        r"p must sum to 1 along the last dim \(a distrib",
    ),  # kl unnormalised
    (
        "xai_tf.faithfulness.divergence.jsd",
        lambda: fdiv.jsd(torch.tensor([NAN, 1.0]), torch.tensor([0.5, 0.5])),
        VE,
        r"p has NaN or ±inf entries: every entry must b",
    ),  # jsd NaN
    (
        "xai_tf.faithfulness.divergence.jsd",
        lambda: fdiv.jsd(torch.tensor([1, 0]), torch.tensor([0, 1])),
        TE,
        r"p must be a floating\-point tensor \(float32 or",
    ),  # jsd int
    (
        "xai_tf.faithfulness.divergence.jsd",
        lambda: fdiv.jsd([0.5, 0.5], [0.5, 0.5]),
        TE,
        r"p must be a torch\.Tensor, got list",
    ),  # jsd list
    (
        "xai_tf.faithfulness.divergence.tvd",
        lambda: fdiv.tvd(torch.ones(3) / 3, torch.ones(2) / 2),
        VE,
        r"p and q must be distributions of one shape, g",
    ),  # tvd shapes
    (
        "xai_tf.faithfulness.erasure.erase",
        lambda: ferase.erase(torch.ones(3) / 3, [1.7]),
        TE,
        r"removed\[0\] must be an integer in 0\.\.2, got 1\.",
    ),  # erase float index
    (
        "xai_tf.faithfulness.erasure.erase",
        lambda: ferase.erase(torch.tensor([NAN, 0.5, 0.5]), [1]),
        VE,
        r"alpha has NaN or ±inf entries: every entry mu",
    ),  # erase NaN alpha
    (
        "xai_tf.faithfulness.erasure.erase",
        lambda: ferase.erase(torch.tensor([-0.5, 1.0, 0.5]), [1]),
        VE,
        r"alpha must be attention weights ≥ 0, got a ne",
    ),  # erase negative alpha
    (
        "xai_tf.faithfulness.erasure.erase",
        lambda: ferase.erase(torch.tensor([1, 2, 3]), [1]),
        TE,
        r"alpha must be a floating\-point tensor \(float3",
    ),  # erase int alpha
    (
        "xai_tf.faithfulness.erasure.erase",
        lambda: ferase.erase([0.5, 0.5], [1]),
        TE,
        r"alpha must be a torch\.Tensor, got list",
    ),  # erase list alpha
    (
        "xai_tf.faithfulness.erasure.erase",
        lambda: ferase.erase(torch.ones(3) / 3, 1),
        TE,
        r"removed must be a list of integer positions i",
    ),  # erase removed int
    (
        "xai_tf.faithfulness.erasure.erase",
        lambda: ferase.erase(torch.ones(3) / 3, [-1]),
        VE,
        r"removed\[0\] must be an integer in 0\.\.2, got \-1",
    ),  # erase neg index
    (
        "xai_tf.faithfulness.erasure.erase",
        lambda: ferase.erase(torch.ones(3) / 3, torch.tensor([1.0])),
        TE,
        r"removed must hold integer positions in 0\.\.2, ",
    ),  # erase float tensor idx
    (
        "xai_tf.faithfulness.importance.importances",
        lambda: fimp.importances(clf(), [5, 900]),
        VE,
        r"ids must be token ids in 0\.\.37 \(the model's v",
    ),  # importances vocab mismatch
    (
        "xai_tf.faithfulness.importance.importances",
        lambda: fimp.importances(clf(), [2.5, 3.0]),
        TE,
        r"ids must hold integer token ids in 0\.\.37",
    ),  # importances float ids
    (
        "xai_tf.faithfulness.importance.importances",
        lambda: fimp.importances(clf(), "the movie"),
        TE,
        r"ids must be word ids in 1\.\.37 \(encode the tex",
    ),  # importances str ids
    (
        "xai_tf.faithfulness.importance.importances",
        lambda: fimp.importances(clf(), [2, 3], "IG"),
        VE,
        r"methods must be a non\-empty list of names fro",
    ),  # importances method str
    (
        "xai_tf.faithfulness.importance.importances",
        lambda: fimp.importances(clf(), [3]),
        VE,
        r"ids must have at least 2 words for leave\-one\-",
    ),  # importances one word
    (
        "xai_tf.faithfulness.importance.importances",
        lambda: fimp.importances("model", [2, 3]),
        TE,
        r"model must be an AttentionClassifier, got str",
    ),  # importances model wrong
    (
        "xai_tf.faithfulness.importance.importances",
        lambda: fimp.importances(clf(), [2, 3], ["IG"], ig_steps=10**9, ig_max_steps=10**9),
        VE,
        r"ig_steps must be an integer in 1\.\.1024, got 1",
    ),  # importances ig_steps huge
    (
        "xai_tf.faithfulness.importance.importances",
        lambda: fimp.importances(clf(), [2, 3], ["IG"], target=2),
        VE,
        r"target must be an integer in 0\.\.1, got 2",
    ),  # importances target 2
    (
        "xai_tf.faithfulness.importance.importances",
        lambda: fimp.importances(clf(), [2] * 10**6, ["LOO"]),
        VE,
        r"explaining ids of 1000000 words needs 1907348",
    ),  # importances long sentence
    (
        "xai_tf.faithfulness.correlation.correlation_study",
        lambda: fcorr.correlation_study(clf(), "data"),
        TE,
        r"data must be a list of Examples \(xai_tf\.tasks",
    ),  # correlation str data
    (
        "xai_tf.faithfulness.correlation.correlation_study",
        lambda: fcorr.correlation_study(clf(), other_data()),
        VE,
        r"data's word ids must be token ids in 0\.\.37 \(t",
    ),  # correlation vocab mismatch
    (
        "xai_tf.faithfulness.correlation.correlation_study",
        lambda: fcorr.correlation_study(clf(), cue_data(4), [("attention",)]),
        VE,
        r"pairs must be pairs of \['attention', 'gradien",
    ),  # correlation bad pair
    (
        "xai_tf.faithfulness.correlation.correlation_study",
        lambda: fcorr.correlation_study(clf(), cue_data(4), "attention"),
        VE,
        r"pairs must be pairs of \['attention', 'gradien",
    ),  # correlation pairs str
    (
        "xai_tf.faithfulness.correlation.correlation_study",
        lambda: fcorr.correlation_study(clf(), cue_data(4), options={"dtype": torch.float16}),
        VE,
        r"dtype must be one of \(torch\.float32, torch\.fl",
    ),  # correlation options
    (
        "xai_tf.faithfulness.deceive.deceive_penalty",
        lambda: fdec.deceive_penalty([[0.5, 0.5]], [[1.0, 1.0]]),
        TE,
        r"alpha must be a torch\.Tensor, got list",
    ),  # deceive_penalty list
    (
        "xai_tf.faithfulness.deceive.deceive_penalty",
        lambda: fdec.deceive_penalty(torch.tensor([[NAN, 0.5]]), torch.tensor([[1.0, 0.0]])),
        VE,
        r"alpha has NaN or ±inf entries: every entry mu",
    ),  # deceive_penalty NaN
    (
        "xai_tf.faithfulness.deceive.deceive_penalty",
        lambda: fdec.deceive_penalty(torch.tensor([[0.5, 0.5]]), torch.tensor([[2.0, 0.0]])),
        VE,
        r"m must be a 0/1 mask \(1 = impermissible word\)",
    ),  # deceive_penalty m=2
    (
        "xai_tf.faithfulness.deceive.deceive_loss",
        lambda: fdec.deceive_loss("0.1"),
        TE,
        r"lam must be a finite number ≥ 0, got '0\.1'",
    ),  # deceive_loss str
    (
        "xai_tf.faithfulness.deceive.deceive_table",
        lambda: fdec.deceive_table(cue_data(4), cue_data(4), len(cues.VOCAB), lams="0.1"),
        TE,
        "lams must be a list of λ ≥ 0, got str",
    ),  # deceive_table lams str
    (
        "xai_tf.faithfulness.deceive.deceive_table",
        lambda: fdec.deceive_table(cue_data(4), cue_data(4), len(cues.VOCAB), lams=(NAN,)),
        VE,
        r"lams must be a finite number ≥ 0, got nan",
    ),  # deceive_table lam nan
    (
        "xai_tf.faithfulness.deceive.deceive_table",
        lambda: fdec.deceive_table(
            other_data(), other_data(), len(cues.VOCAB), lams=(0.0,), training=fdec.OPTIONS.replace(steps=5)
        ),
        VE,
        r"train's word ids must be token ids in 0\.\.37 \(",
    ),  # deceive_table vocab mismatch
    (
        "xai_tf.faithfulness.deceive.deceive_table",
        lambda: fdec.deceive_table(
            cue_data(4), cue_data(4), len(cues.VOCAB), lams=(0.0,), training=fdec.OPTIONS.replace(steps=0)
        ),
        VE,
        r"steps must be an integer in 1\.\.100000, got 0",
    ),  # deceive_table steps 0
    (
        "xai_tf.faithfulness.deceive.deceive_table",
        lambda: fdec.deceive_table(
            cue_data(4), cue_data(4), len(cues.VOCAB), lams=(0.0,), training=fdec.OPTIONS.replace(steps=10**9)
        ),
        VE,
        r"steps must be an integer in 1\.\.100000, got 10",
    ),  # deceive_table steps huge
    (
        "xai_tf.faithfulness.deceive.deceive_table",
        lambda: fdec.deceive_table(
            cue_data(4), cue_data(4), len(cues.VOCAB), lams=(0.0,), training=fdec.OPTIONS.replace(seed=1.5)
        ),
        TE,
        r"seed must be an integer ≥ 0, got 1\.5",
    ),  # deceive_table seed 1.5
    (
        "xai_tf.faithfulness.deceive.mass_on_cues",
        lambda: fdec.mass_on_cues(clf(), other_data()),
        VE,
        r"data's word ids must be token ids in 0\.\.37 \(t",
    ),  # mass_on_cues vocab
    (
        "xai_tf.faithfulness.deceive.state_norms",
        lambda: fdec.state_norms(clf(), other_data()),
        VE,
        r"data's word ids must be token ids in 0\.\.37 \(t",
    ),  # state_norms vocab
    (
        "xai_tf.faithfulness.deceive.state_norms",
        lambda: fdec.state_norms(clf(), "data"),
        TE,
        r"data must be a list of Examples \(xai_tf\.tasks",
    ),  # state_norms str
    (
        "xai_tf.faithfulness.deceive.state_norms",
        lambda: fdec.state_norms(clf(), all_cues()),
        VE,
        r"data needs words with m_t = 1 and words with ",
    ),  # state_norms all cue
    (
        "xai_tf.faithfulness.adversary.epsilon_adversary",
        lambda: fadv.epsilon_adversary(clf(), [2, 3], NAN),
        VE,
        r"epsilon must be a finite number in \(0, 1\], go",
    ),  # epsilon_adversary NaN
    (
        "xai_tf.faithfulness.adversary.epsilon_adversary",
        lambda: fadv.epsilon_adversary(clf(), [2, 900]),
        VE,
        r"ids must be token ids in 0\.\.37 \(the model's v",
    ),  # epsilon_adversary vocab
    (
        "xai_tf.faithfulness.adversary.epsilon_adversary",
        lambda: fadv.epsilon_adversary(clf(), [2, 3], steps=10**9),
        VE,
        r"steps must be an integer in 0\.\.10000, got 100",
    ),  # epsilon_adversary steps huge
    (
        "xai_tf.faithfulness.adversary.epsilon_adversary",
        lambda: fadv.epsilon_adversary(clf(), [2, 3], lr=1e8),
        VE,
        r"lr must be a finite number in \(0, 1\], got 100",
    ),  # epsilon_adversary lr 1e8
    (
        "xai_tf.faithfulness.adversary.epsilon_adversary",
        lambda: fadv.epsilon_adversary(clf(), [2, 3], seed=-1),
        VE,
        r"seed must be an integer ≥ 0, got \-1",
    ),  # epsilon_adversary seed -1
    (
        "xai_tf.faithfulness.adversary.adversary_study",
        lambda: fadv.adversary_study(clf(), "data"),
        TE,
        r"data must be a list of Examples \(xai_tf\.tasks",
    ),  # adversary_study str
    (
        "xai_tf.faithfulness.permutation.permuted_outputs",
        lambda: fperm.permuted_outputs(clf(), [2, 3], 3, 1.5),
        TE,
        r"seed must be an integer ≥ 0, got 1\.5",
    ),  # permuted_outputs seed 1.5
    (
        "xai_tf.faithfulness.permutation.permuted_outputs",
        lambda: fperm.permuted_outputs(clf(), [2, 3], 10**9, 0),
        VE,
        r"n_permutations must be an integer in 1\.\.10000",
    ),  # permuted_outputs huge
    (
        "xai_tf.faithfulness.permutation.permutation_study",
        lambda: fperm.permutation_study(clf(), other_data(), 3),
        VE,
        r"data's word ids must be token ids in 0\.\.37 \(t",
    ),  # permutation_study vocab
    (
        "xai_tf.faithfulness.baselines.seed_jsd",
        lambda: fbase.seed_jsd([clf(), clf()], other_data()),
        VE,
        r"data's word ids must be token ids in 0\.\.37 \(t",
    ),  # seed_jsd vocab
    (
        "xai_tf.faithfulness.baselines.seed_jsd",
        lambda: fbase.seed_jsd(["a", "b"], cue_data(4)),
        TE,
        r"models must be a list of AttentionClassifiers",
    ),  # seed_jsd not models
    (
        "xai_tf.faithfulness.baselines.consistent_adversary",
        lambda: fbase.consistent_adversary(clf(), cue_data(4), NAN),
        VE,
        r"lam must be a finite number ≥ 0, got nan",
    ),  # consistent_adversary lam NaN
    (
        "xai_tf.faithfulness.baselines.consistent_adversary",
        lambda: fbase.consistent_adversary(
            clf(), cue_data(4), 0.1, options=fbase.ADVERSARY.replace(steps=-1)
        ),
        VE,
        r"steps must be an integer in 1\.\.100000, got \-1",
    ),  # consistent_adversary steps -1
    (
        "xai_tf.faithfulness.baselines.consistent_adversary",
        lambda: fbase.consistent_adversary(clf(), [], 0.1),
        VE,
        r"train is empty: give at least one Example",
    ),  # consistent_adversary empty
    (
        "xai_tf.faithfulness.baselines.consistent_adversaries",
        lambda: fbase.consistent_adversaries(
            clf(), cue_data(4), other_data(), lams=(0.0,), options=fbase.ADVERSARY.replace(steps=2)
        ),
        VE,
        r"test's word ids must be token ids in 0\.\.37 \(t",
    ),  # consistent_adversaries vocab
    (
        "xai_tf.faithfulness.baselines.consistent_loss",
        lambda: fbase.consistent_loss(clf(), cue_data(4), 0.1, "x"),
        VE,
        r"kl_direction must be one of \('adv\|\|base', 'ba",
    ),  # consistent_loss direction
    (
        "xai_tf.faithfulness.diagnostic.mlp_diagnostic",
        lambda: fdiag.mlp_diagnostic(
            clf(), clf(), cue_data(4), other_data(), options=fdiag.OPTIONS.replace(steps=2)
        ),
        VE,
        r"test's word ids must be token ids in 0\.\.37 \(t",
    ),  # mlp_diagnostic vocab
    (
        "xai_tf.faithfulness.diagnostic.mlp_diagnostic",
        lambda: fdiag.mlp_diagnostic(
            clf(), clf(), cue_data(4), cue_data(4), options=fdiag.OPTIONS.replace(steps=0)
        ),
        VE,
        r"steps must be an integer in 1\.\.100000, got 0",
    ),  # mlp_diagnostic steps 0
    (
        "xai_tf.faithfulness.diagnostic.guided_mlp",
        lambda: fdiag.guided_mlp([], len(cues.VOCAB), clf()),
        VE,
        r"train is empty: give at least one Example",
    ),  # guided_mlp empty
    (
        "xai_tf.faithfulness.erasure.removal_order",
        lambda: ferase.removal_order(clf(), [2, 3], "random", "0"),
        TE,
        r"seed must be an integer ≥ 0, got '0'",
    ),  # removal_order seed str
    (
        "xai_tf.faithfulness.erasure.removals_to_flip",
        lambda: ferase.removals_to_flip(clf(), [2, 3, 4], [1.5, 0]),
        TE,
        r"order\[0\] must be an integer in 0\.\.2, got 1\.5",
    ),  # removals_to_flip float order
    (
        "xai_tf.faithfulness.erasure.removals_to_flip",
        lambda: ferase.removals_to_flip(clf(), [2, 3, 4], [7, 0]),
        VE,
        r"order\[0\] must be an integer in 0\.\.2, got 7",
    ),  # removals_to_flip order out of range
    (
        "xai_tf.faithfulness.erasure.removals_to_flip",
        lambda: ferase.removals_to_flip(clf(), [2, 3, 4], [0]),
        VE,
        r"order must be a permutation of the positions ",
    ),  # removals_to_flip short order
    (
        "xai_tf.faithfulness.erasure.erasure_study",
        lambda: ferase.erasure_study(clf(), other_data()),
        VE,
        r"data's word ids must be token ids in 0\.\.37 \(t",
    ),  # erasure_study vocab
    (
        "xai_tf.faithfulness.erasure.erasure_study",
        lambda: ferase.erasure_study(clf(), cue_data(4), -1),
        VE,
        r"seed must be an integer ≥ 0, got \-1",
    ),  # erasure_study seed -1
    (
        "xai_tf.faithfulness.identifiability.equivalent_attention",
        lambda: fid.equivalent_attention(torch.ones(3) / 3, torch.randn(3, 2), 1.5),
        TE,
        r"key must be an integer in 0\.\.2, got 1\.5",
    ),  # equivalent_attention key float
    (
        "xai_tf.faithfulness.identifiability.equivalent_attention",
        lambda: fid.equivalent_attention(torch.ones(3) / 3, torch.randn(4, 2), 0),
        VE,
        r"alpha \[T\] and V \[T, d_h\] must share T, got \(3",
    ),  # equivalent_attention lengths
    (
        "xai_tf.faithfulness.identifiability.null_directions",
        lambda: fid.null_directions(torch.ones(3, 2, dtype=torch.long)),
        TE,
        r"V must be a floating\-point tensor \(float32 or",
    ),  # null_directions int
    (
        "xai_tf.faithfulness.heads.head_removal",
        lambda: fheads.head_removal(lm(), [1.5, 2.0]),
        TE,
        r"ids must hold integer token ids in 0\.\.4095",
    ),  # head_removal float ids
    (
        "xai_tf.faithfulness.heads.head_removal",
        lambda: fheads.head_removal(lm(), [1, 10**7]),
        VE,
        r"ids must be token ids in 0\.\.4095 \(the model's",
    ),  # head_removal vocab
    (
        "xai_tf.faithfulness.transformer.transformer_importances",
        lambda: ftr.transformer_importances(lm(), None, "Thou art a knave"),
        TE,
        r"clf must be lesson 06's SequenceClassifier \(p",
    ),  # transformer_importances clf None
    (
        "xai_tf.faithfulness.transformer.transformer_correlation",
        lambda: ftr.transformer_correlation(lm(), None, "Thou art"),
        TE,
        r"texts must be a list of strings, got one str:",
    ),  # transformer_correlation str
    (
        "xai_tf.faithfulness.transformer.phrase_classifier",
        lambda: ftr.phrase_classifier(lm(), [("a b", 5)]),
        VE,
        r"data's labels must be an integer in 0\.\.1, got",
    ),  # phrase_classifier bad label
    (
        "xai_tf.faithfulness.transformer.phrase_classifier",
        lambda: ftr.phrase_classifier(lm(), [("a b", "pos")]),
        TE,
        r"data's labels must be an integer in 0\.\.1, got",
    ),  # phrase_classifier str label
    (
        "xai_tf.widgets.faithfulness.faithfulness_panel",
        lambda: faithfulness_w.faithfulness_panel({"m": clf()}, other_vocab(), cue_data(4)),
        VE,
        r"vocab has 402 words but the model's vocabular",
    ),  # panel vocab mismatch
    (
        "xai_tf.widgets.faithfulness.faithfulness_panel",
        lambda: faithfulness_w.faithfulness_panel([clf()], cues.VOCAB, cue_data(4)),
        TE,
        r"models must be a non\-empty dict name → Attent",
    ),  # panel models list
    (
        "xai_tf.widgets.faithfulness.faithfulness_panel",
        lambda: faithfulness_w.faithfulness_panel({"m": clf()}, cues.VOCAB, "data"),
        TE,
        r"data must be a list of Examples \(xai_tf\.tasks",
    ),  # panel data str
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
        lambda: ftr.transformer_explanations(lm(), SequenceClassifier(lm().model), "Thou art a", n_step=3),
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
        r"n_permutations must be an integer in 1\.\.100000, got 0",
    ),
    (
        "xai_tf.faithfulness.permutation.permutation_study",
        lambda: fperm.permutation_study(clf(), cue_data(), 0),
        VE,
        r"n_permutations must be an integer in 1\.\.100000, got 0",
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
        r"ids must be word ids in 1\.\.37 \(0 is padding\), got 0",
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
        "data is empty: give at least one Example",
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
        r"p must sum to 1 along the last dim \(a distribution\), off by",
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
        r"removed\[0\] must be an integer in 0\.\.2, got 5",
    ),
    (
        "xai_tf.faithfulness.erasure.sentence_states",
        lambda: ferase.sentence_states(clf(), [[2, 3], [3, 4]]),
        VE,
        r"ids must be one sentence's word ids \[T\], T ≥ 1, got shape \(2, 2\)",
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
        r"ids must be one sentence's word ids \[T\], T ≥ 1, got shape \(0,\)",
    ),
    (
        "xai_tf.faithfulness.erasure.erasure_study",
        lambda: ferase.erasure_study(clf(), []),
        VE,
        "data is empty: give at least one Example",
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
        "data is empty: give at least one Example",
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
        lambda: ftr.transformer_importances(lm(), SequenceClassifier(lm().model), "O"),
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
    (
        "xai_tf.exercises.faithfulness.additive_weights",
        lambda: additive_weights(torch.ones(1, 3, 4), torch.ones(2, 5), torch.ones(2), torch.ones(2)),
        VE,
        r"h \[n, T, d\], W_a \[d_att, d\], b_a \[d_att\] and v \[d_att\] must agree",
    ),
    (
        "xai_tf.exercises.faithfulness.additive_weights",
        lambda: additive_weights(torch.ones(3, 4), torch.ones(2, 4), torch.ones(2), torch.ones(2)),
        VE,
        r"h must have 3 dimensions, got shape \(3, 4\)",
    ),
    (
        "xai_tf.exercises.faithfulness.kendall_tau",
        lambda: kendall_tau([1.0, 2.0, 3.0], [1.0, 2.0]),
        VE,
        r"a and b must be vectors of one length ≥ 2, got shapes \(3,\) and \(2,\)",
    ),
]


CHECKERS = {
    "xai_tf.exercises.faithfulness.check_kendall_tau": "returned None: did you forget",
    "xai_tf.exercises.faithfulness.check_erase": "is None: did you forget",
    "xai_tf.exercises.faithfulness.check_jsd": "JSD is None: did you forget",
    "xai_tf.exercises.faithfulness.check_tvd": "TVD is None: did you forget",
    "xai_tf.exercises.faithfulness.check_deceive_penalty": "penalty is None: did you forget",
    "xai_tf.exercises.faithfulness.check_precision_at_k": "returned None: did you forget",
    "xai_tf.exercises.faithfulness.check_null_directions": "returned None: did you forget",
    "xai_tf.exercises.faithfulness.check_additive_weights": "α is None: did you forget",
    "xai_tf.exercises.faithfulness_adversary.check_within_epsilon": "returned None: did you forget",
}


PANELS = {
    "xai_tf.widgets.faithfulness.faithfulness_panel": (
        lambda: faithfulness_w.faithfulness_panel({"untrained": clf()}, cues.VOCAB, cue_data()),
        "text",
        "zzz qqq",
    ),
}


@cache
def study() -> fcorr.Correlation:
    """τ(attention, LOO) of the untrained classifier on two cue sentences."""
    return fcorr.correlation_study(clf(), cue_data(2), [("attention", "LOO")])


def labelled(label: object) -> list:
    """Cue sentences with one label replaced (outside the two classes, or a string)."""
    return [*cue_data(2), cue_data(3)[2]._replace(label=label)]


RAISES += [  # issue 44 §2: the bad-input classes that still got through, lesson 08's helpers
    # a model trained on one vocabulary given another task's ids (or a vocabulary smaller than the data's)
    (
        "xai_tf.tasks.recurrent.accuracy",
        lambda: recurrent.accuracy(clf(), other_data()),
        VE,
        r"data's word ids must be token ids in 0\.\.37 \(the model's vocabulary\), got \d+: were the data",
    ),
    (
        "xai_tf.tasks.recurrent.predict",
        lambda: recurrent.predict(clf(), other_data()),
        VE,
        r"data's word ids must be token ids in 0\.\.37",
    ),
    (
        "xai_tf.tasks.recurrent.train_attention_classifier",
        lambda: recurrent.train_attention_classifier(
            other_data(), len(cues.VOCAB), options=recurrent.OPTIONS.replace(steps=1)
        ),
        VE,
        r"data's word ids must be token ids in 0\.\.37",
    ),
    (
        "xai_tf.tasks.recurrent.checked_data",
        lambda: recurrent.checked_data(clf(), other_data()),
        VE,
        r"data's word ids must be token ids in 0\.\.37",
    ),
    (
        "xai_tf.tasks.recurrent.checked_data",
        lambda: recurrent.checked_data(cues.VOCAB, cue_data()),
        TE,
        "model must be an AttentionClassifier, got Vocabulary",
    ),
    # labels outside the model's classes; string labels
    (
        "xai_tf.tasks.recurrent.accuracy",
        lambda: recurrent.accuracy(clf(), labelled(2)),
        VE,
        r"data's labels must be an integer in 0\.\.1, got 2",
    ),
    (
        "xai_tf.tasks.recurrent.accuracy",
        lambda: recurrent.accuracy(clf(), labelled("positive")),
        TE,
        r"data's labels must be an integer in 0\.\.1, got 'positive'",
    ),
    (
        "xai_tf.tasks.recurrent.train_attention_classifier",
        lambda: recurrent.train_attention_classifier(
            labelled(-1), len(cues.VOCAB), options=recurrent.OPTIONS.replace(steps=1)
        ),
        VE,
        r"data's labels must be an integer in 0\.\.1, got -1",
    ),
    (
        "xai_tf.tasks.recurrent.checked_data",
        lambda: recurrent.checked_data(clf(), labelled(1.0), labelled=True),
        TE,
        r"data's labels must be an integer in 0\.\.1, got 1\.0",
    ),
    # negative ids, which Python would read from the end of the vocabulary (Vocabulary.decode is a
    # method: its rows carry the name of the module's function that builds the ids)
    (
        "xai_tf.tasks.words.examples",
        lambda: cues.VOCAB.decode([3, -1]),
        VE,
        r"ids must be token ids in 0\.\.37 \(the model's vocabulary\), got -1",
    ),
    (
        "xai_tf.tasks.words.examples",
        lambda: cues.VOCAB.decode(torch.tensor([[3, 4]])),
        VE,
        r"ids must be one sentence's ids \[T\], got shape \(1, 2\)",
    ),
    (
        "xai_tf.faithfulness.importance.sentence_ids",
        lambda: fimp.sentence_ids(clf(), [3, -2]),
        VE,
        r"ids must be token ids in 0\.\.37 \(the model's vocabulary\), got -2",
    ),
    # an int where a (lo, hi) pair is expected
    (
        "xai_tf.tasks.cues.cue_sentences",
        lambda: cues.cue_sentences(3, length=8),
        TE,
        r"length must be a pair \(shortest, longest\) of integers in 3\.\.200, got 8",
    ),
    (
        "xai_tf.tasks.cues.cue_sentences",
        lambda: cues.cue_sentences(3, length=(4, 6, 8)),
        TE,
        r"length must be a pair \(shortest, longest\)",
    ),
    (
        "xai_tf.faithfulness.importance.ig_misses",
        lambda: fimp.ig_misses("study", [], 0).__enter__(),
        VE,
        r"tolerance must be",
    ),
    # summary keys in the other order, or a pair the study did not compute
    (
        "xai_tf.faithfulness.correlation.correlation_study",
        lambda: fcorr.correlation_study(clf(), cue_data(2), [("attention", "LOO")]).summary(
            ("LOO", "attention")
        ),
        VE,
        r"pair must be one of the study's pairs \[\('attention', 'LOO'\)\], got \('LOO', 'attention'\)",
    ),
    (
        "xai_tf.faithfulness.correlation.correlation_study",
        lambda: fcorr.correlation_study(clf(), cue_data(2), [("attention", "LOO")]).summary(
            ("gradient", "IG")
        ),
        VE,
        r"pair must be one of the study's pairs",
    ),
    (
        "xai_tf.exercises.faithfulness_adversary.within_epsilon",
        lambda: faithfulness_adversary.within_epsilon([0.5, 0.6], 0.5, 0.0),
        VE,
        r"epsilon must be a finite number in \(0, 1\], got 0",
    ),
    (
        "xai_tf.exercises.faithfulness_adversary.within_epsilon",
        lambda: faithfulness_adversary.within_epsilon([0.5, 0.6], torch.tensor([0.5, 0.6]), 0.1),
        VE,
        r"f must be one number \(the model's output\), got shape \(2,\)",
    ),
    (
        "xai_tf.exercises.faithfulness_adversary.within_epsilon",
        lambda: faithfulness_adversary.within_epsilon([0.5, NAN], 0.5, 0.1),
        VE,
        r"f_adv",
    ),
]
