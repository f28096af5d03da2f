"""Lesson 15's helpers against independent references: TransformerLens (its ``TransformerBridge``
around a Hugging Face GPT-2 holding the same weights, and ``transformer_lens.patching``) for the
attention patterns, induction scores, logit differences and activation-patching grids; a float64
central finite difference for attribution patching; numpy float64 for the composition score."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import transformers
from conftest import random_hf_gpt2
from numerics import rescored

from xai_tf import circuits as C
from xai_tf.models.gpt2 import GPT2

patching = pytest.importorskip("transformer_lens.patching")
_builder = pytest.importorskip("transformer_lens.model_bridge.sources._bridge_builder")

TOL = 1e-5


def _bridge(hf: transformers.GPT2LMHeadModel):
    return _builder.build_bridge_from_module(hf, "GPT2LMHeadModel", hf_config=hf.config)


def _hf_from_ours(gpt2: GPT2) -> transformers.GPT2LMHeadModel:
    """A Hugging Face GPT-2 (eager attention) holding our weights: Conv1D weights are our transposes."""
    c = gpt2.config
    config = transformers.GPT2Config(
        attn_implementation="eager",
        vocab_size=c.vocab_size,
        n_positions=c.n_ctx,
        n_embd=c.n_embd,
        n_layer=c.n_layer,
        n_head=c.n_head,
        layer_norm_epsilon=c.layer_norm_epsilon,
        activation_function="gelu_new",
    )
    hf = transformers.GPT2LMHeadModel(config).eval()
    conv1d = ("c_attn.weight", "c_proj.weight", "c_fc.weight")
    state = {
        f"transformer.{k}": (v.t() if k.endswith(conv1d) else v).detach().clone()
        for k, v in gpt2.state_dict().items()
    }
    state["lm_head.weight"] = state["transformer.wte.weight"]
    hf.load_state_dict(state, strict=False)
    return hf


def _random_pair(seed: int, **sizes) -> tuple[GPT2, object]:
    hf = random_hf_gpt2(seed, **sizes)
    return GPT2.from_hf(hf), _bridge(hf)


SIZES = [
    dict(vocab_size=50, n_positions=32, n_embd=16, n_layer=2, n_head=2),
    dict(vocab_size=97, n_positions=40, n_embd=24, n_layer=3, n_head=3),
]


@pytest.fixture(scope="module")
def bundled_pair(bundled):
    return bundled, _bridge(_hf_from_ours(bundled.model))


def _prompts(vocab: int, T: int, seed: int) -> tuple[torch.Tensor, torch.Tensor, int, int]:
    g = torch.Generator().manual_seed(seed)
    clean = torch.randint(0, vocab, (1, T), generator=g)
    corrupted = clean.clone()
    corrupted[0, T // 3] = (clean[0, T // 3] + 1) % vocab
    return clean, corrupted, int(clean[0, T // 3]), int(corrupted[0, T // 3])


def _check_scores(ours, bridge, ids: torch.Tensor) -> None:
    pattern = C.attention_patterns(ours, ids)
    _, cache = bridge.run_with_cache(ids)
    L, half = pattern.size(0), ids.size(1) // 2
    theirs = torch.stack([cache[f"blocks.{layer}.attn.hook_pattern"] for layer in range(L)])
    torch.testing.assert_close(pattern, theirs, atol=TOL, rtol=0)
    # the scores by a hand loop over TransformerLens's patterns
    ind = torch.zeros(pattern.shape[0], pattern.shape[2])
    prev = torch.zeros_like(ind)
    for layer in range(L):
        for h in range(pattern.shape[2]):
            a = theirs[layer, :, h].double()
            ind[layer, h] = np.mean(
                [a[b, t, t - half + 1].item() for b in range(a.shape[0]) for t in range(half, 2 * half)]
            )
            prev[layer, h] = np.mean(
                [a[b, t, t - 1].item() for b in range(a.shape[0]) for t in range(1, 2 * half)]
            )
    torch.testing.assert_close(C.induction_scores(pattern), ind, atol=TOL, rtol=0)
    torch.testing.assert_close(C.previous_token_scores(pattern), prev, atol=TOL, rtol=0)


@pytest.mark.parametrize("sizes", SIZES)
def test_induction_scores_equal_transformer_lens_on_random_models(sizes):
    ours, bridge = _random_pair(1, **sizes)
    _check_scores(ours, bridge, C.repeated_tokens(ours, 6, batch=3, seed=0))


def test_induction_scores_equal_transformer_lens_on_the_bundled_model(bundled_pair):
    ours, bridge = bundled_pair
    _check_scores(ours, bridge, C.repeated_tokens(ours, 20, batch=2, seed=0))


def test_repeated_tokens_repeat_and_the_loss_is_the_cross_entropy(bundled):
    ids = C.repeated_tokens(bundled, 7, batch=2, seed=3)
    assert ids.shape == (2, 14) and torch.equal(ids[:, :7], ids[:, 7:])
    logits = bundled(ids).double()
    hand = [[-torch.log_softmax(logits[b, t], -1)[ids[b, t + 1]].item() for t in range(13)] for b in range(2)]
    torch.testing.assert_close(
        C.per_token_loss(bundled, ids).double(), torch.tensor(hand, dtype=torch.float64), atol=1e-4, rtol=0
    )


TL_GRIDS = {
    "resid_pre": patching.get_act_patch_resid_pre,
    "attn_out": patching.get_act_patch_attn_out,
    "mlp_out": patching.get_act_patch_mlp_out,
    "z": patching.get_act_patch_attn_head_out_all_pos,
}


def _check_grids(ours, bridge, clean, corrupted, correct, wrong, normalised: bool) -> None:
    """Ours and TransformerLens's grids of the (normalised, or raw) logit difference agree.

    A random GPT-2 has a clean − corrupted gap of 0.01-0.5, so its normalised metric divides float32
    noise by that gap: random models are compared on the raw logit difference, the bundled model on
    the normalised one."""
    normalised_metric = C.logit_difference_metric(ours, clean, corrupted, correct, wrong)
    metric = normalised_metric if normalised else normalised_metric.raw
    _, clean_cache = bridge.run_with_cache(clean)
    _, corrupted_cache = bridge.run_with_cache(corrupted)
    with torch.no_grad():
        ld = [normalised_metric.raw(bridge(ids)).item() for ids in (clean, corrupted)]
    assert abs(normalised_metric.clean - ld[0]) <= TOL and abs(normalised_metric.corrupted - ld[1]) <= TOL
    for component, theirs in TL_GRIDS.items():
        for direction, target, cache in (
            ("denoising", corrupted, clean_cache),
            ("noising", clean, corrupted_cache),
        ):
            grid = C.activation_patching(ours, clean, corrupted, metric, component, direction)
            expected = theirs(bridge, target, cache, lambda logits: metric(logits)[0])
            torch.testing.assert_close(
                grid, expected.to(grid.dtype), atol=TOL, rtol=0, msg=f"{component} {direction}"
            )


@pytest.mark.parametrize("sizes", SIZES)
def test_patching_grids_equal_transformer_lens_on_random_models(sizes):
    ours, bridge = _random_pair(2, **sizes, initializer_range=0.2)  # logit differences of order 0.1-1
    _check_grids(ours, bridge, *_prompts(sizes["vocab_size"], 7, seed=5), normalised=False)


def test_patching_grids_equal_transformer_lens_on_the_bundled_model(bundled_pair):
    ours, bridge = bundled_pair
    clean = torch.tensor([ours.encode("Romeo, Romeo, wherefore art thou")])
    corrupted = clean.clone()
    corrupted[0, 0] = ours.encode(" Hamlet")[0]
    correct, wrong = ours.encode(" Romeo")[0], ours.encode(" Hamlet")[0]
    _check_grids(ours, bridge, clean, corrupted, correct, wrong, normalised=True)


def test_normalised_metric_is_zero_on_corrupted_and_one_on_clean():
    ours, _ = _random_pair(3, **SIZES[0])
    clean, corrupted, c, w = _prompts(50, 6, seed=1)
    metric = C.logit_difference_metric(ours, clean, corrupted, c, w)
    out = metric(ours(torch.cat([clean, corrupted])))
    torch.testing.assert_close(out, torch.tensor([1.0, 0.0]), atol=1e-5, rtol=0)


@pytest.mark.parametrize("component", list(C.COMPONENTS))
@pytest.mark.parametrize("direction", ["denoising", "noising"])
def test_attribution_patching_is_the_directional_derivative(component, direction):
    """The estimate − m_target equals the float64 central difference of m along a_source − a_target."""
    ours, _ = _random_pair(4, **SIZES[1])
    clean, corrupted, c, w = _prompts(97, 6, seed=2)
    metric = C.logit_difference_metric(ours, clean, corrupted, c, w)
    estimate = C.attribution_patching(ours, clean, corrupted, metric, component, direction)
    model = ours.double()
    source, target = (clean, corrupted) if direction == "denoising" else (corrupted, clean)
    _, src = model.run_with_cache(source)
    _, tgt = model.run_with_cache(target)
    with torch.no_grad():
        m0 = metric(model(target)).item()
    eps = 1e-5
    n = ours.config.n_head if component == "z" else 6
    for layer in range(ours.config.n_layer):
        for i in range(n):
            step = torch.zeros_like(src[component, layer])
            step[0, i] = (src[component, layer] - tgt[component, layer])[0, i]

            def moved(sign, layer=layer, step=step):
                return metric(
                    model(target, hooks={(component, layer): lambda a: a + sign * eps * step})
                ).item()

            derivative = (moved(1) - moved(-1)) / (2 * eps)
            assert abs(estimate[layer, i].item() - (m0 + derivative)) <= 2e-4, (layer, i)
    ours.float()


def test_attribution_patching_is_exact_where_patching_is_linear():
    """With LN_f replaced by the identity, the last layer's MLP output reaches the logits linearly
    (through W_U alone), so the raw logit difference is linear in it: there the first-order estimate
    is the exact patch, cell by cell. (The last layer's heads are not a linear case: their output
    passes through LN_2 and the MLP.)"""
    ours = GPT2.from_hf(random_hf_gpt2(5, **SIZES[1], initializer_range=0.2))
    ours.ln_f = torch.nn.Identity()
    clean, corrupted, c, w = _prompts(97, 6, seed=3)
    metric = C.logit_difference_metric(ours, clean, corrupted, c, w).raw
    last = ours.config.n_layer - 1
    for direction in ("denoising", "noising"):
        exact = C.activation_patching(ours, clean, corrupted, metric, "mlp_out", direction)[last]
        estimate = C.attribution_patching(ours, clean, corrupted, metric, "mlp_out", direction)[last]
        assert (exact - exact[0]).abs().max() > 0.1  # the patch moves the metric: the test can fail
        torch.testing.assert_close(estimate, exact, atol=1e-5, rtol=0)


def test_k_composition_equals_numpy_float64(bundled):
    for (l1, h1), (l2, h2) in [((0, 1), (1, 2)), ((2, 0), (5, 3))]:
        _, W_OV = C.qk_ov(bundled, l1, h1)
        W_QK, _ = C.qk_ov(bundled, l2, h2)
        a, b = W_QK.double().numpy(), W_OV.double().numpy()
        expected = np.linalg.norm(a @ b.T) / (np.linalg.norm(a) * np.linalg.norm(b))
        assert abs(C.k_composition(W_QK, W_OV).item() - expected) <= 1e-5


def test_qk_ov_reproduce_the_attention_scores(bundled):
    """With the biases zeroed in a copy, x̂_i W_QK x̂_jᵀ / √d_h are the head's scores and A x̂ W_OV is
    what it writes (z W_O^h), x̂ LN_1's normalised input."""
    import copy

    model = copy.deepcopy(bundled.model)
    for block in model.h:
        block.attn.c_attn.bias.data.zero_()
        block.attn.c_proj.bias.data.zero_()
        block.ln_1.bias.data.zero_()
    ids = torch.tensor([bundled.encode("To be, or not to be")])
    _, cache = model.run_with_cache(ids)
    layer, head = 2, 1
    x = cache["resid_pre", layer][0]
    x_hat = (x - x.mean(-1, keepdim=True)) / torch.sqrt(x.var(-1, unbiased=False, keepdim=True) + 1e-5)
    W_QK, W_OV = C.qk_ov(model, layer, head)
    d_h = 256 // 4
    scores = (x_hat @ W_QK @ x_hat.t()) / d_h**0.5
    mask = torch.ones_like(scores, dtype=torch.bool).triu(1)
    torch.testing.assert_close(
        scores.masked_fill(mask, -torch.inf).softmax(-1), cache["attn", layer][0, head], atol=1e-4, rtol=0
    )
    W_O = model.h[layer].attn.c_proj.weight[:, head * d_h : (head + 1) * d_h].t()
    written = cache["attn", layer][0, head] @ x_hat @ W_OV
    torch.testing.assert_close(written, cache["z", layer][0, head] @ W_O, atol=1e-4, rtol=0)


