"""What the device rows (``devices_*.py``) share: the prompt, seeded scores, the trainers' models made
once on the host, and a tiny Llama on any device."""

import copy
from functools import cache

import torch

import xai_tf
from xai_tf.tasks import sentiment

PROMPT = "ROMEO.\nBut soft, what light"


def scores(lm: xai_tf.LoadedModel) -> torch.Tensor:
    g = torch.Generator().manual_seed(0)
    return torch.randn(3, 7, generator=g, device="cpu").to(lm.device) * 3


@cache
def trained_on_the_host() -> dict[str, torch.nn.Module]:
    """The trainers' models, trained once on the CPU. A trained model differs from device to device
    (cuDNN's LSTM, and Adam's normalised steps on near-zero gradients, turn float differences into
    different weights), so the helpers downstream get the same weights on every device, and the
    trainers are checked on their own device by ``test_trainer_trains_on_the_device``."""
    from xai_tf.cbm import arthritis, shapes, training
    from xai_tf.tasks import cues, recurrent

    with torch.device("cpu"):
        lm = xai_tf.load_model("shakespeare")
        data, concepts, images = (
            cues.cue_sentences(40, seed=0),
            arthritis.arthritis(64, seed=0),
            shapes.shapes(16, seed=0),
        )
        return {
            "classifier": sentiment.train_classifier(
                lm, sentiment.sentiment_phrases()[0][::8], options=sentiment.OPTIONS.replace(steps=20)
            ),
            "bilstm": recurrent.train_attention_classifier(
                data, len(cues.VOCAB), "bilstm", options=recurrent.OPTIONS.replace(steps=5)
            ),
            "flat": recurrent.train_attention_classifier(
                data, len(cues.VOCAB), "none", options=recurrent.OPTIONS.replace(steps=5)
            ),
            "sequential": training.train("sequential", concepts, options=training.OPTIONS.replace(steps=5)),
            "joint": training.train(
                "joint", concepts, lam=1.0, options=training.OPTIONS.replace(steps=5, batch_size=16)
            ),
            "cnn": training.train(
                "independent", images, options=training.OPTIONS.replace(steps=3, batch_size=8)
            ),
        }


def trained(name: str, lm: xai_tf.LoadedModel) -> torch.nn.Module:
    return copy.deepcopy(trained_on_the_host()[name]).to(lm.device)


@cache
def llama_on_the_host(vocab_size: int) -> torch.nn.Module:
    """A random tiny Llama (grouped-query attention, 2 key/value heads for 4 query heads, untied) over
    the bundled model's vocabulary, made once on the CPU so that every device gets the same weights."""
    from xai_tf.models.llama import Llama
    from xai_tf.models.llama_config import LlamaConfig

    config = LlamaConfig(
        vocab_size=vocab_size, n_ctx=64, n_embd=16, n_layer=2, n_head=4, n_kv_head=2, d_mlp=24
    )
    with torch.device("cpu"):
        torch.manual_seed(0)
        return Llama(config).eval()


def tiny_llama(lm: xai_tf.LoadedModel) -> xai_tf.LoadedModel:
    """The tiny Llama on ``lm``'s device, reading ``lm``'s tokenizer."""
    model = copy.deepcopy(llama_on_the_host(lm.vocab_size)).to(lm.device)
    return xai_tf.LoadedModel(model, lm.tokenizer, "tiny-llama")
