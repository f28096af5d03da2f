"""Lesson 17's blocks against ``torch.nn.Transformer`` (the independent reference), the masks, and one
cross-attention computed by hand."""

import math

import pytest
import torch
from numerics import rescored
from torch import nn

from xai_tf.encdec import EncoderDecoder, from_torch, source_mask, target_mask, to_torch


def _torch_transformer(norm_first: bool, dtype: torch.dtype, seed: int = 0) -> nn.Transformer:
    torch.manual_seed(seed)
    t = nn.Transformer(
        d_model=16,
        nhead=4,
        num_encoder_layers=2,
        num_decoder_layers=2,
        dim_feedforward=24,
        dropout=0.0,
        batch_first=True,
        norm_first=norm_first,
    )
    for p in t.parameters():  # biases and LN gains away from their 0 / 1 initialisation
        p.data += 0.1 * torch.randn_like(p)
    return t.to(dtype).eval()


def _inputs(dtype: torch.dtype):
    g = torch.Generator().manual_seed(1)
    src, tgt = (
        torch.randn(3, 7, 16, generator=g, dtype=dtype),
        torch.randn(3, 5, 16, generator=g, dtype=dtype),
    )
    src_visible = torch.arange(7) < torch.tensor([7, 4, 2])[:, None]
    return src, tgt, src_visible


pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_equal_to_torch_transformer(norm_first, dtype):
    theirs = _torch_transformer(norm_first, dtype)
    ours = from_torch(theirs).eval()
    src, tgt, src_visible = _inputs(dtype)
    causal = nn.Transformer.generate_square_subsequent_mask(5, dtype=dtype)
    with torch.enable_grad():  # keeps torch's fast path (nested tensors) off
        expected = theirs(
            src,
            tgt,
            tgt_mask=causal,
            src_key_padding_mask=~src_visible,
            memory_key_padding_mask=~src_visible,
            tgt_is_causal=True,
        )
        got, maps = ours(src, tgt, src_visible)
    assert got.dtype == dtype
    err = (got - expected).abs().max().item()
    assert err < 1e-5, err
    memory, _ = ours.encode(src, src_visible)
    memory_torch = theirs.encoder(src, src_key_padding_mask=~src_visible)
    assert (memory - memory_torch)[src_visible].abs().max() < 1e-5
    assert maps.cross.shape == (2, 3, 4, 5, 7)
    assert maps.cross[:, 2, :, :, 2:].abs().max() == 0  # the third sentence's pads get no attention


def test_to_torch_round_trip():
    theirs = _torch_transformer(True, torch.float64)
    ours = from_torch(theirs)
    fresh = _torch_transformer(True, torch.float64, seed=5)
    to_torch(ours, fresh)
    for a, b in zip(theirs.parameters(), fresh.parameters(), strict=True):
        assert torch.equal(a, b)


def test_post_ln_and_pre_ln_differ():
    src, tgt, v = _inputs(torch.float64)
    a = from_torch(_torch_transformer(False, torch.float64)).eval()
    b = from_torch(_torch_transformer(True, torch.float64)).eval()
    assert (a(src, tgt, v)[0] - b(src, tgt, v)[0]).abs().max() > 0.1


def test_masks():
    visible = torch.tensor([[True, True, False]])
    assert source_mask(visible).shape == (1, 1, 1, 3)
    M = target_mask(visible)[0, 0]
    assert M.tolist() == [[True, False, False], [True, True, False], [True, True, False]]


def test_decoder_position_sees_no_future():
    """Changing target token t changes no decoder output before t (the causal mask)."""
    model = from_torch(_torch_transformer(False, torch.float64)).eval()
    src, tgt, v = _inputs(torch.float64)
    changed = tgt.clone()
    changed[:, 3] += 1.0
    a, b = model(src, tgt, v)[0], model(src, changed, v)[0]
    assert (a - b)[:, :3].abs().max() < 1e-12 and (a - b)[:, 3:].abs().max() > 1e-3