def test_k_composition_baseline_matches_numpy(bundled):
    mean, std = C.k_composition_baseline(32, 8, samples=400, seed=0)
    rng = np.random.default_rng(0)
    draws = []
    for _ in range(400):
        U, V, U2, V2 = (
            rng.standard_normal((32, 8)),
            rng.standard_normal((32, 8)),
            rng.standard_normal((32, 8)),
            rng.standard_normal((8, 32)),
        )
        a, b = U @ V.T, U2 @ V2
        draws.append(np.linalg.norm(a @ b.T) / (np.linalg.norm(a) * np.linalg.norm(b)))
    assert abs(mean - np.mean(draws)) <= 3 * np.std(draws) / np.sqrt(400) * 2


def test_ablation_zero_and_mean(bundled):
    ids = C.repeated_tokens(bundled, 5, batch=2, seed=1)

    def hand(how):
        def hook(z):
            z = z.clone()
            z[:, 1] = 0 if how == "zero" else z[:, 1].mean(dim=(0, 1))
            return z

        with torch.no_grad():
            logits = bundled(ids, hooks={("z", 3): hook})
        return torch.nn.functional.cross_entropy(
            logits[:, :-1].reshape(-1, logits.size(-1)), ids[:, 1:].reshape(-1), reduction="none"
        ).view(2, 9)

    for how in ("zero", "mean"):
        torch.testing.assert_close(C.ablate_head(bundled, ids, 3, 1, how), hand(how))


