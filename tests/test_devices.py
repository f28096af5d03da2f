"""Every public helper follows the device of its model and inputs.

Each helper runs on every device this machine has: the CPU, CUDA when present (skipped with the
reason printed otherwise), and a *guarded* CPU run in which torch's default device is "meta" — a
tensor a helper creates without naming a device then lands on "meta" and any arithmetic with the
model's CPU tensors fails, exactly as a CPU-made tensor fails next to a CUDA model. So a CPU-only
CI still catches a helper that would break on a GPU. Results must equal the plain CPU run.
"""

import copy
from collections.abc import Callable
from functools import cache

import pytest
import torch

import xai_tf
from xai_tf import attention as att
from xai_tf.explain import attribution as attr
from xai_tf.explain import lens
from xai_tf.explain import norm_based as nbm
from xai_tf.explain import wordlevel as wl
from xai_tf.tasks import sentiment
from xai_tf.transformer import decoding, lm_eval

PROMPT = "ROMEO.\nBut soft, what light"


def _scores(lm: xai_tf.LoadedModel) -> torch.Tensor:
    g = torch.Generator().manual_seed(0)
    return torch.randn(3, 7, generator=g, device="cpu").to(lm.device) * 3


@cache
def _trained_on_the_host() -> dict[str, torch.nn.Module]:
    """The trainers' models, trained once on the CPU. A trained model differs from device to device
    (cuDNN's LSTM, and Adam's normalised steps on near-zero gradients, turn float differences into
    different weights), so the helpers downstream get the same weights on every device, and the
    trainers are checked on their own device by ``test_trainer_trains_on_the_device``."""
    from xai_tf.cbm import arthritis, shapes, training
    from xai_tf.tasks import cues, recurrent

    with torch.device("cpu"):
        lm = xai_tf.load_model("shakespeare")
        data, concepts, images = (
            cues.cue_sentences(40, seed=0),
            arthritis.arthritis(64, seed=0),
            shapes.shapes(16, seed=0),
        )
        return {
            "classifier": sentiment.train_classifier(
                lm, sentiment.sentiment_phrases()[0][::8], options=sentiment.OPTIONS.replace(steps=20)
            ),
            "bilstm": recurrent.train_attention_classifier(
                data, len(cues.VOCAB), "bilstm", options=recurrent.OPTIONS.replace(steps=5)
            ),
            "flat": recurrent.train_attention_classifier(
                data, len(cues.VOCAB), "none", options=recurrent.OPTIONS.replace(steps=5)
            ),
            "sequential": training.train("sequential", concepts, options=training.OPTIONS.replace(steps=5)),
            "joint": training.train(
                "joint", concepts, lam=1.0, options=training.OPTIONS.replace(steps=5, batch_size=16)
            ),
            "cnn": training.train(
                "independent", images, options=training.OPTIONS.replace(steps=3, batch_size=8)
            ),
        }


def _trained(name: str, lm: xai_tf.LoadedModel) -> torch.nn.Module:
    return copy.deepcopy(_trained_on_the_host()[name]).to(lm.device)


def _classifier_ig(lm: xai_tf.LoadedModel) -> torch.Tensor:
    clf = _trained("classifier", lm)
    return attr.integrated_gradients(clf, lm.encode("Thou art a vile knave."), 1, n_steps=8).attributions


def _attention_layer(lm: xai_tf.LoadedModel) -> torch.Tensor:
    X = _scores(lm)[:, :6]
    lengths = torch.tensor([2], device=lm.device)
    mask = att.causal_mask(3, device=lm.device) & att.padding_mask(lengths, 3)
    W = torch.eye(6, device=lm.device)
    out, A = att.multi_head_attention(X, W, W, W, W, n_heads=2, mask=mask)
    return torch.cat([out.flatten(), A.flatten()])


