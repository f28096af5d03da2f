"""Device rows for lesson 12: concept bottleneck models (collected by ``test_devices.py``)."""

from collections.abc import Callable

import device_kit as kit
import torch

import xai_tf


def _cbm(lm: xai_tf.LoadedModel) -> list:
    from xai_tf.cbm import arthritis, intervention, leakage, losses, metrics, shapes

    train = arthritis.arthritis(64, seed=0).to(lm.device)
    test = arthritis.arthritis(32, seed=1).to(lm.device)
    images = shapes.shapes(16, seed=0).to(lm.device)
    seq, joint, cnn = (kit.trained(name, lm) for name in ("sequential", "joint", "cnn"))
    with torch.no_grad():
        b = seq.bottleneck(test.x)
        q = intervention.percentiles(seq, train)
        return [
            seq(test.x),
            joint(test.x),
            cnn(images.x),
            shapes.label_rule(images.c),
            arthritis.severity_score(test),
            losses.joint_loss(
                joint(test.x), test.y, joint.concept_outputs(test.x), test.c, test.binary, 0.5, "regression"
            ),
            intervention.intervene(seq, b, test.c, [0, 7], q),
            intervention.uncertainty(seq, test, train),
            intervention.group_order(seq, test, train, "uncertainty"),
            intervention.intervention_curve(joint, test, train, "random"),  # floats
            leakage.scramble(b, test.c, test.binary, seed=2),
            metrics.evaluate(seq, test),  # a dict of floats
        ]


def _train_cbm(mode: str, images: bool = False) -> Callable[[xai_tf.LoadedModel], list[torch.Tensor]]:
    from xai_tf.cbm import arthritis, shapes, training

    def train(lm: xai_tf.LoadedModel) -> list[torch.Tensor]:
        data = shapes.shapes(16, seed=0) if images else arthritis.arthritis(64, seed=0)
        return list(
            training.train(
                mode, data.to(lm.device), options=training.OPTIONS.replace(steps=3, batch_size=8)
            ).parameters()
        )

    return train


CALLS: dict[str, Callable[[xai_tf.LoadedModel], object]] = {
    "concept bottlenecks (lesson 12)": _cbm,
}

TRAINERS: dict[str, Callable[[xai_tf.LoadedModel], list[torch.Tensor]]] = {
    "cbm training, joint": _train_cbm("joint"),
    "cbm training, independent CNN": _train_cbm("independent", images=True),
}