def test_the_checker_passes_the_helper_and_names_the_known_mistakes(capsys):
    from xai_tf.exercises.circuits import check_induction_scores

    assert check_induction_scores(C.induction_scores)
    half = 5
    assert not check_induction_scores(lambda p: p.diagonal(-half, -2, -1).mean(dim=(1, 3)))
    assert "earlier copy of x_t itself" in capsys.readouterr().out
    assert not check_induction_scores(lambda p: p.diagonal(-1, -2, -1).mean(dim=(1, 3)))
    assert "previous-token score" in capsys.readouterr().out


def test_the_panel_draws_every_component_and_method(bundled):
    """Every component and method draws the grid as buttons (layers × positions or heads) whose labels
    are the grid's values; clicking a button selects that cell and shows its patched run's top tokens."""
    from xai_tf.widgets.circuits import patching_panel

    clean, corrupted = "Enter Romeo and Juliet", "Enter Hamlet and Juliet"
    panel = patching_panel(bundled, clean, corrupted, " Romeo", " Hamlet")
    ids = [torch.tensor([bundled.encode(t)]) for t in (clean, corrupted)]
    metric = C.logit_difference_metric(
        bundled, *ids, bundled.encode(" Romeo")[0], bundled.encode(" Hamlet")[0]
    )
    for method, run in (("exact", C.activation_patching), ("attribution", C.attribution_patching)):
        panel["method"].value = method
        for component in C.COMPONENTS:
            panel["component"].value = component
            assert panel.message.value == "" and "top next tokens" in panel.view.value, (method, component)
            buttons = [w for w in panel.cells.children[0].children if hasattr(w, "on_click")]
            grid = run(bundled, *ids, metric, component, "denoising")
            assert [b.description for b in buttons] == [f"{v:.2f}" for v in grid.flatten().tolist()]
    buttons[1 * bundled.n_head + 2].click()  # the "z" grid: layer 1, head 2
    assert (panel["layer"].value, panel["cell"].value) == (1, 2)
    assert "layer 1, head 2" in panel.view.value and panel.message.value == ""
    outlined = [b for b in panel.cells.children[0].children if getattr(b, "layout", None) and b.layout.border]
    assert [b.layout.border for b in outlined].count("2px solid black") == 1


