"""Device rows for lesson 09: toy tasks (collected by ``test_devices.py``)."""

from collections.abc import Callable

import torch

import xai_tf


def _toytasks(lm: xai_tf.LoadedModel) -> list[torch.Tensor]:
    from xai_tf.tasks import dyck, dyck_model, histogram, solvable

    with torch.device("cpu"):  # models and data are made on the CPU, then moved: the helpers must follow
        torch.manual_seed(0)
        hist_model, dyck_net = histogram.HistogramModel(), dyck_model.DyckModel()
        x, _ = histogram.histogram_data(4, seed=0)
        strings = dyck.sample_dyck(3, 12, seed=0)
        ids, (_, top) = dyck.encode_dyck(strings), dyck.next_close_targets(strings)
        sx, sy, Q_star = solvable.solvable_data(5, 6, seed=0)
    hist_model, dyck_net = hist_model.to(lm.device), dyck_net.to(lm.device)
    x, ids, top = x.to(lm.device), ids.to(lm.device), top.to(lm.device)
    sx, sy, Q_star = sx.to(lm.device), sy.to(lm.device), Q_star.to(lm.device)
    with torch.no_grad():
        logits, A = hist_model(x)
        dyck_logits, dyck_A = dyck_net(ids)
    return [
        histogram.histogram_labels(x),
        logits,
        A,
        histogram.same_token_share(A, x),
        dyck_logits,
        dyck_model.stack_share(dyck_A, top),
        solvable.student(Q_star, sx),
        solvable.solvable_loss(Q_star, sx, sy),
    ]


CALLS: dict[str, Callable[[xai_tf.LoadedModel], object]] = {
    "toy tasks (lesson 09)": _toytasks,
}