def test_cross_attention_by_hand():
    """One head, d_e = 2, identity projections, zero biases: A = softmax(x yᵀ / √2) over visible keys."""
    model = EncoderDecoder(d_e=2, n_heads=1, n_encoder=1, n_decoder=1, d_ff=2)
    attn = model.decoder[0].attn[1]
    with torch.no_grad():
        for W in (attn.W_q, attn.W_k, attn.W_v, attn.W_o):
            W.copy_(torch.eye(2))
    x = torch.tensor([[[1.0, 0.0]]])
    y = torch.tensor([[[2.0, 0.0], [0.0, 1.0], [5.0, 5.0]]])
    out, A = attn(x, y, source_mask(torch.tensor([[True, True, False]])))
    e = torch.tensor([2.0, 0.0]) / 2**0.5
    p = torch.exp(e) / torch.exp(e).sum()  # the third key is padding
    assert torch.allclose(A[0, 0, 0], torch.tensor([p[0], p[1], 0.0]))
    assert torch.allclose(out[0, 0], p[0] * torch.tensor([2.0, 0.0]) + p[1] * torch.tensor([0.0, 1.0]))


# ---------------------------------------------------------------- the model, training, evaluation


@pytest.fixture(scope="module")
def corpus():
    from xai_tf.seq2seq import data

    return data.make_corpus(0)


def test_decoder_only_is_causal_over_source_and_target(corpus):
    """Changing target word t leaves the logits before t alone; changing a source word moves them all."""
    from xai_tf.encdec import runs
    from xai_tf.seq2seq import data

    model = runs.build("decoder_only", corpus, 0).eval()
    b = data.batch(corpus.test[:1], corpus)
    base = model(b.source, b.source_mask, b.target_in)[0]
    tgt = b.target_in.clone()
    tgt[0, 3] = 7
    moved = (model(b.source, b.source_mask, tgt)[0] - base).abs().amax(-1)[0]
    assert moved[:3].max() < 1e-6 and moved[3:].min() > 1e-4
    src = b.source.clone()
    src[0, -1] = 9
    assert (model(src, b.source_mask, b.target_in)[0] - base).abs().amax(-1)[0].min() > 1e-4


@pytest.mark.numerics
def test_greedy_agrees_with_full_forward_passes(corpus):
    """Greedy (encoder once, decoder per step) equals argmax of full forward passes, one per word."""
    from xai_tf.encdec import evaluate, runs
    from xai_tf.seq2seq import data

    model = runs.build("pre", corpus, 1).eval()
    pairs = corpus.test[:3]
    for pair, words in zip(pairs, evaluate.greedy(model, pairs, corpus, max_extra=2), strict=True):
        b = data.batch([pair], corpus)
        ids = [1]
        while len(ids) <= len(pair.source) + 2 and ids[-1] != 2:
            ids.append(int(model(b.source, b.source_mask, torch.tensor([ids]))[0][0, -1].argmax()))
        assert words == corpus.target_vocab.decode(ids[1:])


def test_learning_rate_schedule():
    from xai_tf.encdec.training import Settings, learning_rate

    s = Settings(lr=1.0, warmup=100)
    assert [learning_rate(k, s) for k in (50, 100, 400)] == [0.5, 1.0, 0.5]
    assert learning_rate(400, Settings(lr=1.0, warmup=100, decay="constant")) == 1.0
    assert learning_rate(1, Settings(lr=1.0, warmup=0)) == 1.0
    # without the ramp (issue 58): lr_max until w, then the same decay as with it;
    # warmup = 0 decays from step 1
    no_ramp = Settings(lr=1.0, warmup=100, ramp=False)
    assert [learning_rate(k, no_ramp) for k in (1, 50, 100, 400)] == [1.0, 1.0, 1.0, 0.5]
    assert learning_rate(400, Settings(lr=1.0, warmup=0)) == 0.05
    with pytest.raises(TypeError, match="ramp must be True or False"):
        Settings(ramp="no")


def test_learning_rate_is_vaswanis_schedule_with_the_peak_as_parameter():
    """Lesson 17's claim: lr_max · min(1, t/w) · (max(t, w)/w)^(-1/2) equals Vaswani et al.'s (§5.3)
    d^(-0.5) · min(t^(-0.5), t · w^(-1.5)) with d^(-0.5) = lr_max · √w, at every step."""
    from xai_tf.encdec.training import Settings, learning_rate

    for lr_max, w in ((5e-3, 100), (1e-3, 7), (0.3, 4000)):
        s = Settings(lr=lr_max, warmup=w)
        for t in range(1, 3 * w + 2):
            paper = lr_max * math.sqrt(w) * min(t**-0.5, t * w**-1.5)
            assert math.isclose(learning_rate(t, s), paper, rel_tol=1e-12), (lr_max, w, t)


