"""Device rows for lesson 11: faithful by design (collected by ``test_devices.py``)."""

from collections.abc import Callable

import torch

import xai_tf


def _rationales(lm: xai_tf.LoadedModel) -> list[torch.Tensor]:
    from xai_tf.faithfulness import conicity
    from xai_tf.rationales import hardkuma, penalty, reinforce

    with torch.device("cpu"):  # inputs are made on the CPU, then moved: the helpers must follow
        g = torch.Generator().manual_seed(0)
        H = torch.randn(3, 5, 4, generator=g)
        mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 1, 0, 0, 0]])
        z = (torch.rand(3, 5, generator=g) > 0.5).float()
        a, b = torch.rand(3, 5, generator=g) + 0.5, torch.rand(3, 5, generator=g) + 0.5
        phi = torch.randn(3, generator=g, dtype=torch.float64)
    H, mask, z, a, b, phi = (t.to(lm.device) for t in (H, mask, z, a, b, phi))
    return [
        conicity.conicity(H),
        conicity.conicity(H, mask),
        conicity.layer_conicity(lm, ["To be, or not to be: that is the question."]),
        penalty.omega(z, 0.1, 0.2, mask),
        hardkuma.prob_zero(a, b),
        hardkuma.prob_one(a, b),
        hardkuma.kuma_cdf(z, a, b),
        hardkuma.sample(a, b, torch.Generator().manual_seed(0)),
        reinforce.log_prob(phi, z[0, :3].double()),
        reinforce.expected_estimate(
            phi, lambda s: (s * torch.arange(1.0, 4.0, device=s.device, dtype=s.dtype)).sum()
        ),
    ]


CALLS: dict[str, Callable[[xai_tf.LoadedModel], object]] = {
    "faithful by design (lesson 11)": _rationales,
}