def _efficient(lm: xai_tf.LoadedModel) -> list[torch.Tensor]:
    from xai_tf.efficient import adaptive, chunked, linear, linformer, performer, sparse

    g = torch.Generator().manual_seed(0)
    Q, K, V = (torch.randn(2, 20, 8, generator=g, device="cpu").to(lm.device) for _ in range(3))
    z = torch.randn(2, 3, 4, 6, generator=g, device="cpu").to(lm.device)
    alpha = torch.tensor([1.2, 1.5, 2.0], device=lm.device)
    return [
        chunked.naive_attention(Q, K, V, causal=True),
        chunked.chunked_attention(Q, K, V, 6, causal=True, query_chunk_size=7),
        sparse.windowed_attention(Q, K, V, 4),
        sparse.sparse_attention(Q, K, V, sparse.sparse_transformer_mask(20, 4, device=lm.device)),
        linear.linear_attention(Q, K, V, chunk_size=6),
        linear.linear_attention_quadratic(Q, K, V),
        performer.performer_attention(Q, K, V, 16),
        linformer.linformer_attention(Q, K, V, 5),
        linformer.linformer_attention(Q, K, V, 5, kind="gaussian"),
        adaptive.entmax_heads(z, alpha),
        adaptive.entmax_alpha_grad(adaptive.entmax_heads(z, alpha)[:, 0], 1.2),
    ]


def _crate(lm: xai_tf.LoadedModel) -> list[torch.Tensor]:
    from xai_tf.crate import denoise, ista, mixture, mssa, rate

    U = mixture.random_bases(8, 2, 3, device=lm.device)
    g = torch.Generator().manual_seed(0)
    Y = torch.randn(8, 10, generator=g, dtype=torch.float64, device="cpu").to(lm.device)
    D = torch.linalg.qr(torch.randn(8, 8, generator=g, dtype=torch.float64, device="cpu"))[0].to(lm.device)
    x, _, _ = mixture.sample_tokens(U, 5, 0.5, seed=1)
    return [
        rate.coding_rate(Y, 0.5),
        rate.coding_rate_grad(Y, 0.5),
        rate.compression_rate(Y, U, 0.5),
        rate.compression_rate_grad(Y, U, 0.5),
        mssa.mssa(Y, U),
        mssa.mssa_step(Y, U, 0.5, 0.1),
        mssa.neumann_step(Y, U, 0.5, 0.1),
        mssa.neumann_radius(Y, U, 0.5),
        ista.ista(Y, D, 0.1, 0.1, steps=3),
        ista.prox_orthogonal(Y, D, 0.5, 0.2),
        x,
        denoise.posterior_mean(x, U, 0.5),
        denoise.notes_step(x, U, 0.5),
        *denoise.monte_carlo_mean(x, U, 0.5, n=2000, seed=2),
    ]


def _cbm(lm: xai_tf.LoadedModel) -> list:
    from xai_tf.cbm import arthritis, intervention, leakage, losses, metrics, shapes

    train = arthritis.arthritis(64, seed=0).to(lm.device)
    test = arthritis.arthritis(32, seed=1).to(lm.device)
    images = shapes.shapes(16, seed=0).to(lm.device)
    seq, joint, cnn = (_trained(name, lm) for name in ("sequential", "joint", "cnn"))
    with torch.no_grad():
        b = seq.bottleneck(test.x)
        q = intervention.percentiles(seq, train)
        return [
            seq(test.x),
            joint(test.x),
            cnn(images.x),
            shapes.label_rule(images.c),
            arthritis.severity_score(test),
            losses.joint_loss(
                joint(test.x), test.y, joint.concept_outputs(test.x), test.c, test.binary, 0.5, "regression"
            ),
            intervention.intervene(seq, b, test.c, [0, 7], q),
            intervention.uncertainty(seq, test, train),
            intervention.group_order(seq, test, train, "uncertainty"),
            intervention.intervention_curve(joint, test, train, "random"),  # floats
            leakage.scramble(b, test.c, test.binary, seed=2),
            metrics.evaluate(seq, test),  # a dict of floats
        ]


