"""The one method registry and its verb (``xai_tf.explain.registry``): the registry's refusals by
name, every method run on every kind it declares, the views equal to the registry, and every method
against an independent computation — Captum (``LayerIntegratedGradients``, ``IntegratedGradients``,
``Saliency``, ``InputXGradient``) for integrated gradients and gradients, hand loops for leave-one-out
and erasure's orders, closed forms (∂s/∂α_t = W_c h_t, α = softmax(vᵀ tanh(W_a h + b_a))), and the
encoder's against Hugging Face's ``BertModel`` (its eager attentions, its last states mean-pooled)."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from captum.attr import InputXGradient, IntegratedGradients, LayerIntegratedGradients, Saliency
from references import tiny_bert

from xai_tf import seeds
from xai_tf.explain import registry
from xai_tf.explain import wordlevel as wl
from xai_tf.explain.registry import ATTRIBUTIONS, Explanation
from xai_tf.faithfulness import erasure, importance, transformer
from xai_tf.models.bert import BertEncoder
from xai_tf.models.loaded import LoadedModel
from xai_tf.tasks import cues, recurrent
from xai_tf.tasks.sentiment import SequenceClassifier


@pytest.fixture(scope="module")
def cue_models():
    train = cues.cue_sentences(200, seed=0)
    return {
        enc: recurrent.train_attention_classifier(
            train, len(cues.VOCAB), enc, options=recurrent.OPTIONS.replace(steps=40)
        )
        for enc in recurrent.ENCODERS
    }


@pytest.fixture(scope="module")
def sentences():
    return [e for e in cues.cue_sentences(8, seed=1) if len(e.ids) >= 3][:4]


# --- the registry itself ----------------------------------------------------------------------------


def test_a_registry_names_unknown_methods_kinds_and_options():
    calls = []
    reg = registry.MethodRegistry()

    @reg.register("m_1", "causal", label="M one", reads="forward", options={"k": 1})
    def method(model, inputs, target, **o):
        calls.append((model, inputs, target, o))
        return Explanation(torch.zeros(2))

    spec = reg.find("m_1")
    assert reg.find("M one") is spec and spec.model_agnostic and list(reg) == ["m_1"]
    assert spec.implementation("causal").run(None, [1], 0, **spec.settings("causal", k=5)).scores.shape == (
        2,
    )
    assert calls == [(None, [1], 0, {"k": 5})]
    assert spec.settings("causal") == {"k": 1}  # every declared option, defaults filled
    with pytest.raises(
        ValueError, match=r"method must be one of the ids \['m_1'\] \(or their labels\), got 'x'"
    ):
        reg.find("x")
    with pytest.raises(TypeError, match=r"m_1 on 'causal' models takes the options \['k'\], got \['j'\]"):
        spec.settings("causal", j=1)
    with pytest.raises(ValueError, match=r"m_1 does not explain 'encoder' models: it explains \['causal'\]"):
        spec.settings("encoder")
    for bad_id in ("G-L2", "Ig", "1ig", "grad l2", "∂"):
        with pytest.raises(ValueError, match="method_id must be lowercase ASCII"):
            reg.register(bad_id, "causal", label="x", reads="forward")
    with pytest.raises(ValueError, match="kind must be one of"):
        reg.register("m_2", "vision", label="M two", reads="forward")
    with pytest.raises(ValueError, match="reads from"):
        reg.register("m_2", "causal", label="M two", reads="weights")
    for label, reads, kind in (("M one", "forward", "causal"), ("other", "forward", "encoder")):
        with pytest.raises(ValueError, match="registered twice, or its label or reads clash"):
            reg.register("m_1", kind, label=label, reads=reads)
    with pytest.raises(ValueError, match="registered twice, or its label or reads clash"):
        reg.register("m_3", "causal", label="M one", reads="forward")  # a label names one method


def test_a_view_keys_methods_as_a_lesson_does_and_passes_each_its_own_options():
    reg = registry.MethodRegistry()
    seen = {}
    for i, options in enumerate(({"k": 1}, {"j": 2})):

        def method(model, inputs, target, i=i, **o):
            seen[i] = o
            return Explanation(torch.full((2,), float(i)))

        reg.register(f"m{i}", "attention", label=f"M{i}", reads="gradients", options=options)(method)
    view = registry.View("a test family", "attention", {"first": "m0", "second": "m1"}, registry=reg)
    assert list(view) == ["first", "second"] and view.options == {"k": 1, "j": 2}
    assert view.explain("m1", None, [1, 2], j=5).scores.tolist() == [1.0, 1.0]  # an id is accepted
    view.explain("first", None, [1, 2], j=5)
    assert seen == {0: {"k": 1}, 1: {"j": 5}}
    with pytest.raises(
        ValueError, match=r"method must be one of \['first', 'second'\] \(or the ids \['m0', 'm1'\]\)"
    ):
        view.explain("M0", None, None)
    with pytest.raises(TypeError, match=r"a test family takes the options \['j', 'k'\], got \['x'\]"):
        view.explain("first", None, None, x=1)
    for bad in ("first", [], ["first", "x"], None):
        with pytest.raises(ValueError, match="methods must be a non-empty list of names from"):
            view.check(bad)
    by_label = registry.View("all", "attention", registry=reg)  # no keys: every method, by label
    reg.register("m9", "attention", label="M9", reads="forward")(lambda *a, **o: Explanation(torch.zeros(1)))
    assert list(by_label) == ["M0", "M1", "M9"]  # follows the registry


def test_the_verb_refuses_by_name(bundled, cue_models):
    ids = bundled.encode("To be, or not")
    with pytest.raises(ValueError, match=r"method must be one of the ids \['ig', 'grad_avg'"):
        registry.explain("gradient", bundled, ids, 3)
    with pytest.raises(
        TypeError, match=r"ig on 'causal' models takes the options \['baseline', 'n_steps', 'q"
    ):
        registry.explain("ig", bundled, ids, 3, n_step=4)
    with pytest.raises(
        TypeError, match=r"ig on 'attention' models takes the options \['dtype', 'ig_max_steps'"
    ):
        registry.explain("ig", cue_models["none"], [2, 3], n_steps=4)  # each kind declares its own
    with pytest.raises(
        ValueError, match=r"grad_l2 does not explain 'attention' models: it explains \['causal'\]"
    ):
        registry.explain("grad_l2", cue_models["none"], [2, 3])
    with pytest.raises(TypeError, match="model must be a model of a kind in"):
        registry.explain("loo", "gpt2", ids)


def test_gradient_names_one_quantity_and_ids_tell_the_others_apart():
    rows = {r["id"]: r for r in registry.table()}
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", i) for i in rows)
    labels = [r["label"] for r in rows.values()]
    assert len(set(labels)) == len(labels) and "gradient" not in labels
    assert {"grad_avg", "grad_l1", "grad_l2", "grad_x_input", "grad_alpha"} <= set(rows)
    # one key per quantity: lesson 08's "gradient" is ∇·e wherever a view has it; ∂s/∂α keeps its label
    assert importance.IMPORTANCES.ids["gradient"] == "grad_x_input" and "gradient" not in erasure.ORDERS
    assert erasure.ORDERS.ids["∂s/∂α"] == "grad_alpha"
    assert rows["loo"]["model_agnostic"] and not rows["ig"]["model_agnostic"]
    assert rows["grad_alpha"]["reads"] == ("activations", "gradients")
    assert rows["loo"]["kinds"] == list(registry.MODEL_KINDS)  # leave-one-out explains every kind
    assert (
        rows["ig"]["options"]["sequence"] == {"n_steps": 32}
        and {r["id"]: r["options"] for r in registry.table("sequence")}["loo"] == {}
    )
    assert [r["id"] for r in registry.table("encoder")] == ["loo", "attention", "rollout", "flow"]


# --- every method on every kind it declares ------------------------------------------------------------


def _tiny_bert():
    hf = tiny_bert()
    return hf, LoadedModel(BertEncoder(hf), None, "tiny-bert")


@pytest.fixture(scope="module")
def tiny_models(bundled):
    torch.manual_seed(0)
    return {  # kind: (model, inputs, target)
        "causal": (bundled, bundled.encode("O Romeo, Romeo"), 7),
        "attention": (
            recurrent.AttentionClassifier(recurrent.RecurrentConfig(len(cues.VOCAB))),
            [2, 3, 4, 5],
            None,
        ),
        "sequence": (SequenceClassifier(bundled.model).eval(), bundled.encode("Thou art a knave."), None),
        "encoder": (_tiny_bert()[1], [1, 5, 6, 7, 2], None),
    }


DECLARED = [(r["id"], kind) for r in registry.table() for kind in r["kinds"]]


@pytest.mark.parametrize(("method_id", "kind"), DECLARED, ids=[f"{m}-{k}" for m, k in DECLARED])
def test_every_method_runs_on_every_kind_it_declares(tiny_models, method_id, kind):
    model, inputs, target = tiny_models[kind]
    assert registry.kind_of(model) == kind
    found = registry.explain(method_id, model, inputs, target)
    assert found.scores.shape == (len(inputs),) and torch.isfinite(found.scores).all()
    assert (
        registry.explain(registry.REGISTRY[method_id].label, model, inputs, target).scores.shape
        == found.scores.shape
    )


def test_every_view_is_the_registry_under_its_own_names(tiny_models):
    """Each key of the four views gives exactly what ``explain`` gives for its id with the view's
    settings (the views' scores equal the code before the registry: checked bit for bit on a fixed
    input when it was written, and against Captum below)."""
    views = {
        "causal": [ATTRIBUTIONS],
        "attention": [importance.IMPORTANCES, erasure.ORDERS],
        "sequence": [transformer.TRANSFORMER],
    }
    for kind, kind_views in views.items():
        model, inputs, target = tiny_models[kind]
        for view in kind_views:
            settings = view.settings()
            for key, method_id in view.ids.items():
                declared = registry.REGISTRY[method_id].kinds[kind].options
                want = registry.explain(
                    method_id, model, inputs, target, **{k: settings[k] for k in declared}
                )
                assert torch.equal(view.explain(key, model, inputs, target).scores, want.scores), (
                    view.what,
                    key,
                )


# --- the encoder against Hugging Face's BertModel ---------------------------------------------------------


def test_the_encoder_methods_equal_hand_computations_on_hugging_face_activations():
    hf, enc = _tiny_bert()
    ids = [1, 5, 6, 7, 8, 2]
    with torch.no_grad():
        out = hf(torch.tensor([ids]), output_attentions=True)
    A = torch.stack([a[0] for a in out.attentions])  # [L, H, T, T] from Hugging Face's eager attention
    torch.testing.assert_close(registry.explain("attention", enc, ids).scores, A[-1].mean(0).mean(0))
    torch.testing.assert_close(registry.explain("rollout", enc, ids).scores, wl.attention_rollout(A).mean(0))
    torch.testing.assert_close(registry.explain("flow", enc, ids).scores, wl.attention_flow(A).mean(0))
    loo = registry.explain("loo", enc, ids).scores
    with torch.no_grad():
        s = hf(torch.tensor([ids])).last_hidden_state[0].mean(0).double().numpy()
        for t in range(len(ids)):
            shorter = hf(torch.tensor([ids[:t] + ids[t + 1 :]])).last_hidden_state[0].mean(0).double().numpy()
            want = 1 - s @ shorter / np.linalg.norm(s) / np.linalg.norm(shorter)
            assert float(loo[t]) == pytest.approx(want, abs=1e-5)
    with pytest.raises(ValueError, match="target must be None for an encoder"):
        registry.explain("loo", enc, ids, 3)
    with pytest.raises(
        ValueError, match=r"ids must be one sentence of at least 2 tokens, got shape \(1, 1\)"
    ):
        registry.explain("attention", enc, [4])


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
    E = model.embed(t_ids)[None].detach()
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
        E = model.embed(ids).detach()
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
                shorter = model.embed(ids[:, [u for u in range(len(e.ids)) if u != t]])
                assert float(found["LOO"].scores[t]) == pytest.approx(
                    abs(f_x - float(_f(model)(shorter))), abs=1e-6
                )
    assert [np.isnan(x.delta) for x in found.values()] == [True, True, True, False]


def test_importances_of_the_other_class(cue_models, sentences):
    """``target`` picks f = softmax(s)_c: the negative class's IG against Captum's."""
    model, e = cue_models["bilstm"], sentences[0]
    E = model.embed(torch.tensor([e.ids])).detach()
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
    E = three.embed(torch.tensor([e.ids])).detach().requires_grad_(True)
    for c in range(3):
        found = importance.explanations(three, e.ids, ["gradient", "LOO"], target=c, **CAPTUMS_SETTINGS)
        gxi = InputXGradient(_f(three, c)).attribute(E)[0].sum(-1).abs().detach()
        torch.testing.assert_close(found["gradient"].scores, gxi, atol=1e-7, rtol=1e-5)
        with torch.no_grad():
            f_x = float(_f(three, c)(E))
            for t in range(len(e.ids)):
                shorter = three.embed(torch.tensor([e.ids[:t] + e.ids[t + 1 :]]))
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
            h = model.states(model.embed(torch.tensor([e.ids])))
            alpha = model.attention(h)[0]
            decision = int(model.readout(h, alpha[None]).argmax())
        torch.testing.assert_close(erasure.ORDERS.explain("attention", model, e.ids).scores, alpha)
        grad = h[0] @ model.head.weight[decision]  # ∂s_ŷ/∂α_t = W_c h_t
        torch.testing.assert_close(erasure.ORDERS.explain("∂s/∂α", model, e.ids).scores, grad)
        permutation = np.random.default_rng((i + seeds.offset()) % 2**32).permutation(len(e.ids))
        assert erasure.removal_order(model, e.ids, "random", seed=i) == permutation.tolist()
        assert erasure.removal_order(model, e.ids, "attention") == sorted(
            range(len(e.ids)), key=lambda t: (-float(alpha[t]), t)
        )
