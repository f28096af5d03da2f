"""The CausalLM protocol (models/architecture.py): GPT-2 and a random tiny Llama meet it, every causal
method of lessons 04-06, 10 and 15 runs on the Llama against an independent reference (Hugging Face's
LlamaForCausalLM, Captum), and no helper reads GPT-2's own attribute names (a grep)."""

import io
import re
import tokenize
from pathlib import Path

import pytest
import torch
import transformers
from captum.attr import LayerIntegratedGradients

from xai_tf import circuits
from xai_tf.explain import attribution as attr
from xai_tf.explain.lens import logit_lens
from xai_tf.models import GPT2, GPT2Config, KVCache, LoadedModel, causal
from xai_tf.models.architecture import CausalLM
from xai_tf.models.llama import Llama
from xai_tf.models.rope import rotary
from xai_tf.sae.activations import collect
from xai_tf.transformer import decoding

ROOT = Path(__file__).resolve().parents[1]
V, T = 64, 12


def _hf_llama(n_kv: int, seed: int = 0) -> transformers.LlamaForCausalLM:
    torch.manual_seed(seed)
    config = transformers.LlamaConfig(
        vocab_size=V,
        hidden_size=32,
        intermediate_size=48,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=n_kv,
        max_position_embeddings=32,
        tie_word_embeddings=False,
        attn_implementation="eager",
    )
    return transformers.LlamaForCausalLM(config).eval()


@pytest.fixture(scope="module", params=[1, 2])
def pair(request) -> tuple[transformers.LlamaForCausalLM, LoadedModel]:
    """A random tiny HF Llama (4 query heads over ``n_kv`` key/value heads) and ours with its weights."""
    hf = _hf_llama(request.param)
    return hf, LoadedModel(Llama.from_hf(hf), None, f"tiny-llama-kv{request.param}")


def _ids(seed: int = 1, n: int = T) -> torch.Tensor:
    return torch.randint(1, V, (n,), generator=torch.Generator().manual_seed(seed))


def test_both_architectures_meet_the_protocol_and_causal_accepts_them(pair):
    gpt2 = GPT2(GPT2Config(vocab_size=V, n_ctx=32, n_embd=32, n_layer=2, n_head=4))
    for net in (gpt2, pair[1].model):
        assert isinstance(net, CausalLM)
        assert causal(net, "a test").model is net
    assert pair[1].sizes.n_kv_head == pair[0].config.num_key_value_heads
    assert gpt2.sizes.n_kv_head == 4
    for net in (gpt2, pair[1].model):
        with pytest.raises(ValueError, match="layer must be an integer in 0..1, got 2"):
            net.head_weights(2)