def _toytasks(lm: xai_tf.LoadedModel) -> list[torch.Tensor]:
    from xai_tf.tasks import dyck, dyck_model, histogram, solvable

    with torch.device("cpu"):  # models and data are made on the CPU, then moved: the helpers must follow
        torch.manual_seed(0)
        hist_model, dyck_net = histogram.HistogramModel(), dyck_model.DyckModel()
        x, _ = histogram.histogram_data(4, seed=0)
        strings = dyck.sample_dyck(3, 12, seed=0)
        ids, (_, top) = dyck.encode_dyck(strings), dyck.next_close_targets(strings)
        sx, sy, Q_star = solvable.solvable_data(5, 6, seed=0)
    hist_model, dyck_net = hist_model.to(lm.device), dyck_net.to(lm.device)
    x, ids, top = x.to(lm.device), ids.to(lm.device), top.to(lm.device)
    sx, sy, Q_star = sx.to(lm.device), sy.to(lm.device), Q_star.to(lm.device)
    with torch.no_grad():
        logits, A = hist_model(x)
        dyck_logits, dyck_A = dyck_net(ids)
    return [
        histogram.histogram_labels(x),
        logits,
        A,
        histogram.same_token_share(A, x),
        dyck_logits,
        dyck_model.stack_share(dyck_A, top),
        solvable.student(Q_star, sx),
        solvable.solvable_loss(Q_star, sx, sy),
    ]


def _faithfulness(lm: xai_tf.LoadedModel) -> list:
    from xai_tf.faithfulness import (
        adversary,
        baselines,
        correlation,
        deceive,
        erasure,
        heads,
        identifiability,
        importance,
        plausibility,
        transformer,
    )
    from xai_tf.tasks import cues, recurrent
    from xai_tf.tasks.sentiment import SequenceClassifier

    data = cues.cue_sentences(40, seed=0)
    model, flat = _trained("bilstm", lm), _trained("flat", lm)
    ids = lm.encode(PROMPT * 8)  # 88 tokens > d_h + 1 = 65 keys: a non-trivial equivalent attention
    with torch.no_grad():
        _, cache = lm.run_with_cache(ids)
    clf = SequenceClassifier(lm.model).eval()  # on lm's own model, with the head trained on the host
    clf.head.load_state_dict(_trained_on_the_host()["classifier"].head.state_dict())  # not one drawn there
    return [
        recurrent.predict(model, data[:5]),
        recurrent.accuracy(flat, data[:5]),
        importance.importances(model, data[0].ids),
        adversary.epsilon_adversary(model, data[0].ids, steps=5).alpha_adv,
        {by: f.tolist() for by, f in erasure.erasure_study(flat, data[:3]).fraction.items()},
        erasure.removal_order(model, data[0].ids, "gradient"),
        {pair: t.tolist() for pair, t in correlation.correlation_study(flat, data[:3]).tau.items()},
        deceive.mass_on_cues(flat, data[:3]),
        deceive.state_norms(flat, data[:5]),
        baselines.seed_jsd([model, flat], data[:5]).tolist(),  # numpy by design: compared as floats
        plausibility.precision_study(flat, data[:3]),
        identifiability.equivalent_attention(cache["attn", 0][0, 0, -1], cache["v", 0][0, 0], 0),
        heads.head_removal(lm, lm.encode(PROMPT)),
        transformer.transformer_importances(lm, clf, "Thou art a vile knave."),
    ]


@cache
def _shipped_sae():
    from xai_tf.sae.model import SHIPPED, load

    with torch.device("cpu"):  # built on the host once; each run moves a copy to the model's device
        return load(SHIPPED)[0]


def _sae(lm: xai_tf.LoadedModel) -> list:
    from xai_tf.sae import browse, metrics, steer

    sae = copy.deepcopy(_shipped_sae()).to(lm.device)
    ids = torch.tensor([lm.encode(PROMPT)], device=lm.device)
    H = lm.run_with_cache(ids)[1]["resid_post", 2] * sae.config.scale
    return [
        metrics.ce_loss_recovered(lm, sae, ids, 2),
        metrics.density(sae, H),
        browse.feature_values(sae, H, 3),
        browse.max_codes(sae, H),
        [v for _, v in browse.logit_effects(lm, sae, 3, 4)[0]],
        lm(ids, hooks={("resid_post", 2): steer.clamp_hook(sae, 3, 2.0)}),
        lm(ids, hooks={("resid_post", 2): metrics.reconstruction_hook(sae, sae.config.scale)}),
    ]


