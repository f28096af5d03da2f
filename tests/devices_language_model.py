"""Device rows for lessons 00–05 and lesson 04's modern block: the forward pass, attention maps,
decoding, the logit lens, the loss, the probability maps and attention layers, the Llama family
(collected by ``test_devices.py``)."""

from collections.abc import Callable

import device_kit as kit
import torch

import xai_tf
from xai_tf import attention as att
from xai_tf.explain import lens
from xai_tf.transformer import decoding, lm_eval


def _attention_layer(lm: xai_tf.LoadedModel) -> torch.Tensor:
    X = kit.scores(lm)[:, :6]
    lengths = torch.tensor([2], device=lm.device)
    mask = att.causal_mask(3, device=lm.device) & att.padding_mask(lengths, 3)
    W = torch.eye(6, device=lm.device)
    out, A = att.multi_head_attention(X, W, W, W, W, n_heads=2, mask=mask)
    return torch.cat([out.flatten(), A.flatten()])


def _llama(lm: xai_tf.LoadedModel) -> list:
    from xai_tf.models.kv_cache import KVCache
    from xai_tf.models.llama import Llama
    from xai_tf.models.llama_config import LlamaConfig

    config = LlamaConfig(vocab_size=50, n_ctx=16, n_embd=16, n_layer=2, n_head=4, n_kv_head=2, d_mlp=24)
    with torch.device("cpu"):
        torch.manual_seed(0)
        model = Llama(config).eval()
    model = model.to(lm.device)
    ids = torch.tensor([[3, 14, 15, 9, 2, 6]], device=lm.device)
    cache = KVCache()
    with torch.no_grad():
        steps = [model(ids[:, :4], kv_cache=cache), model(ids[:, 4:], kv_cache=cache)]
        return [model(ids), *steps]


def _modern(lm: xai_tf.LoadedModel) -> list:
    """Lesson 04 §11 (``transformer.modern``) on the bundled GPT-2 and a tiny random Llama."""
    from xai_tf.models.llama import Llama
    from xai_tf.models.llama_config import LlamaConfig
    from xai_tf.transformer import modern

    config = LlamaConfig(vocab_size=50, n_ctx=16, n_embd=16, n_layer=2, n_head=4, n_kv_head=2, d_mlp=24)
    with torch.device("cpu"):
        torch.manual_seed(0)
        llama = xai_tf.LoadedModel(Llama(config).eval(), None, "tiny-llama")
    llama.model.to(lm.device)
    X = kit.scores(lm)[:, :6].repeat(1, 3)[:, :16]
    with torch.no_grad():
        return [
            modern.centring_share(kit.scores(lm)),
            *(modern.attention_sublayer(llama, 1, X, form, 1e-5) for form in modern.FORMS),
            modern.layer0_scores(llama, 3, 7, 2, 8),
            modern.layer0_scores(lm, 3, 7, 1, 8),
            modern.cache_bytes(modern.decoded_cache(llama, [1, 2, 3], 4)),
            modern.cache_bytes(modern.decoded_cache(lm, [1, 2, 3], 4)),
        ]


CALLS: dict[str, Callable[[xai_tf.LoadedModel], object]] = {
    "forward": lambda lm: lm(lm.encode(kit.PROMPT)),
    "attentions": lambda lm: lm.attentions(lm.encode(kit.PROMPT)),
    "greedy": lambda lm: decoding.greedy(lm, lm.encode(kit.PROMPT), 8),
    "generate top-k top-p": lambda lm: decoding.generate(lm, lm.encode(kit.PROMPT), 8, 0.8, 20, 0.9, seed=0),
    "beam_search": lambda lm: decoding.beam_search(lm, lm.encode(kit.PROMPT), 3, 6),
    "continuation_log_prob": lambda lm: decoding.continuation_log_prob(lm, lm.encode(kit.PROMPT), 3),
    "top_next_tokens": lambda lm: decoding.top_next_tokens(lm, lm.encode(kit.PROMPT), 5),
    "logit_lens_top": lambda lm: lens.logit_lens_top(lm, lm.encode(kit.PROMPT), 3),
    "loss_per_char": lambda lm: lm_eval.loss_per_char(lm, lm.tokenizer, ["But soft, what light."], stride=4),
    "probability maps": lambda lm: (
        [
            f(kit.scores(lm))
            for f in (att.softmax, att.sparsemax, lambda z: att.entmax(z, 1.5), lambda z: att.entmax(z, 1.3))
        ]
        + [
            att.fusedmax(kit.scores(lm), 0.3),
            att.hard_attention(kit.scores(lm), "sample", torch.Generator().manual_seed(0)),
        ]
    ),
    "attention layers and masks": _attention_layer,
    "a Llama-family block (issue 41)": _llama,
    "from GPT-2 to today's block (lesson 04)": _modern,
}
