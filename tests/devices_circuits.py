"""Device rows for lesson 15: circuits (collected by ``test_devices.py``)."""

from collections.abc import Callable

import torch

import xai_tf


def _circuits(lm: xai_tf.LoadedModel) -> list:
    from xai_tf import circuits
    from xai_tf.circuits import patching, shipped

    ids = circuits.repeated_tokens(lm, 6, batch=2, seed=0)
    pattern = circuits.attention_patterns(lm, ids)
    clean = torch.tensor([lm.encode("Enter Romeo and Juliet")], device=lm.device)
    corrupted = torch.tensor([lm.encode("Enter Hamlet and Juliet")], device=lm.device)
    metric = circuits.logit_difference_metric(
        lm, clean, corrupted, lm.encode(" Romeo")[0], lm.encode(" Hamlet")[0]
    )
    small = shipped.induction_model()
    small.model.to(lm.device)
    report = shipped.induction_report(small, 8, batch=2)
    return [
        ids,
        circuits.per_token_loss(lm, ids),
        circuits.induction_scores(pattern),
        circuits.previous_token_scores(pattern),
        circuits.ablate_head(lm, ids, 1, 2, how="mean"),
        circuits.k_composition(circuits.qk_ov(lm, 2, 0)[0], circuits.qk_ov(lm, 1, 3)[1]),
        circuits.activation_patching(lm, clean, corrupted, metric, "z", "noising"),
        circuits.attribution_patching(lm, clean, corrupted, metric, "resid_pre"),
        [p for _, p in patching.patched_top_tokens(lm, clean, corrupted, "attn_out", 1, 2, k=3)],
        [v for v in report.values() if isinstance(v, float)],
    ]


CALLS: dict[str, Callable[[xai_tf.LoadedModel], object]] = {
    "circuits (lesson 15)": _circuits,
}