def _rationales(lm: xai_tf.LoadedModel) -> list[torch.Tensor]:
    from xai_tf.faithfulness import conicity
    from xai_tf.rationales import hardkuma, penalty, reinforce

    with torch.device("cpu"):  # inputs are made on the CPU, then moved: the helpers must follow
        g = torch.Generator().manual_seed(0)
        H = torch.randn(3, 5, 4, generator=g)
        mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 1, 0, 0, 0]])
        z = (torch.rand(3, 5, generator=g) > 0.5).float()
        a, b = torch.rand(3, 5, generator=g) + 0.5, torch.rand(3, 5, generator=g) + 0.5
        phi = torch.randn(3, generator=g, dtype=torch.float64)
    H, mask, z, a, b, phi = (t.to(lm.device) for t in (H, mask, z, a, b, phi))
    return [
        conicity.conicity(H),
        conicity.conicity(H, mask),
        conicity.layer_conicity(lm, ["To be, or not to be: that is the question."]),
        penalty.omega(z, 0.1, 0.2, mask),
        hardkuma.prob_zero(a, b),
        hardkuma.prob_one(a, b),
        hardkuma.kuma_cdf(z, a, b),
        hardkuma.sample(a, b, torch.Generator().manual_seed(0)),
        reinforce.log_prob(phi, z[0, :3].double()),
        reinforce.expected_estimate(
            phi, lambda s: (s * torch.arange(1.0, 4.0, device=s.device, dtype=s.dtype)).sum()
        ),
    ]


def _circuits(lm: xai_tf.LoadedModel) -> list:
    from xai_tf import circuits
    from xai_tf.circuits import patching, shipped

    ids = circuits.repeated_tokens(lm, 6, batch=2, seed=0)
    pattern = circuits.attention_patterns(lm, ids)
    clean = torch.tensor([lm.encode("Enter Romeo and Juliet")], device=lm.device)
    corrupted = torch.tensor([lm.encode("Enter Hamlet and Juliet")], device=lm.device)
    metric = circuits.logit_difference_metric(
        lm, clean, corrupted, lm.encode(" Romeo")[0], lm.encode(" Hamlet")[0]
    )
    small = shipped.induction_model()
    small.model.to(lm.device)
    report = shipped.induction_report(small, 8, batch=2)
    return [
        ids,
        circuits.per_token_loss(lm, ids),
        circuits.induction_scores(pattern),
        circuits.previous_token_scores(pattern),
        circuits.ablate_head(lm, ids, 1, 2, how="mean"),
        circuits.k_composition(circuits.qk_ov(lm, 2, 0)[0], circuits.qk_ov(lm, 1, 3)[1]),
        circuits.activation_patching(lm, clean, corrupted, metric, "z", "noising"),
        circuits.attribution_patching(lm, clean, corrupted, metric, "resid_pre"),
        [p for _, p in patching.patched_top_tokens(lm, clean, corrupted, "attn_out", 1, 2, k=3)],
        [v for v in report.values() if isinstance(v, float)],
    ]


def _seq2seq(lm: xai_tf.LoadedModel) -> list:
    from xai_tf.seq2seq import data, decoding, evaluate, shipped

    corpus = data.make_corpus(0)
    pairs = corpus.test[:4]
    model = copy.deepcopy(shipped.model("additive")).to(lm.device)
    return [
        decoding.greedy(model, corpus, [p.source for p in pairs]),
        decoding.beam_translate(model, corpus, pairs[1].source, beam=3, alpha=1.0),
        decoding.position_accuracy(model, corpus, pairs),
        evaluate.forced_attention(model, corpus, pairs),
        decoding.log_prob(model, corpus, pairs[0].source, pairs[0].target),
    ]


def _encdec(lm: xai_tf.LoadedModel) -> list:
    from xai_tf.encdec import analysis, evaluate, runs, shipped

    corpus = shipped.corpus()
    pairs = corpus.test[:3]
    model = copy.deepcopy(shipped.model("pre")).to(lm.device)
    with torch.device("cpu"):  # built here, then moved (the guarded CPU makes meta tensors by default)
        encoder_only = runs.build("encoder_only", corpus).eval().to(lm.device)
    return [
        evaluate.greedy(encoder_only, pairs, corpus),
        evaluate.confidence(encoder_only, pairs, corpus),
        evaluate.greedy(model, pairs, corpus),
        evaluate.cross_attention(model, pairs, corpus),
        evaluate.alignment_error_rates(model, pairs, corpus),
        evaluate.confidence(model, pairs, corpus),
        analysis.gradient_norms(model, pairs, corpus),
    ]