def test_score_grids_are_drawn_on_0_to_1_and_patching_grids_on_plus_minus_scale():
    """plot_induction's two score grids colour 0..1, as their titles say; a patching grid (signed) keeps
    the diverging ±scale bar with 0 in its middle."""
    import matplotlib.pyplot as plt

    from xai_tf.widgets.circuits import plot_grid, plot_induction

    scores = torch.tensor([[0.0, 0.3], [0.9, 0.5]])
    fig = plot_induction(torch.rand(3, 9), scores, scores, 5)
    for ax in fig.axes[1:3]:
        assert "0..1" in ax.get_title() and ax.images[0].get_clim() == (0.0, 1.0)
    ax = plot_grid(torch.tensor([[-0.5, 0.2]]), ["a", "b"])
    assert ax.images[0].get_clim() == (-0.5, 0.5)
    plt.close("all")


def test_patched_top_tokens_of_a_cell_equal_the_grid_run(bundled):
    """The panel's table reads the same patched run as the grid's cell: its probabilities are the
    softmax of the run in which only that cell is patched."""
    clean = torch.tensor([bundled.encode("Enter Romeo and Juliet")])
    corrupted = torch.tensor([bundled.encode("Enter Hamlet and Juliet")])
    top = C.patching.patched_top_tokens(bundled, clean, corrupted, "resid_pre", 0, 1, k=3)
    with torch.no_grad():
        _, cache = bundled.run_with_cache(clean)
        replaced = torch.cat(
            [cache["resid_pre", 0][:, :2], bundled.run_with_cache(corrupted)[1]["resid_pre", 0][:, 2:]], 1
        )
        replaced[:, 0] = bundled.run_with_cache(corrupted)[1]["resid_pre", 0][:, 0]
        probs = bundled(corrupted, hooks={("resid_pre", 0): lambda a: replaced})[0, -1].softmax(-1)
    want = probs.topk(3)
    assert [t for t, _ in top] == bundled.token_strings(want.indices.tolist())
    assert max(abs(p - q) for (_, p), q in zip(top, want.values.tolist(), strict=True)) < 1e-6