def test_label_smoothing_loss_by_hand():
    """ε = 0.2 over D = 4 words: target q = 0.8 on the right word + 0.05 everywhere; padding ignored."""
    from xai_tf.encdec.training import loss_fn

    logits = torch.tensor([[[1.0, 2.0, 0.0, -1.0], [5.0, 5.0, 5.0, 5.0]]], dtype=torch.float64)
    target = torch.tensor([[1, 0]])
    logp = logits[0, 0] - torch.logsumexp(logits[0, 0], 0)
    q = torch.full((4,), 0.05, dtype=torch.float64) + torch.tensor([0, 0.8, 0, 0], dtype=torch.float64)
    assert torch.isclose(loss_fn(logits, target, 0.2), -(q * logp).sum())


def test_expected_calibration_error_by_hand():
    from xai_tf.encdec.evaluate import expected_calibration_error

    top = torch.tensor([0.95, 0.95, 0.65, 0.65])
    right = torch.tensor([True, False, True, True])
    # bin 0.9–1.0: accuracy 0.5, confidence 0.95; bin 0.6–0.7: accuracy 1, confidence 0.65
    assert abs(expected_calibration_error(top, right) - (0.5 * 0.45 + 0.5 * 0.35)) < 1e-6


def test_alignment_error_rates_by_hand(corpus):
    """A model whose cross-attention is forced onto the gold links has AER 0; the table is [N, H + 1]."""
    from xai_tf.encdec import evaluate, runs

    model = runs.build("pre", corpus, 0).eval()
    aer = evaluate.alignment_error_rates(model, corpus.test[:4], corpus)
    assert aer.shape == (2, 5) and ((aer >= 0) & (aer <= 1)).all()


# ---------------------------------------------------------------- analysis


def test_family_masks_and_counts():
    from xai_tf.encdec.analysis import attention_scores, family_mask

    S, T = 4, 3
    M = family_mask("encoder-decoder", S, T)
    assert M[:S, :S].all() and not M[:S, S:].any() and M[S:, :S].all()
    assert torch.equal(M[S:, S:], torch.ones(T, T, dtype=torch.bool).tril())
    assert attention_scores("encoder-decoder", S, T) == S * S + T * S + T * (T + 1) // 2
    assert attention_scores("decoder-only", S, T) == (S + T) * (S + T + 1) // 2
    assert attention_scores("encoder-only", S, T) == (S + T) ** 2


def test_one_head_cannot_be_a_convolution_three_can():
    from xai_tf.encdec.analysis import convolution_vs_heads

    r = convolution_vs_heads(d=4, n=12, seed=0)
    assert r["three heads"] < 1e-10 and r["one head"] > 0.2


def test_gradient_norms_match_autograd(corpus):
    from xai_tf.encdec import analysis, runs
    from xai_tf.encdec.training import loss_fn
    from xai_tf.seq2seq import data

    model = runs.build("post", corpus, 0)
    norms = analysis.gradient_norms(model, corpus.train[:4], corpus)
    b = data.batch(corpus.train[:4], corpus)
    block = model.core.decoder[1]
    grads = torch.autograd.grad(
        loss_fn(model(b.source, b.source_mask, b.target_in)[0], b.target_out), list(block.parameters())
    )
    assert norms.shape == (2, 2)
    assert torch.isclose(norms[1, 1], torch.cat([g.flatten() for g in grads]).norm(), rtol=1e-5)


# ---------------------------------------------------------------- exercise and panel


def _loop_solution(X, Y, W_q, W_k, W_v, src_visible):
    import math

    Q, K, V = X @ W_q.T, Y @ W_k.T, Y @ W_v.T
    A = torch.zeros(len(X), len(Y), dtype=X.dtype)
    for i in range(len(X)):
        s = [
            float(Q[i] @ K[j]) / math.sqrt(Q.shape[1]) if src_visible[j] else -math.inf for j in range(len(Y))
        ]
        A[i] = torch.softmax(torch.tensor(s, dtype=X.dtype), 0)
    return A @ V, A


def _causal_too(X, Y, W_q, W_k, W_v, v):
    s = (X @ W_q.T) @ (Y @ W_k.T).T / W_q.shape[0] ** 0.5
    A = s.masked_fill(~(torch.ones(len(X), len(Y), dtype=torch.bool).tril() & v), -torch.inf).softmax(-1)
    return A @ (Y @ W_v.T), A


def _no_padding(X, Y, W_q, W_k, W_v, v):
    A = ((X @ W_q.T) @ (Y @ W_k.T).T / W_q.shape[0] ** 0.5).softmax(-1)
    return A @ (Y @ W_v.T), A