def _structured(lm: xai_tf.LoadedModel) -> list:
    from xai_tf import structured

    theta = _scores(lm)[0]
    A = torch.tensor([[0.5, -0.3], [0.2, 1.0]], device=lm.device)
    return [
        structured.independent_marginals(theta),
        structured.chain_log_partition(theta, A),
        structured.chain_marginals(theta, A),
        structured.chain_marginals_autograd(theta, A),
        structured.viterbi(theta, A),
        structured.sparsemap_unstructured(theta),
        structured.sparsemap_chain(theta, A),
        *_structured_lesson(lm, theta, A),
    ]


def _structured_lesson(lm: xai_tf.LoadedModel, theta: torch.Tensor, A: torch.Tensor) -> list:
    from xai_tf.seq2seq import data
    from xai_tf.seq2seq import shipped as seq2seq_shipped
    from xai_tf.structured import bias, compare, decoder, hierarchy, shipped, training

    corpus, pairs = data.make_corpus(0), data.make_corpus(0).test[:3]
    additive = copy.deepcopy(seq2seq_shipped.model("additive")).to(lm.device)
    crf = copy.deepcopy(shipped.model("crf")).to(lm.device)
    with torch.device("cpu"), torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        han = hierarchy.Hierarchical()
    han = han.to(lm.device)
    return [
        [decoder.normalize(theta[None], name, A) for name in decoder.NORMALIZERS],
        compare.side_by_side(theta, compare.contiguity_transition(1.0)),
        compare.jacobian(theta, "crf", A),
        bias.forced_scores(additive, corpus, pairs),
        training.forced_attention(crf, corpus, pairs),
        hierarchy.accuracy(han, hierarchy.make_documents(8, 0)),
    ]


def _llama(lm: xai_tf.LoadedModel) -> list:
    from xai_tf.models.kv_cache import KVCache
    from xai_tf.models.llama import Llama
    from xai_tf.models.llama_config import LlamaConfig

    config = LlamaConfig(vocab_size=50, n_ctx=16, n_embd=16, n_layer=2, n_head=4, n_kv_head=2, d_mlp=24)
    with torch.device("cpu"):
        torch.manual_seed(0)
        model = Llama(config).eval()
    model = model.to(lm.device)
    ids = torch.tensor([[3, 14, 15, 9, 2, 6]], device=lm.device)
    cache = KVCache()
    with torch.no_grad():
        steps = [model(ids[:, :4], kv_cache=cache), model(ids[:, 4:], kv_cache=cache)]
        return [model(ids), *steps]


def _modern(lm: xai_tf.LoadedModel) -> list:
    """Lesson 04 §11 (``transformer.modern``) on the bundled GPT-2 and a tiny random Llama."""
    from xai_tf.models.llama import Llama
    from xai_tf.models.llama_config import LlamaConfig
    from xai_tf.transformer import modern

    config = LlamaConfig(vocab_size=50, n_ctx=16, n_embd=16, n_layer=2, n_head=4, n_kv_head=2, d_mlp=24)
    with torch.device("cpu"):
        torch.manual_seed(0)
        llama = xai_tf.LoadedModel(Llama(config).eval(), None, "tiny-llama")
    llama.model.to(lm.device)
    X = _scores(lm)[:, :6].repeat(1, 3)[:, :16]
    with torch.no_grad():
        return [
            modern.centring_share(_scores(lm)),
            *(modern.attention_sublayer(llama, 1, X, form, 1e-5) for form in modern.FORMS),
            modern.layer0_scores(llama, 3, 7, 2, 8),
            modern.layer0_scores(lm, 3, 7, 1, 8),
            modern.cache_bytes(modern.decoded_cache(llama, [1, 2, 3], 4)),
            modern.cache_bytes(modern.decoded_cache(lm, [1, 2, 3], 4)),
        ]


