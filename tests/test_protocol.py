"""The architecture protocol (``models/architecture.py``): GPT-2 and BERT conform at run time and for
mypy, and BERT's hook points are Hugging Face's ``BertModel`` activations, captured independently on
its own modules."""

import dataclasses
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch
import transformers
from conftest import random_hf_gpt2

from xai_tf.models import GPT2, BertEncoder, LoadedModel, causal
from xai_tf.models.architecture import Architecture, Sizes
from xai_tf.models.gpt2 import HOOK_POINTS as GPT2_POINTS

ROOT = Path(__file__).resolve().parents[1]
L, H, D, T = 2, 4, 32, 7  # layers, heads, width, tokens of the random BERT below


def _bert(seed: int = 0) -> tuple[transformers.BertModel, BertEncoder]:
    torch.manual_seed(seed)
    config = transformers.BertConfig(
        vocab_size=50,
        hidden_size=D,
        num_hidden_layers=L,
        num_attention_heads=H,
        intermediate_size=3 * D,
        max_position_embeddings=16,
        attn_implementation="eager",
    )
    hf = transformers.BertModel(config, add_pooling_layer=False).eval()
    return hf, BertEncoder(hf)


def _gpt2() -> GPT2:
    return GPT2.from_hf(random_hf_gpt2(0, vocab_size=60, n_embd=16, n_layer=2, n_head=2, n_positions=16))


def _ids() -> torch.Tensor:
    return torch.randint(0, 50, (2, T), generator=torch.Generator().manual_seed(1))


def test_both_architectures_conform_at_run_time():
    assert isinstance(_gpt2(), Architecture) and isinstance(_bert()[1], Architecture)
    assert not isinstance(torch.nn.Linear(2, 2), Architecture)  # a module without the calls does not


def test_sizes_are_named_and_frozen():
    gpt2, bert = _gpt2(), _bert()[1]
    assert gpt2.sizes == Sizes(
        n_layer=2, n_head=2, d_model=16, n_ctx=16, vocab_size=60, n_kv_head=2, d_head=8, d_mlp=64, gated=False
    )
    assert bert.sizes == Sizes(
        n_layer=L,
        n_head=H,
        d_model=D,
        n_ctx=16,
        vocab_size=50,
        n_kv_head=H,
        d_head=D // H,
        d_mlp=3 * D,
        gated=False,
    )
    lm = LoadedModel(bert, None, "bert")
    assert lm.sizes == bert.sizes
    assert (lm.n_layer, lm.n_head, lm.d_model, lm.n_ctx, lm.vocab_size) == (L, H, D, 16, 50)
    with pytest.raises(dataclasses.FrozenInstanceError):
        bert.sizes.n_layer = 3  # type: ignore[misc]


def test_bert_has_every_hook_point_gpt2_has():
    assert list(BertEncoder.hook_points) == list(GPT2_POINTS)


