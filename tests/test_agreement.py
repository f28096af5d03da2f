"""Rank agreement between attribution methods (lesson 06): against closed forms of Kendall's τ and
Spearman's ρ written out here, and the per-method scores against the attribution helpers."""

import itertools

import numpy as np
import pytest
import torch
from captum.attr import LayerIntegratedGradients

from xai_tf.explain import agreement as ag


def _kendall(a, b) -> float:
    """τ = (concordant − discordant pairs) / (n choose 2), for scores without ties."""
    signs = [np.sign(a[i] - a[j]) * np.sign(b[i] - b[j]) for i, j in itertools.combinations(range(len(a)), 2)]
    return float(np.mean(signs))


def _spearman(a, b) -> float:
    """ρ = 1 − 6 Σ d² / (n (n² − 1)), d the difference of the ranks, for scores without ties."""
    d = np.argsort(np.argsort(a)) - np.argsort(np.argsort(b))
    n = len(a)
    return 1 - 6 * float((d**2).sum()) / (n * (n**2 - 1))


def _random_scores(n_prompts: int = 5, methods=("a", "b", "c")) -> list[dict[str, torch.Tensor]]:
    g = torch.Generator().manual_seed(0)
    out = []
    for p in range(n_prompts):
        base = torch.randn(6 + p, generator=g, dtype=torch.float64)
        out.append(
            {
                m: base + k * torch.randn(6 + p, generator=g, dtype=torch.float64)
                for k, m in enumerate(methods)
            }
        )
    return out


@pytest.mark.parametrize(("statistic", "closed_form"), [("kendall", _kendall), ("spearman", _spearman)])
@pytest.mark.parametrize("by", ag.ORDERINGS)
def test_rank_agreement_matches_the_closed_forms(statistic, closed_form, by):
    scores = _random_scores()
    result = ag.rank_agreement(scores, statistic, by)
    assert result.methods == ("a", "b", "c") and result.per_prompt.shape == (5, 3, 3)
    for p, prompt in enumerate(scores):
        cols = [prompt[m].numpy() for m in result.methods]
        cols = [np.abs(c) for c in cols] if by == "magnitude" else cols
        for i, j in itertools.product(range(3), repeat=2):
            want = 1.0 if i == j else closed_form(cols[i], cols[j])
            assert result.per_prompt[p, i, j] == pytest.approx(want, abs=1e-12)
    np.testing.assert_allclose(result.mean, result.per_prompt.mean(0))
    np.testing.assert_allclose(result.std, result.per_prompt.std(0))
    assert 0 < result.std[0, 2]  # the prompts disagree by different amounts


def test_magnitude_ignores_the_sign_and_signed_does_not():
    a = torch.tensor([0.5, -2.0, 1.0, -3.0])
    scores = [{"x": a, "-x": -a}]
    assert ag.rank_agreement(scores, by="signed").mean[0, 1] == pytest.approx(-1.0)
    assert ag.rank_agreement(scores, by="magnitude").mean[0, 1] == pytest.approx(1.0)


def test_method_scores_are_the_attribution_helpers(bundled):
    ids = bundled.encode("To be, or not to be")
    with torch.no_grad():
        target = int(bundled.model(ids)[0, -1].argmax())
    scores = ag.method_scores(bundled, ids, target, n_steps=20)
    assert tuple(scores) == ag.DEFAULT_METHODS and all(s.shape == (len(ids),) for s in scores.values())
    model, t_ids = bundled.model, torch.tensor(ids)
    lig = LayerIntegratedGradients(lambda b: model(b)[:, -1, target], model.wte)
    captum = lig.attribute(t_ids[None], torch.zeros_like(t_ids)[None], n_steps=20)[0].sum(-1)
    torch.testing.assert_close(scores["IG"], captum.detach(), atol=1e-4 * float(captum.abs().max()), rtol=0)
    E = model.embed(t_ids).detach().requires_grad_(True)
    (grad,) = torch.autograd.grad(model.forward_embeddings(E[None])[0, -1, target], E)
    torch.testing.assert_close(scores["G-L2"], grad.pow(2).mean(-1).sqrt(), atol=1e-6, rtol=1e-4)
    torch.testing.assert_close(scores["gradient × input"], (grad * E).sum(-1).detach(), atol=1e-5, rtol=1e-4)
    space = bundled.tokenizer.encode(" ")[0]
    with torch.no_grad():
        full = float(model(ids)[0, -1, target])
        replaced = float(model([space if t == 2 else i for t, i in enumerate(ids)])[0, -1, target])
    assert float(scores["leave-one-out"][2]) == pytest.approx(full - replaced, abs=1e-4)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: ag.rank_agreement(_random_scores(), "pearson"), "statistic must be one of"),
        (lambda: ag.rank_agreement(_random_scores(), by="abs"), "by must be one of"),
        (lambda: ag.rank_agreement([]), "scores must be a non-empty list"),
        (lambda: ag.rank_agreement([{"a": torch.ones(3)}]), "scores must name at least 2 methods"),
        (
            lambda: ag.rank_agreement(_random_scores(2) + [{"a": torch.ones(3)}]),
            r"scores\[2\] must map the same",
        ),
        (lambda: ag.rank_agreement([{"a": torch.rand(3), "b": torch.rand(4)}]), "one score per token"),
        (lambda: ag.rank_agreement([{"a": torch.rand(3), "b": torch.ones(3)}]), "not all equal"),
        (
            lambda: ag.rank_agreement([{"a": torch.rand(3), "b": torch.tensor([1, float("nan"), 2])}]),
            "finite",
        ),
    ],
)
def test_bad_agreement_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_method_scores_names_unknown_methods(bundled):
    with pytest.raises(ValueError, match="methods must be a non-empty list of names from"):
        ag.method_scores(bundled, [1, 2, 3], 4, methods=("IG", "SHAP"))