def _registry(lm: xai_tf.LoadedModel) -> list:
    """Every method of the registry on every kind it declares, one small model per kind."""
    from references import tiny_bert

    from xai_tf.explain import registry
    from xai_tf.models.bert import BertEncoder
    from xai_tf.tasks import cues, recurrent
    from xai_tf.tasks.sentiment import SequenceClassifier

    with torch.device("cpu"):
        bert = BertEncoder(tiny_bert())
        classifier = recurrent.AttentionClassifier(recurrent.RecurrentConfig(len(cues.VOCAB)))
        head = torch.nn.Linear(lm.d_model, 2)
    sequence = SequenceClassifier(lm.model, 2).eval()
    sequence.head.load_state_dict(head.state_dict())  # the same head on every device
    models = {
        "causal": (lm, lm.encode(PROMPT)[:8], 5),
        "attention": (classifier.to(lm.device), [2, 3, 4, 5], None),
        "sequence": (sequence, lm.encode("Thou art a vile knave."), None),
        "encoder": (xai_tf.LoadedModel(bert.to(lm.device), None, "tiny-bert"), [1, 5, 6, 7, 2], None),
    }
    return [registry.explain(r["id"], *models[k]).scores for r in registry.table() for k in r["kinds"]]


CALLS: dict[str, Callable[[xai_tf.LoadedModel], object]] = {
    "forward": lambda lm: lm(lm.encode(PROMPT)),
    "attentions": lambda lm: lm.attentions(lm.encode(PROMPT)),
    "greedy": lambda lm: decoding.greedy(lm, lm.encode(PROMPT), 8),
    "generate top-k top-p": lambda lm: decoding.generate(lm, lm.encode(PROMPT), 8, 0.8, 20, 0.9, seed=0),
    "beam_search": lambda lm: decoding.beam_search(lm, lm.encode(PROMPT), 3, 6),
    "continuation_log_prob": lambda lm: decoding.continuation_log_prob(lm, lm.encode(PROMPT), 3),
    "top_next_tokens": lambda lm: decoding.top_next_tokens(lm, lm.encode(PROMPT), 5),
    "logit_lens_top": lambda lm: lens.logit_lens_top(lm, lm.encode(PROMPT), 3),
    "integrated_gradients riemann": lambda lm: (
        attr.integrated_gradients(
            lm, lm.encode(PROMPT), 5, n_steps=8, batch_size=3, method="riemann_right"
        ).attributions
    ),
    "integrated_gradients gauss-legendre": lambda lm: (
        attr.integrated_gradients(
            lm, lm.encode(PROMPT), 5, baseline="zeros", n_steps=6, method="gausslegendre"
        ).attributions
    ),
    "sequential_integrated_gradients": lambda lm: attr.sequential_integrated_gradients(
        lm, lm.encode(PROMPT), 5, n_steps=4
    ),
    "embedding_gradients + saliency": lambda lm: attr.gradient_saliency(
        attr.embedding_gradients(lm, lm.encode(PROMPT), 5)[0], "l2"
    ),
    "leave_one_out replace": lambda lm: attr.leave_one_out(lm, lm.encode(PROMPT), 5),
    "leave_one_out drop": lambda lm: attr.leave_one_out(lm, lm.encode(PROMPT), 5, replacement=None),
    "classifier + IG": _classifier_ig,
    "loss_per_char": lambda lm: lm_eval.loss_per_char(lm, lm.tokenizer, ["But soft, what light."], stride=4),
    "word attention, rollout, flow, statistics": lambda lm: (
        lambda tokens, groups, words, A: (
            wl.word_attention(A, groups),
            wl.aggregate_heads(A, "max"),
            wl.attention_rollout(A),
            wl.attention_flow(A[:2, :, :5, :5].softmax(-1)),
            wl.head_statistics(A, tokens),
        )
    )(*wl.attention_of(lm, PROMPT)),
    "norm-based attention": lambda lm: (
        lambda r: (r.attn, r.f_norms, r.norms, nbm.column_share(r.norms, [0]), nbm.hook_projections(lm))
    )(nbm.norm_based(lm, lm.encode(PROMPT))),
    "probability maps": lambda lm: (
        [
            f(_scores(lm))
            for f in (att.softmax, att.sparsemax, lambda z: att.entmax(z, 1.5), lambda z: att.entmax(z, 1.3))
        ]
        + [
            att.fusedmax(_scores(lm), 0.3),
            att.hard_attention(_scores(lm), "sample", torch.Generator().manual_seed(0)),
        ]
    ),
    "attention layers and masks": _attention_layer,
    "efficient attention (lesson 14)": lambda lm: _efficient(lm),
    "faithfulness (lesson 08)": _faithfulness,
    "toy tasks (lesson 09)": _toytasks,
    "faithful by design (lesson 11)": _rationales,
    "sparse autoencoder (lesson 10)": _sae,
    "concept bottlenecks (lesson 12)": _cbm,
    "white-box transformers (lesson 13)": _crate,
    "circuits (lesson 15)": _circuits,
    "seq2seq and attention (lesson 16)": _seq2seq,
    "the encoder-decoder Transformer (lesson 17)": _encdec,
    "structured attention (lesson 18's helpers)": _structured,
    "a Llama-family block (issue 41)": _llama,
    "from GPT-2 to today's block (lesson 04)": _modern,
    "the method registry, every method on every kind (issue 41)": _registry,
    "the map of attribution methods (lesson 20)": lambda lm: _attribution_map(lm),
}