def test_repeat_batch_is_the_layout_of_a_hand_loop():
    """Each row: random tokens, then from a random p a segment of random length L repeated to the end;
    rebuilt by a Python loop from the same draws (same generator, same order)."""
    from xai_tf.circuits.induction_training import RepeatData, repeat_batch

    data = RepeatData(T=20, L_min=2, L_max=6)
    ids = repeat_batch(data, 7, 50, torch.Generator().manual_seed(3))
    g = torch.Generator().manual_seed(3)
    x = torch.randint(0, 7, (50, 20), generator=g)
    L = torch.randint(2, 7, (50, 1), generator=g)
    p = torch.randint(0, 10, (50, 1), generator=g)
    for b in range(50):
        row = x[b].tolist()
        for t in range(int(p[b]) + int(L[b]), 20):
            row[t] = row[t - int(L[b])]
        assert ids[b].tolist() == row
    assert set(L.flatten().tolist()) == set(range(2, 7)) and p.min() == 0 and p.max() == 9


@pytest.mark.numerics
def test_the_shipped_induction_model_is_current_and_scores_its_recorded_metrics(monkeypatch):
    """The weights were trained by the code as it is now (``artifacts`` fingerprint of the training
    module's import graph), and re-measuring them at the recorded seed offset gives every recorded
    number (float32 on another CPU: to 1e-4)."""
    from xai_tf.circuits import shipped

    record = shipped.recorded()
    assert record["fingerprint"] == shipped.fingerprint(), (
        "the induction model is stale: run OMP_NUM_THREADS=1 python scripts/train_induction.py"
    )
    monkeypatch.setenv("XAI_TF_SEED_OFFSET", str(record["seed offset"]))
    lm = shipped.induction_model()
    assert lm.model.config.to_dict() == record["config"]
    for name, want in record["reports"].items():
        got = shipped.induction_report(lm, want["half"])
        assert got.keys() == want.keys(), name
        for key, value in want.items():
            if isinstance(value, float):
                rescored(f"induction {name}", key, got[key], value, 1e-4)
            elif key == "K-composition baseline":
                assert got[key] == pytest.approx(value, abs=1e-4), (name, key)
            else:
                assert got[key] == value, (name, key)


