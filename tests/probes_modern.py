"""Bad-input probes for lesson 04's "from GPT-2 to today's block" (``xai_tf.transformer.modern``),
collected by ``test_bad_inputs.py``."""

from probe_kit import NAN, TE, VE, lm, tiny, z

from xai_tf.models.gpt2 import GPT2Config
from xai_tf.transformer import modern

EXEMPT: dict = {}

M = "xai_tf.transformer.modern"
RAISES = [
    (f"{M}.centring_share", lambda: modern.centring_share([1.0, 2.0]), TE, "u must be a torch.Tensor"),
    (f"{M}.centring_share", lambda: modern.centring_share(z(3, 1)), VE, r"u must be floating-point .* d ≥ 2"),
    (f"{M}.centring_share", lambda: modern.centring_share(z(3, 4) * 0), VE, "no all-zero vector"),
    (f"{M}.centring_share", lambda: modern.centring_share(z(4) * NAN), VE, "u must be finite"),
    (
        f"{M}.mhatt",
        lambda: modern.mhatt(tiny().head_weights(0), z(5, 7)),
        VE,
        r"X must be one sequence \[T, 16\]",
    ),
    (f"{M}.mhatt", lambda: modern.mhatt(tiny().head_weights(0), "x"), TE, "X must be a torch.Tensor"),
    (
        f"{M}.attention_sublayer",
        lambda: modern.attention_sublayer(tiny(), 0, z(5, 16), "post", 1e-5),
        VE,
        "form must be one of",
    ),
    (
        f"{M}.attention_sublayer",
        lambda: modern.attention_sublayer(tiny(), 2, z(5, 16), "recap", 1e-5),
        VE,
        r"layer must be an integer in 0..1",
    ),
    (
        f"{M}.attention_sublayer",
        lambda: modern.attention_sublayer(tiny(), 0, z(5, 16), "recap", 0),
        VE,
        "eps",
    ),
    (
        f"{M}.layer0_scores",
        lambda: modern.layer0_scores(lm(), 1, 2, 4, 8),
        VE,
        r"head must be an integer in 0..3",
    ),
    (
        f"{M}.layer0_scores",
        lambda: modern.layer0_scores(lm(), 1, 2, 0, 257),
        VE,
        r"T must be an integer in 1..256",
    ),
    (
        f"{M}.layer0_scores",
        lambda: modern.layer0_scores(lm(), -1, 2, 0, 8),
        VE,
        r"a must be an integer in 0..4095",
    ),
    (f"{M}.diagonal_spread", lambda: modern.diagonal_spread(z(3, 4)), VE, r"S must be a square matrix"),
    (f"{M}.llama_d_mlp", lambda: modern.llama_d_mlp(0), VE, r"d must be an integer ≥ 1"),
    (f"{M}.llama_d_mlp", lambda: modern.llama_d_mlp(256, 2.5), TE, r"multiple must be an integer"),
    (
        f"{M}.mlp_parameters",
        lambda: modern.mlp_parameters(8, 0, True, False),
        VE,
        r"d_mlp must be an integer ≥ 1",
    ),
    (
        f"{M}.mlp_parameters",
        lambda: modern.mlp_parameters(8, 8, 1, False),
        TE,
        "gated and bias must be True or False",
    ),
    (
        f"{M}.llama_parameter_counts",
        lambda: modern.llama_parameter_counts(GPT2Config()),
        TE,
        "config must be a LlamaConfig",
    ),
    (
        f"{M}.decoded_cache",
        lambda: modern.decoded_cache(lm(), [1, 2], 256),
        VE,
        r"max_new_tokens must be an integer in 1..255",
    ),
    (
        f"{M}.decoded_cache",
        lambda: modern.decoded_cache(lm(), [[1, 2], [3, 4]], 2),
        VE,
        "input_ids must be one prompt",
    ),
    (f"{M}.cache_bytes", lambda: modern.cache_bytes({}), TE, "cache must be a KVCache"),
]

CHECKERS: dict = {}

PANELS: dict = {}