@cache
def _llama_on_the_host(vocab_size: int) -> torch.nn.Module:
    """A random tiny Llama (grouped-query attention, 2 key/value heads for 4 query heads, untied) over
    the bundled model's vocabulary, made once on the CPU so that every device gets the same weights."""
    from xai_tf.models.llama import Llama
    from xai_tf.models.llama_config import LlamaConfig

    config = LlamaConfig(
        vocab_size=vocab_size, n_ctx=64, n_embd=16, n_layer=2, n_head=4, n_kv_head=2, d_mlp=24
    )
    with torch.device("cpu"):
        torch.manual_seed(0)
        return Llama(config).eval()


def _tiny_llama(lm: xai_tf.LoadedModel) -> xai_tf.LoadedModel:
    """The tiny Llama on ``lm``'s device, reading ``lm``'s tokenizer."""
    model = copy.deepcopy(_llama_on_the_host(lm.vocab_size)).to(lm.device)
    return xai_tf.LoadedModel(model, lm.tokenizer, "tiny-llama")


#: The causal-LM helpers of the rows above, run again on a tiny Llama (issue 41): the same helper on
#: a Llama-style block (RoPE, RMSNorm, SwiGLU, grouped key/value heads) follows the device too.
ON_LLAMA = (
    "forward",
    "attentions",
    "greedy",
    "generate top-k top-p",
    "beam_search",
    "continuation_log_prob",
    "top_next_tokens",
    "logit_lens_top",
    "integrated_gradients riemann",
    "integrated_gradients gauss-legendre",
    "sequential_integrated_gradients",
    "embedding_gradients + saliency",
    "leave_one_out replace",
    "leave_one_out drop",
    "loss_per_char",
)
CALLS.update(
    {f"{name}, on a tiny Llama": (lambda lm, call=CALLS[name]: call(_tiny_llama(lm))) for name in ON_LLAMA}
)


def _attribution_map(lm: xai_tf.LoadedModel) -> list:
    from xai_tf.explain import catalogue
    from xai_tf.explain import properties as pr
    from xai_tf.explain.registry import ATTRIBUTIONS

    ids = lm.encode("But soft, what light")
    found = [
        ATTRIBUTIONS.explain(m, lm, ids, 5, n_samples=8, n_steps=4).scores for _, m, *_ in catalogue.ENTRIES
    ]
    with pr.randomised_top_blocks(lm, 2):
        found.append(ATTRIBUTIONS.explain("occlusion", lm, ids, 5).scores)
    return [*found, pr.completeness_gap(lm, ids, 5, found[0])[0]]


