"""Lesson 17's claims about random draws, re-run over ``claims.SEEDS`` at the current
``XAI_TF_SEED_OFFSET`` (cheap: models at initialisation, one batch each)."""

import pytest
import torch
from claims import SEEDS

from xai_tf import seeds
from xai_tf.encdec import analysis
from xai_tf.encdec.model import Seq2SeqTransformer
from xai_tf.seq2seq import data


def _decoder_ratio(seed: int, norm_first: bool) -> float:
    """‖∇ last decoder block‖ / ‖∇ first decoder block‖ of a 6 + 6-block model at initialisation."""
    corpus = data.make_corpus(0)
    with seeds.seeded(seed):
        model = Seq2SeqTransformer(
            len(corpus.source_vocab), len(corpus.target_vocab), n_layers=6, norm_first=norm_first
        )
    idx = torch.randperm(len(corpus.train), generator=seeds.generator(seed))[:32].tolist()
    norms = analysis.gradient_norms(model, [corpus.train[i] for i in idx], corpus)
    return (norms[1, -1] / norms[1, 0]).item()


@pytest.mark.parametrize("seed", SEEDS)
def test_post_ln_gradients_grow_towards_the_output_pre_ln_do_not(seed):
    """Section 5 (Xiong et al. 2020). Measured on 20 draws (seeds 0–19, offset 0; Intel Xeon, 1 thread):
    the ratio last / first decoder block is 3.31–11.26 for post-LN (spread 7.95: bound 3.31 − 7.95/4 ≈ 1.3)
    and 0.56–0.92 for pre-LN (spread 0.36: bound 0.92 + 0.36/4 ≈ 1.01)."""
    assert _decoder_ratio(seed, norm_first=False) > 1.3
    assert _decoder_ratio(seed, norm_first=True) < 1.01