def _hf_activations(hf: transformers.BertModel, ids: torch.Tensor) -> dict[tuple[str, int], torch.Tensor]:
    """Every hook point's activation as Hugging Face computes it: its outputs, and forward hooks on the
    submodules whose inputs or outputs are the activations."""
    found: dict[tuple[str, int], torch.Tensor] = {}

    def keep(name, layer, heads=False, take_input=False):
        def hook(_module, args, out):
            x = args[0] if take_input else out[0] if isinstance(out, tuple) else out
            found[name, layer] = x.unflatten(-1, (H, D // H)).transpose(1, 2) if heads else x

        return hook

    handles = []
    for layer, block in enumerate(hf.encoder.layer):
        points = {
            "q": (block.attention.self.query, True, False),
            "k": (block.attention.self.key, True, False),
            "v": (block.attention.self.value, True, False),
            "z": (block.attention.output.dense, True, True),
            "attn_out": (block.attention.output.dense, False, False),
            "resid_mid": (block.attention.output, False, False),
            "mlp_post": (block.intermediate, False, False),
            "mlp_out": (block.output.dense, False, False),
        }
        for name, (module, heads, take_input) in points.items():
            handles.append(module.register_forward_hook(keep(name, layer, heads, take_input)))
    try:
        out = hf(input_ids=ids, output_hidden_states=True, output_attentions=True)
    finally:
        for handle in handles:
            handle.remove()
    for layer in range(L):
        found["resid_pre", layer] = out.hidden_states[layer]
        found["resid_post", layer] = out.hidden_states[layer + 1]
        found["attn", layer] = out.attentions[layer]
    return found


def test_bert_hook_points_are_hugging_face_activations():
    hf, ours = _bert(3)
    ids = _ids()
    with torch.no_grad():
        reference = _hf_activations(hf, ids)
        last, cache = ours.run_with_cache(ids)
        plain = ours(ids)
    assert set(cache) == set(reference) == {(name, layer) for name in GPT2_POINTS for layer in range(L)}
    for key, expected in reference.items():
        torch.testing.assert_close(cache[key], expected, rtol=0, atol=1e-5, msg=f"{key}")
    torch.testing.assert_close(last, reference["resid_post", L - 1], rtol=0, atol=1e-5)
    torch.testing.assert_close(plain, last, rtol=0, atol=0)


def test_bert_hooks_replace_activations_inside_the_layer():
    _, ours = _bert(4)
    ids = _ids()
    eye = torch.eye(T).expand(2, H, T, T)
    with torch.no_grad():
        _, own = ours.run_with_cache(ids, hooks={("attn", 1): lambda a: eye})
        _, no_mlp = ours.run_with_cache(ids, hooks={("mlp_out", 0): torch.zeros_like})
    torch.testing.assert_close(own["z", 1], own["v", 1], rtol=0, atol=0)  # each token reads itself: A V = V
    ln_2 = ours.hf.encoder.layer[0].output.LayerNorm  # h_0 = LN_2(h' + 0)
    torch.testing.assert_close(no_mlp["resid_post", 0], ln_2(no_mlp["resid_mid", 0]), rtol=0, atol=0)


def test_causal_refuses_a_causal_architecture_that_misses_the_protocol():
    class Other(torch.nn.Module):
        kind = "causal"

    with pytest.raises(
        TypeError,
        match=r"^decoding needs a model meeting the CausalLM protocol; Other lacks "
        r"\['backward_bytes', .*'unembedding'\]$",
    ):
        causal(LoadedModel(Other(), None, "other"), "decoding")  # type: ignore[type-var]


CONFORMS = """
    from xai_tf.models import GPT2, BertEncoder
    from xai_tf.models.architecture import Architecture, CausalLM
    from xai_tf.models.llama import Llama

    def each(gpt2: GPT2, bert: BertEncoder, llama: Llama) -> list[Architecture]:
        return [gpt2, bert, llama]

    def causal_ones(gpt2: GPT2, llama: Llama) -> list[CausalLM]:
        return [gpt2, llama]
"""
MISSING = """
    from collections.abc import Sequence
    from torch import Tensor
    from xai_tf.models.architecture import Architecture, Sizes
    from xai_tf.models.hooks import Hooks

    class NoCache:  # everything but run_with_cache
        kind = "causal"
        hook_points: dict[str, str] = {}
        sizes = Sizes(1, 1, 1, 1, 1, 1, 1, 4, False)

        def check_input_ids(self, input_ids: Tensor | Sequence[int]) -> Tensor:
            raise NotImplementedError

        def __call__(self, input_ids: Tensor | Sequence[int], hooks: Hooks | None = None) -> Tensor:
            raise NotImplementedError

        def parameters(self, recurse: bool = True): ...
        def to(self, device): ...

    def one(model: NoCache) -> Architecture:
        return model
"""


def test_mypy_checks_conformance(tmp_path):
    """One mypy run over two snippets: GPT2, BertEncoder and Llama pass as an Architecture (GPT2 and Llama
    as a CausalLM too), a class without
    ``run_with_cache`` does not (the cache under the repository is the one ``mypy xai_tf`` fills)."""
    (tmp_path / "conforms.py").write_text(textwrap.dedent(CONFORMS))
    (tmp_path / "missing.py").write_text(textwrap.dedent(MISSING))
    config = ["--config-file", str(ROOT / "mypy.ini"), "--cache-dir", str(ROOT / ".mypy_cache")]
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", *config, "--follow-imports=silent", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    errors = [line for line in checked.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and "missing.py:22: error: Incompatible return value" in errors[0], checked.stdout
    assert '"NoCache" is missing following "Architecture" protocol member:\n' in checked.stdout
    assert "conflicts" not in checked.stdout  # run_with_cache is all it lacks