@pytest.mark.parametrize("arch", ["gpt2", "llama"])
def test_head_weights_rebuild_the_cached_queries_keys_values_and_output(arch, pair):
    """q, k, v of every query head from the normalised stream and HeadWeights (biases are zero at init),
    and attn_out = Σ_h z_h W_O^h: the layout of architecture.HeadWeights, checked on the forward pass."""
    if arch == "gpt2":
        torch.manual_seed(0)
        net = GPT2(GPT2Config(vocab_size=V, n_ctx=32, n_embd=32, n_layer=2, n_head=4)).eval()
        with torch.no_grad():
            for name, p in net.named_parameters():  # LN gains away from 1, so folding γ in is tested
                if name.endswith("ln_1.weight"):
                    p.add_(0.1 * torch.randn_like(p))
    else:
        net = pair[1].model
    ids = _ids()
    with torch.no_grad():
        _, cache = net.run_with_cache(ids)
    H, H_kv = net.sizes.n_head, net.sizes.n_kv_head
    for layer in range(2):
        w = net.head_weights(layer)
        x = cache["resid_pre", layer][0]
        if arch == "gpt2":
            x_hat = (x - x.mean(-1, keepdim=True)) / (x.var(-1, unbiased=False, keepdim=True) + 1e-5).sqrt()
            bias = net.h[layer].attn.c_attn.bias.detach().view(3, H, -1)
        else:
            x_hat = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
            bias = torch.zeros(3, H, w.W_Q.size(-1))
        for h in range(H):
            q, k, v = (x_hat @ W[h] + bias[i, h] for i, W in enumerate((w.W_Q, w.W_K, w.W_V)))
            if w.rotation is not None:
                positions = torch.arange(T)
                q, k = rotary(q[None], positions, 10000.0)[0], rotary(k[None], positions, 10000.0)[0]
            kv_head = h // (H // H_kv)
            torch.testing.assert_close(q, cache["q", layer][0, h], atol=2e-5, rtol=1e-4)
            torch.testing.assert_close(k, cache["k", layer][0, kv_head], atol=2e-5, rtol=1e-4)
            torch.testing.assert_close(v, cache["v", layer][0, kv_head], atol=2e-5, rtol=1e-4)
        z = cache["z", layer][0]  # [H, T, d_h]
        written = torch.einsum("htk,hkd->td", z, w.W_O)
        bias_o = 0.0 if arch == "llama" else net.h[layer].attn.c_proj.bias.detach()
        torch.testing.assert_close(written + bias_o, cache["attn_out", layer][0], atol=2e-5, rtol=1e-4)


