"""The sizes and options of a GPT-2 (``xai_tf.models.gpt2`` re-exports them; lesson 04 reads that module,
every lesson runs it), and how a Hugging Face GPT-2 config maps onto them.

Besides the sizes, a Hugging Face config may change the function itself. Supported: the exact GELU
(``activation_function`` "gelu") instead of GPT-2's tanh approximation, an untied unembedding
(``tie_word_embeddings`` false: its own ``lm_head``), no 1/√d_h in the attention scores
(``scale_attn_weights`` false) and a further 1/l in layer l (``scale_attn_by_inverse_layer_idx``);
``reorder_and_upcast_attn`` changes only how float16 training rounds, nothing in float32. Refused with
a ValueError naming the option: any other activation, an MLP width other than 4d (``n_inner``), and
cross-attention.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from xai_tf.models.architecture import Sizes

#: Hugging Face's names for the two GELUs: the tanh approximation (GPT-2's) and the exact x Φ(x).
HF_GELUS = {
    "gelu_new": "tanh",
    "gelu_pytorch_tanh": "tanh",
    "gelu_fast": "tanh",
    "gelu_python_tanh": "tanh",
    "gelu": "none",
    "gelu_python": "none",
}


@dataclass(frozen=True)
class GPT2Config:
    """Sizes and options of a GPT-2 model; the defaults are GPT-2 small (124M parameters).

    ``gelu`` is ``F.gelu``'s ``approximate``: "tanh" (GPT-2) or "none" (the exact GELU). The other
    options are Hugging Face's, with its defaults (GPT-2's).
    """

    vocab_size: int = 50257
    n_ctx: int = 1024
    n_embd: int = 768
    n_layer: int = 12
    n_head: int = 12
    layer_norm_epsilon: float = 1e-5
    dropout: float = 0.0
    gelu: str = "tanh"
    tie_word_embeddings: bool = True
    scale_attn_weights: bool = True
    scale_attn_by_inverse_layer_idx: bool = False

    def __post_init__(self) -> None:
        if self.n_embd % self.n_head:
            raise ValueError(f"n_embd={self.n_embd} must be divisible by n_head={self.n_head}")
        if self.gelu not in ("tanh", "none"):
            raise ValueError(f"gelu {self.gelu!r} is not supported: use 'tanh' or 'none'")

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def sizes(self) -> Sizes:
        """L, H, d_e, T_max, D (and H_kv = H: every GPT-2 head has its own keys and values; d_h = d_e / H;
        an ungated MLP of width 4 d_e)."""
        d, H = self.n_embd, self.n_head
        return Sizes(self.n_layer, H, d, self.n_ctx, self.vocab_size, H, d // H, 4 * d, gated=False)

    def attn_scale(self, layer: int) -> float:
        """s_l, the factor of layer ``layer``'s (from 0) scores Q Kᵀ: 1/√d_h for GPT-2, as Hugging
        Face computes it (d_h^−½, divided by layer + 1 with ``scale_attn_by_inverse_layer_idx``)."""
        scale = (self.n_embd // self.n_head) ** -0.5 if self.scale_attn_weights else 1.0
        return scale / float(layer + 1) if self.scale_attn_by_inverse_layer_idx else scale

    def backward_bytes(self, T: int) -> int:
        """An upper estimate of the memory one sequence of T tokens takes through a backward pass of
        one output at one position (integrated gradients unembeds one row, so no T × V logits):
        4 bytes × ((L + 2)·T·(16 d + 3 H T) + 3 V) — the L blocks' saved activations and attention
        maps, about two blocks' worth of gradients in flight, and one position's V logits. On GPT-2
        small autograd saves 2.85 MB at T = 5 and 28.5 MB at T = 50 (this gives 3.9 and 38), and one
        more path point of IG raised the peak by 8.2 MB at T = 12, 21.6 MB at T = 32 and 65 MB at
        T = 100 (this gives 8.7, 23.5 and 85; MB = 2²⁰ bytes). Measured with every block run at every
        position, as a classifier reading all positions runs them (``tasks.sentiment``); a language
        model's prediction at one position keeps less (``GPT2.readout``)."""
        d, H, L, V = self.n_embd, self.n_head, self.n_layer, self.vocab_size
        return 4 * ((L + 2) * T * (16 * d + 3 * H * T) + 3 * V)

    @classmethod
    def from_hf(cls, hf: Mapping[str, Any]) -> GPT2Config:
        """The sizes and options of a Hugging Face GPT-2 config (its ``config.json`` as a dict, where
        a missing key means Hugging Face's default); a ValueError for an option we do not run."""
        activation = hf.get("activation_function", "gelu_new")
        if activation not in HF_GELUS:
            aliases = ", ".join(repr(name) for name in HF_GELUS if name not in ("gelu_new", "gelu"))
            raise ValueError(
                f"activation_function {activation!r} is not supported: use 'gelu_new' or 'gelu' (GPT-2's "
                f"tanh GELU or the exact one; their aliases {aliases} work too)"
            )
        n_inner, width = hf.get("n_inner"), 4 * hf["n_embd"]
        if n_inner not in (None, width):
            raise ValueError(f"n_inner {n_inner} is not supported: use {width} (4 · n_embd) or None")
        if hf.get("add_cross_attention", False):
            raise ValueError(f"add_cross_attention {hf['add_cross_attention']} is not supported: use False")
        return cls(
            vocab_size=hf["vocab_size"],
            n_ctx=hf["n_positions"],
            n_embd=hf["n_embd"],
            n_layer=hf["n_layer"],
            n_head=hf["n_head"],
            layer_norm_epsilon=hf.get("layer_norm_epsilon", 1e-5),
            gelu=HF_GELUS[activation],
            tie_word_embeddings=hf.get("tie_word_embeddings", True),
            scale_attn_weights=hf.get("scale_attn_weights", True),
            scale_attn_by_inverse_layer_idx=hf.get("scale_attn_by_inverse_layer_idx", False),
        )


#: The four released GPT-2 sizes.
CONFIGS: dict[str, GPT2Config] = {
    "gpt2": GPT2Config(),
    "gpt2-medium": GPT2Config(n_embd=1024, n_layer=24, n_head=16),
    "gpt2-large": GPT2Config(n_embd=1280, n_layer=36, n_head=20),
    "gpt2-xl": GPT2Config(n_embd=1600, n_layer=48, n_head=25),
}
