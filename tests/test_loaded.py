"""The model handle: its shape and kind, the one place a bare module is wrapped, the one-line message
of every causal-only helper and panel given an encoder, and hooks on every architecture."""

import html
import re

import pytest
import torch
from conftest import random_hf_gpt2

from xai_tf.explain import attribution as attr
from xai_tf.explain import lens
from xai_tf.models import GPT2, LoadedModel, as_model
from xai_tf.tasks import sentiment
from xai_tf.transformer import decoding, lm_eval
from xai_tf.widgets.attribution import attribution_panel
from xai_tf.widgets.blocks import head_pattern_panel, logit_lens_panel
from xai_tf.widgets.decoding import decoding_panel
from xai_tf.widgets.next_token import next_token_panel
from xai_tf.widgets.wordlevel import word_attention_panel

ENCODER = (
    re.escape("minilm is an encoder: ")
    + r"[\w\- ]+"
    + re.escape(" needs a causal model ('shakespeare', 'gpt2', …)")
)


def test_the_handle_knows_shape_and_kind(bundled, minilm):
    card = bundled.card
    assert (bundled.kind, bundled.n_layer, bundled.n_head, bundled.d_model, bundled.n_ctx) == (
        "causal",
        card["n_layer"],
        card["n_head"],
        card["n_embd"],
        card["n_ctx"],
    )
    hf = minilm.model.hf.config  # all-MiniLM-L6-v2: 6 layers × 12 heads, width 384, 512 positions
    assert (
        (minilm.kind, minilm.n_layer, minilm.n_head, minilm.d_model, minilm.n_ctx)
        == (
            "encoder",
            hf.num_hidden_layers,
            hf.num_attention_heads,
            hf.hidden_size,
            hf.max_position_embeddings,
        )
        == ("encoder", 6, 12, 384, 512)
    )
    assert bundled.eot_token == bundled.tokenizer.eot_token and minilm.eot_token is None


@pytest.mark.parametrize("lm_name", ["bundled", "minilm"])
def test_attentions_are_the_cached_attention_of_one_prompt(lm_name, request):
    lm = request.getfixturevalue(lm_name)
    ids = lm.encode("But soft, what light")
    with torch.no_grad():
        cache = lm.run_with_cache(ids)[1]
    A = lm.attentions(ids)
    assert A.shape == (lm.n_layer, lm.n_head, len(ids), len(ids))
    torch.testing.assert_close(A[2, 1], cache["attn", 2][0, 1], rtol=0, atol=0)
    torch.testing.assert_close(A.sum(-1), torch.ones(A.shape[:-1]))
    with pytest.raises(ValueError, match="one prompt"):
        lm.attentions([ids, ids])


def test_a_bare_module_is_wrapped_in_one_place():
    model = GPT2.from_hf(random_hf_gpt2(0, n_embd=16, n_layer=2, n_head=2, n_positions=16))
    lm = as_model(model)
    assert isinstance(lm, LoadedModel) and lm.name == "GPT2" and (lm.n_layer, lm.n_ctx) == (2, 16)
    assert as_model(lm) is lm
    with pytest.raises(ValueError, match="GPT2 has no tokenizer"):
        lm.encode("hello")
    with pytest.raises(TypeError, match="model must be a model from xai_tf.load_model.*got int"):
        as_model(42)


CAUSAL_ONLY = {
    "next_token_probs": lambda lm: decoding.next_token_probs(lm, [101, 102]),
    "top_next_tokens": lambda lm: decoding.top_next_tokens(lm, [101, 102], 3),
    "greedy": lambda lm: decoding.greedy(lm, [101, 102], 3),
    "generate": lambda lm: decoding.generate(lm, [101, 102], 3),
    "beam_search": lambda lm: decoding.beam_search(lm, [101, 102], 2, 3),
    "continuation_log_prob": lambda lm: decoding.continuation_log_prob(lm, [101, 102, 103], 1),
    "logit_lens": lambda lm: lens.logit_lens(lm, [101, 102]),
    "logit_lens_top": lambda lm: lens.logit_lens_top(lm, [101, 102]),
    "integrated_gradients": lambda lm: attr.integrated_gradients(lm, [101, 102], 0),
    "sequential_integrated_gradients": lambda lm: attr.sequential_integrated_gradients(lm, [101, 102], 0),
    "embedding_gradients": lambda lm: attr.embedding_gradients(lm, [101, 102], 0),
    "leave_one_out": lambda lm: attr.leave_one_out(lm, [101, 102], 0),
    "target_function": lambda lm: attr.target_function(lm, 0),
    "named_baselines": lambda lm: attr.named_baselines(lm),
    "train_classifier": lambda lm: sentiment.train_classifier(lm, [("good", 1)]),
    "total_nll": lambda lm: lm_eval.total_nll(lm, [101, 102], 1),
    "loss_per_char": lambda lm: lm_eval.loss_per_char(lm, lm.tokenizer, ["a"]),
}