def test_qk_at_an_offset_gives_the_rotated_score(pair):
    """Under RoPE, x̂_i W_QK(δ) x̂_jᵀ is the cached q_i · k_j for keys j = i − δ and not for other keys:
    the K-composition score of lesson 15 is per offset (offset 0 is one of them, an approximation)."""
    net = pair[1].model
    with torch.no_grad():
        _, cache = net.run_with_cache(_ids())
    x = cache["resid_pre", 1][0]
    x_hat = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
    group = net.sizes.n_head // net.sizes.n_kv_head
    for head, delta in ((0, 0), (3, 5)):
        W_QK, _ = circuits.qk_ov(pair[1], 1, head, offset=delta)
        scores = cache["q", 1][0, head] @ cache["k", 1][0, head // group].T  # [T, T], before 1/√d_h
        i = torch.arange(delta, T)
        bilinear = ((x_hat[i] @ W_QK) * x_hat[i - delta]).sum(-1)
        torch.testing.assert_close(bilinear, scores[i, i - delta], atol=2e-5, rtol=1e-4)
        other = ((x_hat[i] @ W_QK) * x_hat[i - delta - 1 if delta else i]).sum(-1)
        assert not torch.allclose(other, scores[i, i - delta - 1 if delta else i], atol=1e-3) or delta == 0


def test_integrated_gradients_equal_captums_on_the_hf_llama(pair):
    hf, lm = pair
    ids, target = _ids(), 7
    ours = attr.integrated_gradients(lm, ids, target, baseline="token0", n_steps=16)
    lig = LayerIntegratedGradients(lambda x: hf(x).logits[:, -1, target], hf.model.embed_tokens)
    theirs = lig.attribute(ids[None], baselines=torch.zeros_like(ids)[None], n_steps=16)[0].detach()
    torch.testing.assert_close(ours.attributions, theirs, atol=2e-5, rtol=1e-3)
    assert ours.relative_delta < 0.05


def test_gradients_and_leave_one_out_equal_the_hf_llama(pair):
    hf, lm = pair
    ids, target = _ids(2), 5
    g, E = attr.embedding_gradients(lm, ids, target, position=-3)
    E_hf = hf.model.embed_tokens(ids)[None].detach().requires_grad_(True)
    (g_hf,) = torch.autograd.grad(hf(inputs_embeds=E_hf).logits[0, -3, target], E_hf)
    torch.testing.assert_close(g, g_hf[0], atol=1e-5, rtol=1e-4)
    loo = attr.leave_one_out(lm, ids, target, replacement=0)
    with torch.no_grad():
        full = hf(ids[None]).logits[0, -1, target]
        for t in (0, 6):
            changed = ids.clone()
            changed[t] = 0
            torch.testing.assert_close(
                loo[t], full - hf(changed[None]).logits[0, -1, target], atol=1e-5, rtol=1e-4
            )


@pytest.mark.parametrize("position", [0, 1, 4, -2, -1])
def test_the_llama_readout_equals_the_full_final_states(pair, position):
    """RMS_f(h_L)[p] with the last block at p alone (rotated keys and values up to p) is the full forward
    pass's at p, for a batch of path points, and so is its gradient with respect to every embedding."""
    net = pair[1].model
    E = (net.embed(_ids())[None] * torch.tensor([0.3, 1.0, 1.7])[:, None, None]).detach()
    w = torch.randn(net.sizes.d_model, generator=torch.Generator().manual_seed(2))
    grads = []
    for read in (lambda X: net.readout(X, position), lambda X: net.final_states(X)[:, position]):
        X = E.clone().requires_grad_(True)
        h = read(X)
        grads.append((h, torch.autograd.grad((h @ w).sum(), X)[0]))
    for ours, full in zip(*grads, strict=True):  # float32 rounding of other shapes: ≤ 2.6e-7 of the max
        assert (ours - full).abs().max() <= 1e-6 * full.abs().max()


def test_the_llama_backward_estimate_bounds_what_autograd_keeps(pair):
    """Llama.backward_bytes(T) covers the activations autograd saves (weights excluded) of the heaviest F
    (every position through every block), at short and long T, within 4×."""
    net = pair[1].model
    params = {p.untyped_storage().data_ptr() for p in net.parameters()}
    for n in (5, 30):
        E = net.embed(_ids(3, n)).detach()[None].requires_grad_(True)
        saved: dict[int, int] = {}

        def pack(t, saved=saved):
            if t.untyped_storage().data_ptr() not in params:
                saved[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            net.final_states(E).mean(1).sum()
        assert sum(saved.values()) <= net.backward_bytes(n) <= 4 * sum(saved.values()), (n, saved)


def test_the_logit_lens_reads_hf_hidden_states_through_the_final_norm(pair):
    hf, lm = pair
    ids = _ids(4)
    with torch.no_grad():
        states = hf(ids[None], output_hidden_states=True).hidden_states  # L + 1, the last one normed
        expected = [hf.lm_head(hf.model.norm(s[0, 5])) for s in states[:-1]] + [hf(ids[None]).logits[0, 5]]
    torch.testing.assert_close(logit_lens(lm, ids, position=5), torch.stack(expected), atol=1e-5, rtol=1e-4)


def test_greedy_decoding_and_the_cache_equal_hf_generate(pair):
    hf, lm = pair
    prompt = _ids(5, 6)
    ours = decoding.greedy(lm, prompt, max_new_tokens=10, stop_at_eot=False)
    no_cache = decoding.greedy(lm, prompt, max_new_tokens=10, stop_at_eot=False, use_cache=False)
    config = transformers.GenerationConfig(
        max_new_tokens=10, do_sample=False, eos_token_id=None, pad_token_id=0
    )
    theirs = hf.generate(prompt[None], generation_config=config)[0].tolist()
    assert ours == no_cache == theirs
    cache = KVCache()
    with torch.no_grad():
        lm.model(prompt, kv_cache=cache)
    held = sum(t.numel() * t.element_size() for d in (cache.keys, cache.values) for t in d.values())
    assert held == lm.model.kv_cache_bytes(len(prompt))  # H_kv heads only: H / H_kv times less than MHA
    assert cache.keys[0].size(1) == lm.sizes.n_kv_head


def test_sae_activations_are_the_hf_hidden_states(pair):
    hf, lm = pair
    ids = torch.stack([_ids(6), _ids(7)])
    got = collect(lm, ids, layer=0, hook="resid_post")
    with torch.no_grad():
        expected = hf(ids, output_hidden_states=True).hidden_states[1]
    assert got.dtype == torch.float16
    torch.testing.assert_close(got.float(), expected.half().float())


def test_patching_by_head_under_grouped_keys_equals_a_patch_of_the_hf_o_proj_input(pair):
    """Head h's z replaced by its clean value in the corrupted run: in HF that is columns h·d_h.. of
    o_proj's input; the query heads sharing one key/value head are patched one at a time."""
    hf, lm = pair
    clean, corrupted = _ids(8), _ids(9)
    metric = circuits.logit_difference_metric(lm, clean, corrupted, 3, 4)
    grid = circuits.activation_patching(lm, clean, corrupted, metric, component="z")
    d_h = 8
    seen: dict[str, torch.Tensor] = {}
    for layer in range(2):
        o_proj = hf.model.layers[layer].self_attn.o_proj
        with torch.no_grad():
            handle = o_proj.register_forward_pre_hook(lambda m, a: seen.__setitem__("z", a[0].clone()))
            hf(clean[None])
            handle.remove()
            for head in range(4):
                cols = slice(head * d_h, (head + 1) * d_h)

                def patch(m, a, cols=cols):
                    z = a[0].clone()
                    z[..., cols] = seen["z"][..., cols]
                    return (z,)

                handle = o_proj.register_forward_pre_hook(patch)
                expected = metric(hf(corrupted[None]).logits)
                handle.remove()
                torch.testing.assert_close(grid[layer, head], expected[0], atol=1e-4, rtol=1e-4)


def test_patching_unembeds_only_the_last_position(pair):
    lm, shapes = pair[1], []
    clean, corrupted = _ids(8), _ids(9)
    ld = circuits.logit_difference_metric(lm, clean, corrupted, 3, 4)
    circuits.activation_patching(
        lm, clean, corrupted, lambda logits: shapes.append(logits.shape) or ld(logits)
    )
    assert shapes[0] == (1, T, V)  # the source run
    assert set(shapes[1:]) == {torch.Size([T, 1, V])}  # every patched run: [positions, 1, vocab]


def test_gpt2_init_scales_the_residual_projections():
    """N(0, 0.02) weights, and 0.02/√(2L) for the 2L projections into the residual stream."""
    torch.manual_seed(0)
    L = 8
    net = GPT2(GPT2Config(vocab_size=512, n_ctx=64, n_embd=256, n_layer=L, n_head=4))
    for name, p in net.named_parameters():
        if p.dim() == 2:
            expected = 0.02 / (2 * L) ** 0.5 if name.endswith("c_proj.weight") else 0.02
            assert abs(p.std().item() / expected - 1) < 0.03, (name, p.std().item(), expected)
        elif not name.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight")):
            assert p.abs().max() == 0, name  # biases and LayerNorm shifts start at zero


#: GPT-2's module names and class tests, which no module outside models/gpt2*.py may use (matched on the
#: code's tokens joined by spaces: strings and comments left out).
GPT2_NAMES = re.compile(
    r"\. (wte|wpe|c_attn|c_proj|c_fc|ln_1|ln_2|ln_f)\b|\bmodel \. (h|drop)\b|\. h \[|"
    r"isinstance \([^)]*\bGPT2\b|\bGPT2Config\b|\. config \. n_embd\b"
)
#: Files where a name matches for another model's attribute of the same name, each with its reason.
OWN_NAMES = {
    "xai_tf/crate/model.py": "ln_f is CRATE's own final LayerNorm (lesson 13)",
    "xai_tf/cbm/posthoc.py": "h is the concept bottleneck's own concept model, f = g ∘ h (lesson 12)",
    "xai_tf/tasks/language_model.py": "GPT2Config: builds the GPT-2 that lesson 04 trains from scratch",
    "xai_tf/circuits/induction_training.py": "GPT2Config: builds the GPT-2 that lesson 15 trains",
    "xai_tf/models/checkpoints.py": "GPT2Config: the loader table by model_type (models/ loads them all)",
    "xai_tf/models/hub.py": "GPT2Config: loading GPT-2 by name (models/ loads each architecture)",
    "xai_tf/models/__init__.py": "re-exports GPT2Config",
}


def _code_lines(path: Path) -> dict[int, str]:
    """Each line's code tokens joined by spaces, without strings and comments."""
    lines: dict[int, list[str]] = {}
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
        if tok.type not in (tokenize.STRING, tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE):
            lines.setdefault(tok.start[0], []).append(tok.string)
    return {n: " ".join(toks) for n, toks in lines.items()}


def test_the_grep_finds_what_it_looks_for(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        'x = lm.model.wte(ids)  # wte\ny = "model.h[0]"\nisinstance(m, GPT2)\nblock = model.h[2]\n'
    )
    assert [n for n, code in _code_lines(sample).items() if GPT2_NAMES.search(code)] == [1, 3, 4]


def test_no_helper_reads_gpt2_attribute_names():
    found, used = [], set()
    for path in sorted((ROOT / "xai_tf").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("xai_tf/models/gpt2"):
            continue
        for number, code in _code_lines(path).items():
            if GPT2_NAMES.search(code):
                exempt = next((e for e in OWN_NAMES if rel.startswith(e)), None)
                (used.add(exempt) if exempt else found.append(f"{rel}:{number}: {code}"))
    assert not found, "\n".join(found)
    assert used == set(OWN_NAMES), f"exemptions no longer needed: {set(OWN_NAMES) - used}"


@pytest.mark.numerics
def test_exhaustive_beam_search_finds_the_hf_llamas_most_likely_two_tokens(pair):
    """With B = D beams two steps are exhaustive: beam search (its cache follows the beams through
    KVCache.select over H_kv heads) must return the argmax of log p(y_1, y_2 | prompt) over all D² pairs."""
    hf, lm = pair
    prompt = _ids(10, 5)
    ours = decoding.beam_search(lm, prompt, beam_width=V, max_new_tokens=2, stop_at_eot=False)
    pairs = torch.cartesian_prod(torch.arange(V), torch.arange(V))  # [D², 2]
    texts = torch.cat([prompt.expand(len(pairs), -1), pairs], dim=1)
    with torch.no_grad():
        logp = hf(texts).logits.log_softmax(-1)
    joint = logp[:, 4].gather(1, pairs[:, :1])[:, 0] + logp[:, 5].gather(1, pairs[:, 1:])[:, 0]
    assert ours == texts[int(joint.argmax())].tolist()


def test_attention_patterns_and_a_zero_ablated_head_equal_the_hf_llama(pair):
    hf, lm = pair
    ids = torch.stack([_ids(11), _ids(12)])
    with torch.no_grad():
        theirs = torch.stack(hf(ids, output_attentions=True).attentions)  # [L, batch, H, T, T]
    torch.testing.assert_close(circuits.attention_patterns(lm, ids), theirs, atol=1e-6, rtol=1e-5)
    losses = circuits.ablate_head(lm, ids, layer=1, head=2, how="zero")
    o_proj = hf.model.layers[1].self_attn.o_proj

    def zero_head(m, a):
        z = a[0].clone()
        z[..., 16:24] = 0.0  # head 2 of d_h = 8
        return (z,)

    handle = o_proj.register_forward_pre_hook(zero_head)
    with torch.no_grad():
        logits = hf(ids).logits
    handle.remove()
    expected = torch.nn.functional.cross_entropy(logits[:, :-1].transpose(1, 2), ids[:, 1:], reduction="none")
    torch.testing.assert_close(losses, expected, atol=1e-5, rtol=1e-5)
