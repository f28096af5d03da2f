"""Lesson 04's training section: the lecture's loss against Hugging Face's, and training that works."""

import math

import torch
from conftest import random_hf_gpt2

from xai_tf.models import GPT2, GPT2Config
from xai_tf.tasks.language_model import next_token_loss, train_from_scratch
from xai_tf.training import TrainOptions


def test_the_loss_is_hugging_faces_language_modelling_loss():
    hf = random_hf_gpt2(0, vocab_size=50, n_positions=16, n_embd=16, n_layer=2, n_head=2)
    ids = torch.randint(0, 50, (13,), generator=torch.Generator().manual_seed(1))
    reference = hf(input_ids=ids[None], labels=ids[None]).loss  # HF shifts the labels itself
    torch.testing.assert_close(next_token_loss(GPT2.from_hf(hf), ids), reference, atol=1e-6, rtol=1e-6)


def test_training_from_scratch_starts_near_log_D_and_learns_the_text():
    config = GPT2Config(vocab_size=40, n_ctx=32, n_embd=32, n_layer=1, n_head=2)
    ids = [3, 17, 5, 22, 9, 31, 3, 17, 5, 22, 9, 31, 3, 17, 5, 22] * 2
    model, history = train_from_scratch(ids, config, TrainOptions(steps=60, lr=1e-2, seed=0))
    assert abs(history[0] - math.log(40)) < 0.3  # a fresh model is close to uniform over D = 40
    assert history[-1] < 0.1 * history[0]  # a 6-token cycle is learnt
    assert next_token_loss(model, ids).item() < 0.1 * history[0]
