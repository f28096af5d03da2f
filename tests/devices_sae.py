"""Device rows for lesson 10: sparse autoencoders (collected by ``test_devices.py``)."""

import copy
from collections.abc import Callable
from functools import cache

import device_kit as kit
import torch

import xai_tf


@cache
def _shipped_sae():
    from xai_tf.sae.model import SHIPPED, load

    with torch.device("cpu"):  # built on the host once; each run moves a copy to the model's device
        return load(SHIPPED)[0]


def _sae(lm: xai_tf.LoadedModel) -> list:
    from xai_tf.sae import browse, metrics, steer

    sae = copy.deepcopy(_shipped_sae()).to(lm.device)
    ids = torch.tensor([lm.encode(kit.PROMPT)], device=lm.device)
    H = lm.run_with_cache(ids)[1]["resid_post", 2] * sae.config.scale
    return [
        metrics.ce_loss_recovered(lm, sae, ids, 2),
        metrics.density(sae, H),
        browse.feature_values(sae, H, 3),
        browse.max_codes(sae, H),
        [v for _, v in browse.logit_effects(lm, sae, 3, 4)[0]],
        lm(ids, hooks={("resid_post", 2): steer.clamp_hook(sae, 3, 2.0)}),
        lm(ids, hooks={("resid_post", 2): metrics.reconstruction_hook(sae, sae.config.scale)}),
    ]


CALLS: dict[str, Callable[[xai_tf.LoadedModel], object]] = {
    "sparse autoencoder (lesson 10)": _sae,
}