def _zeroed_after(X, Y, W_q, W_k, W_v, v):
    A = ((X @ W_q.T) @ (Y @ W_k.T).T / W_q.shape[0] ** 0.5).softmax(-1) * v
    return A @ (Y @ W_v.T), A


def _unscaled(X, Y, W_q, W_k, W_v, v):
    A = ((X @ W_q.T) @ (Y @ W_k.T).T).masked_fill(~v, -torch.inf).softmax(-1)
    return A @ (Y @ W_v.T), A


def _swapped(X, Y, W_q, W_k, W_v, v):
    A = ((Y @ W_q.T) @ (X @ W_k.T).T / 2).softmax(-1)
    return A @ (X @ W_v.T), A


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (_causal_too, "takes no causal mask"),
        (_no_padding, "weight to the source's padding"),
        (_zeroed_after, "mask the scores before the softmax"),
        (_unscaled, "not scaled"),
        (_swapped, "queries come from the decoder"),
        (lambda *a: _no_padding(*a)[1], "return a pair"),
    ],
)
def test_cross_attention_checker_names_the_mistake(fn, message, capsys):
    from xai_tf.exercises.encdec import check_cross_attention

    assert check_cross_attention(fn) is False
    out = capsys.readouterr().out
    assert out.startswith("✘") and message in out, out


def test_cross_attention_checker_passes_right_answers(capsys):
    from xai_tf.encdec.blocks import MultiHeadAttention
    from xai_tf.exercises.encdec import check_cross_attention

    def float32_reference(X, Y, W_q, W_k, W_v, v):  # the package's own attention, one head, cast to float32
        mha = MultiHeadAttention(X.size(1), 1)
        mha.W_o.data = torch.eye(W_v.size(0), dtype=torch.float64)
        A = torch.softmax(((X @ W_q.T) @ (Y @ W_k.T).T / W_q.size(0) ** 0.5).masked_fill(~v, -torch.inf), -1)
        return (A @ (Y @ W_v.T)).float(), A.float()

    assert check_cross_attention(_loop_solution) and check_cross_attention(float32_reference)
    assert capsys.readouterr().out.count("✔") == 2


def test_panel_draws_gold_links_and_refuses_bad_sentences(corpus):
    from xai_tf.encdec import runs
    from xai_tf.widgets.encdec import cross_attention_panel

    panel = cross_attention_panel(runs.build("pre", corpus, 0).eval(), corpus)
    assert panel.message.value == "" and panel.view.value.count('stroke="#d00"') == len(corpus.test[0].links)
    panel["head"].value = 0
    panel["text"].value = "vou à loja"
    assert "target language" in panel.message.value and panel.view.value == ""
    panel["text"].value = "the dog sings"  # an untrained model may say nothing: then one line says so
    assert "<svg" in panel.view.value or "translated this sentence to nothing" in panel.message.value


# ---------------------------------------------------------------- the shipped models


@pytest.mark.numerics
def test_the_shipped_models_are_current_and_score_their_recorded_metrics():
    """The weights were trained by the code as it is now (``artifacts`` fingerprint of ``runs``' import
    graph), and re-scoring the seed-0 models on their test split gives the recorded numbers (float32
    on another CPU: exact match to one sentence, AER and ECE to 1e-3)."""
    from xai_tf.encdec import runs, shipped

    record = shipped.recorded()
    assert record["fingerprint"] == shipped.fingerprint(), (
        "the shipped Transformers are stale: run OMP_NUM_THREADS=1 python scripts/train_encdec.py"
    )
    corpus = shipped.corpus()
    for name in ("pre",):  # the decoder-only model re-scores the same way, at twice the cost
        want = shipped.draws(name)[0]
        got = runs.measure(shipped.model(name), corpus.test, corpus)
        rescored(f"encdec {name}", "exact", got["exact"], want["exact"], 1 / len(corpus.test) + 1e-9)
        rescored(f"encdec {name}", "ece", got["ece"], want["ece"], 1e-3)
        if "aer" in want:
            worst = float((torch.tensor(got["aer"]) - torch.tensor(want["aer"])).abs().max())
            rescored(f"encdec {name}", "aer (worst head)", worst, 0.0, 1e-3)


def test_shipped_corpus_ignores_the_offset(monkeypatch):
    from xai_tf.encdec import shipped

    first = shipped.corpus().test[1]
    monkeypatch.setenv("XAI_TF_SEED_OFFSET", "3")
    assert shipped.corpus().test[1] == first


