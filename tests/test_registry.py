"""The one explanation verb (``xai_tf.explain.registry``): every registered method against an
independent computation — Captum (``LayerIntegratedGradients``, ``IntegratedGradients``,
``Saliency``, ``InputXGradient``) for integrated gradients and gradients, hand loops for leave-one-out
and erasure's orders, closed forms (∂s/∂α_t = W_c h_t, α = softmax(vᵀ tanh(W_a h + b_a)))."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from captum.attr import InputXGradient, IntegratedGradients, LayerIntegratedGradients, Saliency

from xai_tf import seeds
from xai_tf.explain.registry import ATTRIBUTIONS, Explanation, Registry
from xai_tf.faithfulness import erasure, importance, transformer
from xai_tf.tasks import cues, recurrent
from xai_tf.tasks.sentiment import SequenceClassifier


@pytest.fixture(scope="module")
def cue_models():
    train = cues.cue_sentences(200, seed=0)
    return {
        enc: recurrent.train_attention_classifier(train, len(cues.VOCAB), enc, steps=40)
        for enc in recurrent.ENCODERS
    }


@pytest.fixture(scope="module")
def sentences():
    return [e for e in cues.cue_sentences(8, seed=1) if len(e.ids) >= 3][:4]


# --- the registry itself ----------------------------------------------------------------------------


def test_a_registry_names_unknown_methods_and_options():
    calls = []

    def method(model, inputs, target, **o):
        calls.append((model, inputs, target, o))
        return Explanation(torch.zeros(2))

    r = Registry("a test family", {"m": method}, {"k": 1})
    assert isinstance(r.explain("m", "model", [1, 2], 0, k=5), Explanation)
    assert calls == [("model", [1, 2], 0, {"k": 5})]
    r.explain("m", "model", [1, 2])
    assert calls[-1] == ("model", [1, 2], None, {"k": 1})  # every declared option passed, defaults filled
    with pytest.raises(ValueError, match=r"method must be one of \['m'\], got 'x'"):
        r.explain("x", None, None)
    with pytest.raises(TypeError, match=r"a test family takes the options \['k'\], got \['j'\]"):
        r.explain("m", None, None, j=1)
    for bad in ("m", [], ["m", "x"], None):
        with pytest.raises(ValueError, match="methods must be a non-empty list of names from"):
            r.check(bad)
    assert r.check(("m",)) == ["m"]


# --- lesson 06: ATTRIBUTIONS against Captum ---------------------------------------------------------


def test_attributions_equal_captum_and_a_hand_occlusion(bundled):
    model = bundled.model
    ids = bundled.encode("To be, or not to be, that is")
    with torch.no_grad():
        target = int(model(ids)[0, -1].argmax())
    t_ids = torch.tensor(ids)

    def F(E):
        return model.forward_embeddings(E)[:, -1, target]

    ig = ATTRIBUTIONS.explain("IG", bundled, ids, target, n_steps=20)
    lig = LayerIntegratedGradients(lambda b: model(b)[:, -1, target], model.wte)
    ref, ref_delta = lig.attribute(
        t_ids[None], torch.zeros_like(t_ids)[None], n_steps=20, return_convergence_delta=True
    )
    ref = ref[0].sum(-1).detach()
    torch.testing.assert_close(ig.scores, ref, atol=1e-4 * float(ref.abs().max()), rtol=0)
    assert ig.n_steps == 20 and ig.delta == pytest.approx(float(ref_delta), abs=1e-3 * float(ref.abs().max()))
    assert "delta" in ig.note
    E = model.wte(t_ids)[None].detach()
    g = Saliency(F).attribute(E, abs=False)[0]
    torch.testing.assert_close(ATTRIBUTIONS.explain("G-avg", bundled, ids, target).scores, g.mean(-1))
    torch.testing.assert_close(ATTRIBUTIONS.explain("G-L1", bundled, ids, target).scores, g.abs().mean(-1))
    torch.testing.assert_close(
        ATTRIBUTIONS.explain("G-L2", bundled, ids, target).scores, g.pow(2).mean(-1).sqrt()
    )
    gxi = InputXGradient(F).attribute(E)[0].sum(-1)
    torch.testing.assert_close(ATTRIBUTIONS.explain("gradient × input", bundled, ids, target).scores, gxi)
    space = bundled.tokenizer.encode(" ")[0]
    loo = ATTRIBUTIONS.explain("leave-one-out", bundled, ids, target).scores
    with torch.no_grad():
        full = float(model(ids)[0, -1, target])
        for t in range(len(ids)):
            replaced = float(model([space if u == t else i for u, i in enumerate(ids)])[0, -1, target])
            assert float(loo[t]) == pytest.approx(full - replaced, abs=1e-4)
    assert np.isnan(ATTRIBUTIONS.explain("G-L2", bundled, ids, target).delta)


# --- lessons 08 and 11: IMPORTANCES against Captum and hand loops --------------------------------------


def _f(model, target=1):
    return lambda E: model.forward_embeddings(E).softmax(-1)[:, target]


#: What Captum computes on the float32 model: the gradient through α and IG at a fixed m = 32 (lesson 06's
#: methods); the registry's defaults (float64, α detached, adaptive m) are tested in test_faithfulness.py.
CAPTUMS_SETTINGS = {"dtype": torch.float32, "detach_attention": False, "ig_steps": 32, "ig_max_steps": 32}


@pytest.mark.parametrize("encoder", recurrent.ENCODERS)
def test_importances_equal_captum_and_hand_loops(cue_models, sentences, encoder):
    model = cue_models[encoder]
    for e in sentences:
        ids = torch.tensor([e.ids])
        E = model.wte(ids).detach()
        found = importance.explanations(model, e.ids, **CAPTUMS_SETTINGS)
        ref, ref_delta = IntegratedGradients(_f(model)).attribute(
            E, torch.zeros_like(E), n_steps=32, method="gausslegendre", return_convergence_delta=True
        )
        torch.testing.assert_close(found["IG"].scores, ref[0].sum(-1).abs().detach(), atol=1e-6, rtol=1e-4)
        assert found["IG"].delta == pytest.approx(float(ref_delta), abs=1e-6)
        assert found["IG"].n_steps == 32
        gxi = InputXGradient(_f(model)).attribute(E.clone().requires_grad_(True))[0].sum(-1).abs()
        torch.testing.assert_close(found["gradient"].scores, gxi.detach(), atol=1e-7, rtol=1e-5)
        with torch.no_grad():
            h = model.states(E)
            theta = (torch.tanh(h @ model.W_a.weight.T + model.W_a.bias) @ model.v.weight.T)[0, :, 0]
            torch.testing.assert_close(found["attention"].scores, theta.softmax(-1))
            f_x = float(_f(model)(E))
            for t in range(len(e.ids)):
                shorter = model.wte(ids[:, [u for u in range(len(e.ids)) if u != t]])
                assert float(found["LOO"].scores[t]) == pytest.approx(
                    abs(f_x - float(_f(model)(shorter))), abs=1e-6
                )
    assert [np.isnan(x.delta) for x in found.values()] == [True, True, True, False]


def test_importances_of_the_other_class(cue_models, sentences):
    """``target`` picks f = softmax(s)_c: the negative class's IG against Captum's."""
    model, e = cue_models["bilstm"], sentences[0]
    E = model.wte(torch.tensor([e.ids])).detach()
    found = importance.IMPORTANCES.explain("IG", model, e.ids, 0, **CAPTUMS_SETTINGS)
    ref = IntegratedGradients(_f(model, 0)).attribute(
        E, torch.zeros_like(E), n_steps=32, method="gausslegendre"
    )
    torch.testing.assert_close(found.scores, ref[0].sum(-1).abs().detach(), atol=1e-6, rtol=1e-4)
    with pytest.raises(ValueError, match=r"target must be an integer in 0\.\.1, got 2"):
        importance.IMPORTANCES.explain("IG", model, e.ids, 2)
    # with 2 classes |∇p_0| = |∇p_1|: a 3-class model tells the classes' gradients and LOO apart
    torch.manual_seed(0)
    three = recurrent.AttentionClassifier(recurrent.RecurrentConfig(len(cues.VOCAB), n_classes=3))
    E = three.wte(torch.tensor([e.ids])).detach().requires_grad_(True)
    for c in range(3):
        found = importance.explanations(three, e.ids, ["gradient", "LOO"], target=c, **CAPTUMS_SETTINGS)
        gxi = InputXGradient(_f(three, c)).attribute(E)[0].sum(-1).abs().detach()
        torch.testing.assert_close(found["gradient"].scores, gxi, atol=1e-7, rtol=1e-5)
        with torch.no_grad():
            f_x = float(_f(three, c)(E))
            for t in range(len(e.ids)):
                shorter = three.wte(torch.tensor([e.ids[:t] + e.ids[t + 1 :]]))
                want = abs(f_x - float(_f(three, c)(shorter)))
                assert float(found["LOO"].scores[t]) == pytest.approx(want, abs=1e-6)


# --- lesson 08: TRANSFORMER against Captum ------------------------------------------------------------


def test_transformer_ig_equals_captum_with_its_delta(bundled):
    torch.manual_seed(0)
    clf = SequenceClassifier(bundled.model).eval()
    ids = bundled.encode("Thou art a vile knave.")
    with torch.no_grad():
        c = int(clf(ids).argmax())
    E = clf.embed(torch.tensor([ids])).detach()
    for m in (4, 16):
        found = transformer.TRANSFORMER.explain("IG", clf, ids, n_steps=m)
        ref, ref_delta = IntegratedGradients(lambda X: clf.forward_embeddings(X).softmax(-1)[:, c]).attribute(
            E, torch.zeros_like(E), n_steps=m, method="gausslegendre", return_convergence_delta=True
        )
        torch.testing.assert_close(found.scores, ref[0].sum(-1).abs().detach(), atol=1e-6, rtol=1e-4)
        assert found.n_steps == m and found.delta == pytest.approx(float(ref_delta), abs=1e-6)


# --- lesson 08: erasure's ORDERS by hand ----------------------------------------------------------------


def test_erasure_orders_by_hand(cue_models, sentences):
    model = cue_models["none"]
    for i, e in enumerate(sentences):
        with torch.no_grad():
            h = model.states(model.wte(torch.tensor([e.ids])))
            alpha = model.attention(h)[0]
            decision = int(model.readout(h, alpha[None]).argmax())
        torch.testing.assert_close(erasure.ORDERS.explain("attention", model, e.ids).scores, alpha)
        grad = h[0] @ model.head.weight[decision]  # ∂s_ŷ/∂α_t = W_c h_t
        torch.testing.assert_close(erasure.ORDERS.explain("gradient", model, e.ids).scores, grad)
        permutation = np.random.default_rng((i + seeds.offset()) % 2**32).permutation(len(e.ids))
        assert erasure.removal_order(model, e.ids, "random", seed=i) == permutation.tolist()
        assert erasure.removal_order(model, e.ids, "attention") == sorted(
            range(len(e.ids)), key=lambda t: (-float(alpha[t]), t)
        )