@pytest.mark.parametrize("helper", list(CAUSAL_ONLY))
def test_causal_only_helpers_refuse_an_encoder_in_one_line(minilm, helper):
    with pytest.raises(ValueError, match=f"^{ENCODER}$"):
        CAUSAL_ONLY[helper](minilm)


@pytest.mark.parametrize("panel", [next_token_panel, logit_lens_panel, decoding_panel, attribution_panel])
def test_causal_only_panels_show_the_one_line_for_an_encoder(minilm, panel):
    shown = panel(minilm)
    assert re.search(ENCODER, html.unescape(shown.message.value))
    assert shown.view.value == "" and shown.controls == {}


@pytest.mark.parametrize("panel", [head_pattern_panel, word_attention_panel])
def test_attention_panels_work_on_an_encoder(minilm, panel):
    shown = panel(minilm, "But soft, what light")
    assert shown.message.value == "" and "[CLS]" in shown.view.value
    shown["head"].value = shown["head"].max  # MiniLM has 12 heads: the slider reaches head 11
    assert shown["head"].max == 11 and shown.message.value == ""


def test_bert_hooks_replace_the_residual_stream(minilm):
    ids = minilm.encode("But soft, what light")
    layer0 = minilm.model.hf.encoder.layer[0]
    with torch.no_grad():
        hidden = minilm.model.hf(input_ids=torch.tensor([ids]), output_hidden_states=True).hidden_states
        hooks_before = (dict(layer0._forward_hooks), dict(layer0._forward_pre_hooks))
        plain, cache = minilm.run_with_cache(ids)
        zeroed = minilm(ids, hooks={("resid_post", 5): torch.zeros_like})
        doubled_in = minilm(ids, hooks={("resid_pre", 5): lambda x: 2 * x})
    for layer in range(minilm.n_layer):  # the cache's stream is Hugging Face's hidden states
        torch.testing.assert_close(cache["resid_pre", layer], hidden[layer], rtol=0, atol=0)
        torch.testing.assert_close(cache["resid_post", layer], hidden[layer + 1], rtol=0, atol=0)
    assert torch.equal(zeroed, torch.zeros_like(plain))
    assert not torch.allclose(doubled_in, plain, atol=1e-3)
    assert (dict(layer0._forward_hooks), dict(layer0._forward_pre_hooks)) == hooks_before  # none left behind


@pytest.mark.parametrize("lm_name", ["bundled", "minilm"])
@pytest.mark.parametrize(
    ("hooks", "message"),
    [
        ({("resid_post", 99): torch.zeros_like}, r"hook layer must lie in 0\.\.5, got 99"),
        ({("resid_post", -1): torch.zeros_like}, r"hook layer must lie in 0\.\.5, got -1"),
        ({("nonsense", 0): torch.zeros_like}, "unknown hook point 'nonsense'"),
        ({("resid_post", 0): lambda x: x[..., :3]}, r"returned \(1, \d+, 3\), expected shape"),
    ],
)
def test_bad_hooks_are_refused_on_every_architecture(lm_name, hooks, message, request):
    lm = request.getfixturevalue(lm_name)
    assert lm.n_layer == 6  # the messages above name layers 0..5
    with pytest.raises(ValueError, match=message):
        lm(lm.encode("But soft"), hooks=hooks)


def test_a_typed_end_of_text_marker_gets_a_message_a_student_can_act_on(bundled):
    with pytest.raises(
        ValueError, match=r"^<\|endoftext\|> is the end-of-text marker; it cannot be typed in a prompt$"
    ):
        bundled.encode("ROMEO.<|endoftext|>")
