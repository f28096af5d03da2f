"""Training the sparse autoencoder of lesson 10 (monosemanticity) with the one training loop.

Adam "with near default parameters" (β = (0.9, 0.999)) on the loss of ``model.sae_loss``, one
batch of scaled activations per step. Against dead features (codes that never fire again) it uses
Anthropic's remedy of April 2024 rather than resampling: W^enc = W^decᵀ at the start (every feature
starts on the data's directions, ``model``), and λ warmed up linearly from 0 over the first 5% of
steps so that no feature is pushed to zero before it has found something to code. The progress bar
shows the live L0 and FVU of each batch (``metrics``).
"""

from __future__ import annotations

from collections.abc import Iterable

from torch import Tensor
from tqdm.auto import tqdm

from xai_tf import _checks
from xai_tf.sae import metrics
from xai_tf.sae.model import SAEConfig, SparseAutoencoder
from xai_tf.training import TrainOptions, checked_options, fit


def lam_at(k: int, warmup: int, lam: float) -> float:
    """λ_k = λ · min(1, (k + 1) / warmup): the sparsity penalty warmed up linearly over ``warmup`` steps."""
    k, warmup = _checks.integer("k", k, 0), _checks.integer("warmup", warmup, 1)
    return _checks.at_least("lam", lam, 0) * min(1.0, (k + 1) / warmup)


def train_sae(
    batches: Iterable[Tensor],
    config: SAEConfig,
    options: TrainOptions,
    warmup: int | None = None,
    progress: bool = True,
) -> tuple[SparseAutoencoder, dict[str, list[float]]]:
    """An SAE of ``config``'s d, F, λ trained for ``options.steps`` steps of Adam at ``options.lr``
    (initialised from ``options.seed``) on ``batches`` (each ``[n, d]``: the batches set the batch
    size, ``options.batch_size`` is unused), λ warmed up over ``warmup`` steps (default: the first
    5%); returns it with the history {"loss", "L0", "FVU"} of every step. Each batch is converted
    once to the SAE's float32."""
    if not isinstance(config, SAEConfig):
        raise TypeError(f"config must be an SAEConfig, got {type(config).__name__}")
    steps, seed = checked_options(options).steps, options.seed
    warmup = max(1, steps // 20) if warmup is None else _checks.integer("warmup", warmup, 1)
    if isinstance(batches, Tensor) or not isinstance(batches, Iterable):
        raise TypeError(f"batches must be an iterable of tensors [n, d], got {type(batches).__name__}")
    sae = SparseAutoencoder(config, seed=seed)  # its own seeded generator: the global one is not touched
    data = iter(batches)
    history: dict[str, list[float]] = {"L0": [], "FVU": []}
    bar = tqdm(total=steps, desc="SAE", disable=not progress, leave=False)

    def loss(k: int) -> Tensor:
        h = _batch(next(data, None), k, steps, config.d).to(sae.W_enc)
        value, s, a = sae.loss(h, lam_at(k, warmup, config.lam))
        history["L0"].append(metrics.l0(a.detach()))
        history["FVU"].append(metrics.fvu(h, s.detach()))
        bar.update()
        bar.set_postfix(L0=f"{history['L0'][-1]:.1f}", FVU=f"{history['FVU'][-1]:.3f}")
        return value

    history["loss"] = fit(sae.parameters(), loss, options)
    bar.close()
    return sae.eval().requires_grad_(False), history


def _batch(h: object, k: int, steps: int, d: int) -> Tensor:
    """Step k's batch: a finite floating tensor [n ≥ 2, d] (two rows at least, for its FVU)."""
    if h is None:
        raise ValueError(f"batches ran out after {k} batches: steps = {steps} needs {steps}")
    h = _checks.real_tensor(f"batch {k}", h)
    if h.dim() != 2 or h.size(1) != d or len(h) < 2:
        raise ValueError(f"batch {k} has shape {tuple(h.shape)}, expected [n ≥ 2, {d}]")
    return h