def test_reached_is_the_first_row_at_or_above_the_target():
    from xai_tf.encdec import shipped

    curve = [[100, 3.0, 0.5], [200, 7.5, 0.91], [300, 9.0, 0.85], [400, 12.0, 0.95]]
    assert shipped.reached(curve, 0.9) == (200, 7.5)  # not 400: the first, though it dips after
    assert shipped.reached(curve, 0.95) == (400, 12.0)  # ≥, not >
    assert shipped.reached(curve, 0.96) is None
    want = []
    for d in shipped.draws("pre"):
        hits = [row[0] for row in d["dev_curve"] if row[2] >= 0.9]
        want.append(hits[0] if hits else None)
    assert shipped.steps_to("pre", 0.9) == want


def test_train_encdec_refuses_at_once_a_run_it_could_not_assemble(tmp_path, capsys):
    """``scripts/train_encdec.py --variants X`` assembles encdec.safetensors from the seed-0 weights of
    every shipped variant: without them in ``--out`` the command line is refused before any training,
    naming what to pass; with them there, or with ``--draws-only``, it is accepted. Arguments only."""
    from scripts_kit import load_script

    from xai_tf.encdec import shipped

    script, out = load_script("train_encdec"), str(tmp_path)

    def refusal(*argv: str) -> str:
        with pytest.raises(SystemExit) as stop:
            script.parse_args([*argv, "--out", out])
        assert stop.value.code == 2
        return capsys.readouterr().err

    err = refusal("--variants", "dropout")
    assert f"--variants dropout,{','.join(shipped.NAMES)}" in err and "--draws-only" in err
    assert all(f"{name}.safetensors" in err for name in shipped.NAMES)
    assert "unknown prenorm" in refusal("--variants", "pre,prenorm")
    assert "--assemble gathers" in refusal("--assemble")
    assert script.parse_args(["--variants", "dropout", "--draws-only", "--out", out]).variants == ["dropout"]
    assert script.parse_args(["--variants", ",".join(shipped.NAMES), "--out", out]).assemble is False
    (tmp_path / "draws.jsonl").touch()
    (tmp_path / f"{shipped.NAMES[0]}.safetensors").touch()
    assert f"train them first (--variants {','.join(shipped.NAMES[1:])} " in refusal("--assemble")
    for name in shipped.NAMES:
        (tmp_path / f"{name}.safetensors").touch()
    assert script.parse_args(["--variants", "dropout", "--out", out]).variants == ["dropout"]
    assert script.parse_args(["--assemble", "--out", out]).assemble


def test_schedule_is_vaswanis_form_and_the_training_loops_rate():
    from xai_tf.encdec import recipe, training

    lr_max, w = 5e-3, 100
    steps = torch.tensor([1.0, 7, 50, 99, 100, 101, 400, 1200], dtype=torch.float64)
    got = recipe.schedule(steps, lr_max, w)
    d_inv_sqrt = lr_max * math.sqrt(w)  # d^-0.5 = lr_max · √w
    paper = [d_inv_sqrt * min(t**-0.5, t * w**-1.5) for t in steps.tolist()]
    assert got.tolist() == pytest.approx(paper, rel=1e-12)
    settings = training.Settings(lr=lr_max, warmup=w, decay="inverse_sqrt")
    assert got.tolist() == pytest.approx([training.learning_rate(int(t), settings) for t in steps], rel=1e-12)


def test_smoothed_targets_give_pytorchs_label_smoothed_cross_entropy():
    from torch.nn import functional as F

    from xai_tf.encdec import recipe

    g = torch.Generator().manual_seed(0)
    logits, y, eps = (
        torch.randn(6, 9, generator=g, dtype=torch.float64),
        torch.tensor([0, 3, 8, 3, 1, 5]),
        0.1,
    )
    q = recipe.smoothed_targets(y, 9, eps).double()
    assert q.sum(-1).tolist() == pytest.approx([1.0] * 6)
    assert q[0, 0].item() == pytest.approx(1 - eps + eps / 9) and q[0, 1].item() == pytest.approx(eps / 9)
    mine = -(q * logits.log_softmax(-1)).sum(-1).mean()
    assert mine.item() == pytest.approx(
        F.cross_entropy(logits, y, label_smoothing=eps).item(), rel=1e-6
    )  # q in float32