@pytest.mark.numerics
def test_induction_report_is_the_helpers_it_names(bundled):
    """On the bundled model the report's numbers are the lesson's helpers called one by one."""
    from xai_tf.circuits import shipped

    report = shipped.induction_report(bundled, 6, batch=3, seed=2)
    ids = C.repeated_tokens(bundled, 6, batch=3, seed=2)
    loss = C.per_token_loss(bundled, ids)
    pattern = C.attention_patterns(bundled, ids)
    ind, prev = C.induction_scores(pattern), C.previous_token_scores(pattern)
    assert report["induction head"] == list(divmod(int(ind.argmax()), 4))
    assert report["induction score"] == pytest.approx(ind.max().item())
    assert report["previous-token head"] == list(divmod(int(prev.argmax()), 4))
    assert report["loss second half"] == pytest.approx(loss[:, 6:].mean().item())
    assert report["loss first half"] == pytest.approx(loss[:, :5].mean().item())
    W_QK, _ = C.qk_ov(bundled, *report["induction head"])
    _, W_OV = C.qk_ov(bundled, *report["previous-token head"])
    assert report["K-composition"] == pytest.approx(C.k_composition(W_QK, W_OV).item())
    ablated = C.ablate_head(bundled, ids, *report["induction head"], how="mean")
    assert report["loss second half, induction head mean-ablated"] == pytest.approx(
        ablated[:, 6:].mean().item()
    )


def _gpt2_shaped():
    """GPT-2 small's tokenizer, vocabulary, 12 layers and 12 heads, random weights of width 48."""
    from xai_tf.models import tokenization
    from xai_tf.models.gpt2 import GPT2Config
    from xai_tf.models.loaded import LoadedModel

    torch.manual_seed(0)
    config = GPT2Config(n_ctx=64, n_embd=48, n_layer=12, n_head=12)
    return LoadedModel(GPT2(config).eval(), tokenization.gpt2(), "gpt2-shaped")


def test_ioi_pairs_differ_in_the_second_subject_only():
    from xai_tf.circuits import ioi

    lm = _gpt2_shaped()
    pairs = ioi.ioi_pairs(lm, 6, seed=1)
    for clean, corrupted, io, s in pairs:
        assert clean.shape == corrupted.shape and clean.size(0) == 1
        differ = (clean != corrupted).nonzero()[:, 1].tolist()
        assert len(differ) == 1 and clean[0, differ[0]] == s and corrupted[0, differ[0]] == io
        text = lm.tokenizer.decode(clean[0].tolist())
        names = [lm.tokenizer.decode([t]) for t in (io, s)]
        assert names[0] != names[1] and all(n in ioi.NAMES for n in names)
        assert text.count(names[0]) == 1 and text.count(names[1]) == 2
    assert ioi.ioi_pairs(lm, 6, seed=1)[3][0].tolist() == pairs[3][0].tolist()  # seeded


def test_ioi_head_grid_is_the_mean_of_hand_patched_heads():
    """Every cell: the corrupted run with that head's output z^{l,h} set to its clean value, scored
    by the normalised IO − S logit difference, averaged over the pairs (two hand-patched cells)."""
    from xai_tf.circuits import ioi

    lm = _gpt2_shaped()
    grid = ioi.ioi_head_grid(lm, 2, seed=0)
    assert grid.shape == (12, 12) and torch.isfinite(grid).all()
    for layer, head in ((9, 6), (0, 11)):
        values = []
        for clean, corrupted, io, s in ioi.ioi_pairs(lm, 2, seed=0):
            _, cache = lm.run_with_cache(clean)

            def patch(z, layer=layer, head=head, cache=cache):
                z = z.clone()
                z[:, head] = cache["z", layer][:, head]
                return z

            with torch.no_grad():
                ld = [(lm(ids)[0, -1, io] - lm(ids)[0, -1, s]).item() for ids in (clean, corrupted)]
                out = lm(corrupted, hooks={("z", layer): patch})[0, -1]
            values.append(((out[io] - out[s]).item() - ld[1]) / (ld[0] - ld[1]))
        assert grid[layer, head].item() == pytest.approx(np.mean(values), abs=1e-4)
    assert ioi.top_heads(grid, 2)[0][2] == grid.max().item()


