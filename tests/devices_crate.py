"""Device rows for lesson 13: white-box transformers (collected by ``test_devices.py``)."""

from collections.abc import Callable

import torch

import xai_tf


def _crate(lm: xai_tf.LoadedModel) -> list[torch.Tensor]:
    from xai_tf.crate import denoise, ista, mixture, mssa, rate

    U = mixture.random_bases(8, 2, 3, device=lm.device)
    g = torch.Generator().manual_seed(0)
    Y = torch.randn(8, 10, generator=g, dtype=torch.float64, device="cpu").to(lm.device)
    D = torch.linalg.qr(torch.randn(8, 8, generator=g, dtype=torch.float64, device="cpu"))[0].to(lm.device)
    x, _, _ = mixture.sample_tokens(U, 5, 0.5, seed=1)
    return [
        rate.coding_rate(Y, 0.5),
        rate.coding_rate_grad(Y, 0.5),
        rate.compression_rate(Y, U, 0.5),
        rate.compression_rate_grad(Y, U, 0.5),
        mssa.mssa(Y, U),
        mssa.mssa_step(Y, U, 0.5, 0.1),
        mssa.neumann_step(Y, U, 0.5, 0.1),
        mssa.neumann_radius(Y, U, 0.5),
        ista.ista(Y, D, 0.1, 0.1, steps=3),
        ista.prox_orthogonal(Y, D, 0.5, 0.2),
        x,
        denoise.posterior_mean(x, U, 0.5),
        denoise.notes_step(x, U, 0.5),
        *denoise.monte_carlo_mean(x, U, 0.5, n=2000, seed=2),
    ]


CALLS: dict[str, Callable[[xai_tf.LoadedModel], object]] = {
    "white-box transformers (lesson 13)": _crate,
}