def _flat(result: object) -> list:
    if isinstance(result, torch.Tensor):
        return [result]
    if isinstance(result, dict):
        return [t for v in result.values() for t in _flat(v)]
    if isinstance(result, (list, tuple)):
        return [t for v in result for t in _flat(v)]
    return [result]


@pytest.fixture(scope="module")
def on_cpu() -> dict[str, list]:
    lm = xai_tf.load_model("shakespeare")
    return {name: _flat(call(lm)) for name, call in CALLS.items()}


DEVICES = [
    "cpu",
    "guarded-cpu",
    pytest.param(
        "cuda",
        marks=pytest.mark.skipif(
            not torch.cuda.is_available(), reason="no CUDA device here: the CUDA runs need a GPU machine"
        ),
    ),
]


@pytest.fixture(scope="module", params=DEVICES)
def device(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def lm(device) -> xai_tf.LoadedModel:
    return xai_tf.load_model("shakespeare", device="cuda" if device == "cuda" else "cpu")


@pytest.mark.parametrize("name", list(CALLS))
def test_helper_runs_on_the_device_and_agrees_with_the_cpu(name, device, lm, on_cpu):
    if device == "guarded-cpu":
        with torch.device("meta"):
            result = _flat(CALLS[name](lm))
    else:
        result = _flat(CALLS[name](lm))
    assert len(result) == len(on_cpu[name])
    for i, (got, want) in enumerate(zip(result, on_cpu[name], strict=True)):
        where = f"{name}, result {i}"
        if isinstance(want, torch.Tensor):
            assert got.device.type == ("cuda" if device == "cuda" else "cpu"), where
            tolerance = {"atol": 1e-3, "rtol": 1e-3} if device == "cuda" else {"atol": 0, "rtol": 0}
            torch.testing.assert_close(
                got.cpu(), want, **tolerance, msg=lambda m, where=where: f"{where}: {m}"
            )
        elif device == "cuda" and isinstance(want, float):
            assert got == pytest.approx(want, rel=1e-3), where
        else:
            assert got == want, where


def _train_sentiment(lm: xai_tf.LoadedModel) -> list[torch.Tensor]:
    return list(
        sentiment.train_classifier(
            lm, sentiment.sentiment_phrases()[0][::8], options=sentiment.OPTIONS.replace(steps=3)
        ).parameters()
    )


def _train_recurrent(lm: xai_tf.LoadedModel) -> list[torch.Tensor]:
    from xai_tf.tasks import cues, recurrent

    data = cues.cue_sentences(40, seed=0)
    model = recurrent.train_attention_classifier(
        data, len(cues.VOCAB), "bilstm", device=lm.device, options=recurrent.OPTIONS.replace(steps=3)
    )
    return list(model.parameters())


def _train_cbm(mode: str, images: bool = False) -> Callable[[xai_tf.LoadedModel], list[torch.Tensor]]:
    from xai_tf.cbm import arthritis, shapes, training

    def train(lm: xai_tf.LoadedModel) -> list[torch.Tensor]:
        data = shapes.shapes(16, seed=0) if images else arthritis.arthritis(64, seed=0)
        return list(
            training.train(
                mode, data.to(lm.device), options=training.OPTIONS.replace(steps=3, batch_size=8)
            ).parameters()
        )

    return train


TRAINERS: dict[str, Callable[[xai_tf.LoadedModel], list[torch.Tensor]]] = {
    "sentiment.train_classifier": _train_sentiment,
    "recurrent.train_attention_classifier": _train_recurrent,
    "cbm training, joint": _train_cbm("joint"),
    "cbm training, independent CNN": _train_cbm("independent", images=True),
}


@pytest.mark.parametrize("name", list(TRAINERS))
def test_trainer_trains_on_the_device(name, device, lm):
    """Where a trainer trains, not what it learns (that differs between devices, see
    ``_trained_on_the_host``): every parameter of the result lies on the model's device and is finite."""
    if device == "guarded-cpu":
        with torch.device("meta"):
            result = TRAINERS[name](lm)
    else:
        result = TRAINERS[name](lm)
    for i, t in enumerate(result):
        assert t.device.type == ("cuda" if device == "cuda" else "cpu"), (name, i, t.device)
        assert torch.isfinite(t).all(), (name, i)