def test_odd_but_valid_input_gives_the_documented_value():
    """Issue 43's documented values: ids of any integer dtype are the same ids; mixed float32/float64
    matrices are promoted (C_K in float64); C_K is scale-free, so 1e20·I (whose norm overflows float32)
    scores as I, 1/√d."""
    from xai_tf.models.loaded import as_model

    lm = as_model(
        GPT2.from_hf(random_hf_gpt2(0, vocab_size=50, n_positions=16, n_embd=16, n_layer=2, n_head=2))
    )
    for dtype in (torch.uint8, torch.int16, torch.int32):
        clean, corrupted = C.metrics.prompt_pair(lm, torch.tensor([[1, 2, 3]], dtype=dtype), [4, 5, 6])
        assert (
            clean.dtype == torch.long and clean.tolist() == [[1, 2, 3]] and corrupted.tolist() == [[4, 5, 6]]
        )
    g = torch.Generator().manual_seed(0)
    A, B = (
        torch.randn(4, 4, generator=g, dtype=torch.float64),
        torch.randn(4, 4, generator=g, dtype=torch.float64),
    )
    mixed = C.k_composition(A.float(), B)
    reference = np.linalg.norm(A.numpy() @ B.numpy().T) / (
        np.linalg.norm(A.numpy()) * np.linalg.norm(B.numpy())
    )
    assert mixed.dtype == torch.float64 and abs(float(mixed) - reference) < 1e-6
    huge = C.k_composition(1e20 * torch.eye(3), 1e20 * torch.eye(3))
    assert abs(float(huge) - 3**-0.5) < 1e-6


@pytest.mark.parametrize(
    ("box", "value", "message"),
    [
        ("answer", "", "the answer box is empty"),
        ("wrong", "", "the wrong box is empty"),
        ("clean", "  ", "the clean box is empty"),
        ("corrupted", "", "the corrupted box is empty"),
        (
            "clean",
            "Enter " * 60,
            "the clean box has 61 tokens: the panel patches prompts of at most 32 tokens",
        ),
        ("corrupted", "x" * 5000, "the corrupted box is too long: the panel patches prompts of at most 32"),
        ("answer", " Romeo and", "the answer box must hold one token of the model&#x27;s vocabulary"),
        ("wrong", " Romeo", "the answer and wrong boxes hold the same token"),
        (
            "corrupted",
            "Enter Hamlet and Juliet now",
            "the clean box has 3 tokens but the corrupted box has 5",
        ),
    ],
)
def test_the_panel_names_its_boxes_before_any_work(bundled, monkeypatch, box, value, message):
    """Each message names the panel's own box, and a bad box is refused before any model run (the
    metric, the first model run, is replaced by one that fails the test if called)."""
    from xai_tf.widgets import circuits as W

    panel = W.patching_panel(bundled, "Enter Romeo and", "Enter Hamlet and", " Romeo", " Hamlet")
    assert panel.message.value == ""

    def no_work(*args, **kwargs):
        raise AssertionError("the panel ran the model on a box it should have refused")

    monkeypatch.setattr(W.metrics, "logit_difference_metric", no_work)
    panel[box].value = value
    assert message in panel.message.value and "AssertionError" not in panel.message.value, panel.message.value


def test_report_ranges_are_the_extremes_of_the_reports_of_each_seed(bundled):
    """``report_ranges`` over 3 draws equals min and max of three ``induction_report``s and hand-computed
    scores and window losses, seed by seed; a window outside the sequence is refused by name."""
    from xai_tf.circuits import shipped

    ranges = shipped.report_ranges(bundled, 6, draws=3, batch=2, windows=((2, 4), (7, 10)))
    rows = []
    for seed in range(3):
        report = shipped.induction_report(bundled, 6, batch=2, seed=seed)
        ids = C.repeated_tokens(bundled, 6, batch=2, seed=seed)
        scores = C.induction_scores(C.attention_patterns(bundled, ids))
        loss = C.per_token_loss(bundled, ids).mean(0)
        ablated = report["loss second half, induction head mean-ablated"]
        rows.append(
            {
                "loss second half": report["loss second half"],
                "ablation's rise": ablated - report["loss second half"],
                "lowest induction score, last layer": scores[-1].min().item(),
                "highest induction score, last layer": scores[-1].max().item(),
                "highest induction score, earlier layers": scores[:-1].max().item(),
                "loss over positions 2-4": loss[2:5].mean().item(),
                "loss over positions 7-10": loss[7:11].mean().item(),
            }
        )
    for key in rows[0]:
        values = [row[key] for row in rows]
        assert ranges[key] == pytest.approx((min(values), max(values)), abs=1e-6), key
    with pytest.raises(ValueError, match="windows"):
        shipped.report_ranges(bundled, 6, draws=1, windows=((5, 11),))
