"""Device rows for lesson 08: is attention explanation? (collected by ``test_devices.py``)."""

from collections.abc import Callable

import device_kit as kit
import torch

import xai_tf


def _faithfulness(lm: xai_tf.LoadedModel) -> list:
    from xai_tf.faithfulness import (
        adversary,
        baselines,
        correlation,
        deceive,
        erasure,
        heads,
        identifiability,
        importance,
        plausibility,
        transformer,
    )
    from xai_tf.tasks import cues, recurrent
    from xai_tf.tasks.sentiment import SequenceClassifier

    data = cues.cue_sentences(40, seed=0)
    model, flat = kit.trained("bilstm", lm), kit.trained("flat", lm)
    ids = lm.encode(kit.PROMPT * 8)  # 88 tokens > d_h + 1 = 65 keys: a non-trivial equivalent attention
    with torch.no_grad():
        _, cache = lm.run_with_cache(ids)
    clf = SequenceClassifier(lm.model).eval()  # on lm's own model, with the head trained on the host
    clf.head.load_state_dict(kit.trained_on_the_host()["classifier"].head.state_dict())  # not one drawn there
    return [
        recurrent.predict(model, data[:5]),
        recurrent.accuracy(flat, data[:5]),
        importance.importances(model, data[0].ids),
        adversary.epsilon_adversary(model, data[0].ids, steps=5).alpha_adv,
        {by: f.tolist() for by, f in erasure.erasure_study(flat, data[:3]).fraction.items()},
        erasure.removal_order(model, data[0].ids, "∂s/∂α"),
        {pair: t.tolist() for pair, t in correlation.correlation_study(flat, data[:3]).tau.items()},
        deceive.mass_on_cues(flat, data[:3]),
        deceive.state_norms(flat, data[:5]),
        baselines.seed_jsd([model, flat], data[:5]).tolist(),  # numpy by design: compared as floats
        plausibility.precision_study(flat, data[:3]),
        identifiability.equivalent_attention(cache["attn", 0][0, 0, -1], cache["v", 0][0, 0], 0),
        heads.head_removal(lm, lm.encode(kit.PROMPT)),
        transformer.transformer_importances(lm, clf, "Thou art a vile knave."),
    ]


def _train_recurrent(lm: xai_tf.LoadedModel) -> list[torch.Tensor]:
    from xai_tf.tasks import cues, recurrent

    data = cues.cue_sentences(40, seed=0)
    model = recurrent.train_attention_classifier(
        data, len(cues.VOCAB), "bilstm", device=lm.device, options=recurrent.OPTIONS.replace(steps=3)
    )
    return list(model.parameters())


CALLS: dict[str, Callable[[xai_tf.LoadedModel], object]] = {
    "faithfulness (lesson 08)": _faithfulness,
}

TRAINERS: dict[str, Callable[[xai_tf.LoadedModel], list[torch.Tensor]]] = {
    "recurrent.train_attention_classifier": _train_recurrent,
}
