"""The sizes and options of a Llama-family model (``xai_tf.models.llama`` re-exports them), and how a
Hugging Face Llama, Mistral or Qwen2 config maps onto them.

Supported besides the sizes: grouped-query attention (``num_key_value_heads`` dividing
``num_attention_heads``), a head size of its own (``head_dim``), the RoPE base θ (``rope_theta``, in
``rope_parameters`` or, in older files, at the top level), tied or untied embeddings, and each family's
biases as Hugging Face builds them (``BIASES``): Llama's ``attention_bias`` (q, k, v and W_O) and
``mlp_bias``; Qwen2's q, k, v always, nothing else; Mistral none (its code reads neither option).
Refused with a ValueError naming the option, because each changes the function and is not run here:
any ``hidden_act`` but SiLU, RoPE scaling of any type but "default" (read as Hugging Face reads it: a
``rope_scaling`` entry replaces ``rope_parameters`` whole, so ``rope_parameters`` "default" beside
``rope_scaling`` "linear" is linear scaling), a partial rotary factor, a sliding window in effect (shorter
than the context, on some layer: Qwen2's only with ``use_sliding_window``, from layer
``max_window_layers`` on), and attention dropout (a training option: every checkpoint here runs in eval
mode).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

#: Which linear maps carry a bias in each family (q, k, v; W_O; the MLP), as Hugging Face's modules are
#: built; None where the config says (Llama: ``attention_bias`` for q, k, v and W_O, ``mlp_bias``).
BIASES: dict[str, tuple[bool, bool, bool] | None] = {
    "llama": None,
    "mistral": (False, False, False),
    "qwen2": (True, False, False),
}


@dataclass(frozen=True)
class LlamaConfig:
    """Sizes and options of a Llama-style model: L = ``n_layer`` blocks of width d = ``n_embd``,
    H = ``n_head`` query heads sharing H_kv = ``n_kv_head`` key/value heads, head size d_h = ``head_dim``
    (d / H when None), MLP width ``d_mlp``, context T_max = ``n_ctx``, vocabulary ``vocab_size``."""

    vocab_size: int = 32000
    n_ctx: int = 2048
    n_embd: int = 4096
    n_layer: int = 32
    n_head: int = 32
    n_kv_head: int = 32
    head_dim: int | None = None
    d_mlp: int = 11008
    rms_norm_eps: float = 1e-6
    rope_theta: float = 10000.0
    tie_word_embeddings: bool = False
    qkv_bias: bool = False
    o_bias: bool = False
    mlp_bias: bool = False

    def __post_init__(self) -> None:
        if self.n_kv_head < 1 or self.n_head % self.n_kv_head:
            raise ValueError(f"n_kv_head={self.n_kv_head} must divide n_head={self.n_head}")
        if self.head_dim is None and self.n_embd % self.n_head:
            raise ValueError(
                f"n_embd={self.n_embd} must be divisible by n_head={self.n_head} (or give head_dim)"
            )
        if self.d_head % 2:
            raise ValueError(f"the head size {self.d_head} must be even: RoPE rotates pairs of dimensions")

    @property
    def d_head(self) -> int:
        """d_h, the size of one head."""
        return self.head_dim if self.head_dim is not None else self.n_embd // self.n_head

    def to_dict(self) -> dict:
        return asdict(self)

    def backward_bytes(self, T: int) -> int:
        """An upper estimate of one backward pass of one position's output over T tokens, GPT-2's
        (``GPT2Config.backward_bytes``) with this block's widths: 4 bytes × ((L + 2)·T·(6 d + 2 H d_h
        + 4 H_kv d_h + 3 d_mlp + 3 H T) + 3 V) — each block keeps its input and normed copies, q, k, v
        before and after rotation, z, the three MLP widths and the attention map."""
        c = self
        per_token = 6 * c.n_embd + 2 * c.n_head * c.d_head + 4 * c.n_kv_head * c.d_head + 3 * c.d_mlp
        return 4 * ((c.n_layer + 2) * T * (per_token + 3 * c.n_head * T) + 3 * c.vocab_size)

    @classmethod
    def from_hf(cls, hf: Mapping[str, Any]) -> LlamaConfig:
        """The sizes and options of a Hugging Face Llama/Mistral/Qwen2 config (its ``config.json`` as a
        dict, its family by ``model_type``, "llama" when absent; a missing key means Hugging Face's
        default); a ValueError for an option not run here."""
        family = hf.get("model_type", "llama")
        if family not in BIASES:
            raise ValueError(
                f"model_type {family!r} is not a Llama-family model: use one of {sorted(BIASES)}"
            )
        _refuse_unsupported(hf)
        attention, mlp = bool(hf.get("attention_bias", False)), bool(hf.get("mlp_bias", False))
        qkv_bias, o_bias, mlp_bias = BIASES[family] or (attention, attention, mlp)
        n_head = hf["num_attention_heads"]
        return cls(
            vocab_size=hf["vocab_size"],
            n_ctx=hf["max_position_embeddings"],
            n_embd=hf["hidden_size"],
            n_layer=hf["num_hidden_layers"],
            n_head=n_head,
            n_kv_head=hf.get("num_key_value_heads") or n_head,
            head_dim=hf.get("head_dim"),
            d_mlp=hf["intermediate_size"],
            rms_norm_eps=hf.get("rms_norm_eps", 1e-6),
            rope_theta=_rope_parameters(hf)["rope_theta"],
            tie_word_embeddings=hf.get("tie_word_embeddings", False),
            qkv_bias=qkv_bias,
            o_bias=o_bias,
            mlp_bias=mlp_bias,
        )


def _rope_parameters(hf: Mapping[str, Any]) -> dict[str, Any]:
    """RoPE's options as Hugging Face reads them (``convert_rope_params_to_dict``): ``rope_scaling``
    (older files) if given, else ``rope_parameters`` (transformers ≥ 5), the whole entry, not merged;
    ``rope_theta`` from it, else from the top level, else 10000; ``type`` is the older name of
    ``rope_type``."""
    found = dict(hf.get("rope_scaling") or hf.get("rope_parameters") or {})
    found.setdefault("rope_theta", hf.get("rope_theta") or 10000.0)
    older = found.pop("type", None)
    found.setdefault("rope_type", older or "default")
    if older is not None and older != found["rope_type"]:
        raise ValueError(f"rope_scaling names two types, {older!r} and {found['rope_type']!r}")
    return found


def _sliding_layers(hf: Mapping[str, Any]) -> int:
    """How many layers attend through a sliding window (Hugging Face's rule per family)."""
    family = hf.get("model_type", "llama")
    if family == "mistral":
        return hf["num_hidden_layers"]  # one window for every layer
    if family != "qwen2" or not hf.get("use_sliding_window", False):
        return 0  # Llama's code reads no window; Qwen2's only with use_sliding_window
    layer_types = hf.get("layer_types")
    if layer_types is not None:
        return sum(t == "sliding_attention" for t in layer_types)
    return max(0, hf["num_hidden_layers"] - hf.get("max_window_layers", 28))


def _refuse_unsupported(hf: Mapping[str, Any]) -> None:
    """A ValueError naming the first option of ``hf`` that changes the function and is not run here."""
    act = hf.get("hidden_act", "silu")
    if act != "silu":
        raise ValueError(f"hidden_act {act!r} is not supported: use 'silu' (SwiGLU)")
    rope = _rope_parameters(hf)
    where = "rope_scaling" if hf.get("rope_scaling") else "rope_parameters"
    if rope["rope_type"] != "default":
        raise ValueError(
            f"{where} type {rope['rope_type']!r} is not supported (Hugging Face reads rope_scaling before "
            "rope_parameters): use 'default' (plain RoPE)"
        )
    partial = rope.pop("partial_rotary_factor", hf.get("partial_rotary_factor", 1.0))
    if partial != 1.0:
        raise ValueError(
            f"partial_rotary_factor {partial} is not supported: use 1.0 (every dimension rotates)"
        )
    extra = sorted(set(rope) - {"rope_type", "rope_theta"})
    if extra:
        raise ValueError(f"{where} {extra} are not supported: only rope_theta is read")
    window, n_ctx = hf.get("sliding_window"), hf["max_position_embeddings"]
    if window is not None and window < n_ctx and _sliding_layers(hf):
        raise ValueError(f"sliding_window {window} is not supported: use None (full attention over {n_ctx})")
    layer_types = set(hf.get("layer_types") or ()) - {"full_attention", "sliding_attention"}
    if layer_types:
        raise ValueError(f"layer_types {sorted(layer_types)} are not supported: use 'full_attention'")
    if hf.get("attention_dropout", 0.0):
        raise ValueError(f"attention_dropout {hf['attention_dropout']} is not supported: use 0.0")
