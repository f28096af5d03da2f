"""Minimum description length probing, online code (Voita & Titov 2020; lesson 19).

Sender and receiver share the states h_1..h_N; the sender transmits the labels y_1..y_N block by block.
With timestamps 1 ≤ t_1 < t_2 < … < t_S = N (the paper's: 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.25, 12.5,
25, 50 and 100 % of N), the first block is sent with the uniform code over K labels, and each later
block with a probe p_{θ_i} trained on the examples sent so far (1..t_i):

    L_online = t_1 log₂ K − Σ_{i=1}^{S−1} Σ_{n=t_i+1}^{t_{i+1}} log₂ p_{θ_i}(y_n | h_n)   (bits),

against the uniform code L_unif = N log₂ K. Compression = L_unif / L_online: 1 means the states say
nothing a probe can use about the labels; the more regular the labels are in h, the shorter the code.
Unlike accuracy it counts how much data the probe needs, so a label learnt only by memorising (the
control task) costs more bits even where the final accuracy is high.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F
from torch import Tensor

from xai_tf import _checks
from xai_tf.probing.probes import Probe, check_probe_data

#: The paper's block boundaries, as shares of N.
FRACTIONS = (0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.0625, 0.125, 0.25, 0.5, 1.0)


def timestamps(N: int, fractions: Sequence[float] = FRACTIONS) -> list[int]:
    """t_1 < … < t_S = N: ⌈f·N⌉ (at least 1) for each share f, duplicates dropped."""
    _checks.integer("N", N, 2)
    if not fractions or any(not 0 < f <= 1 for f in fractions) or list(fractions) != sorted(fractions):
        raise ValueError(f"fractions must rise within (0, 1], got {fractions}")
    ts = sorted({max(1, math.ceil(f * N - 1e-9)) for f in fractions} | {N})
    return ts


def codelength(p_true: Tensor, n_first: int, n_classes: int) -> float:
    """L_online in bits from the probabilities p_{θ_i}(y_n | h_n) of every example after the first block
    (``p_true [N − t_1]``), the first block's size t_1 and K."""
    p = _checks.real_tensor("p_true", p_true, dims=1)
    if bool(((p <= 0) | (p > 1)).any()):
        raise ValueError("p_true must hold probabilities in (0, 1]")
    _checks.integer("n_first", n_first, 1)
    _checks.integer("n_classes", n_classes, 2)
    return n_first * math.log2(n_classes) - float(torch.log2(p.double()).sum())


def online_codelength(
    fit: Callable[[Tensor, Tensor, int], Probe],
    h: Tensor,
    y: Tensor,
    n_classes: int | None = None,
    fractions: Sequence[float] = FRACTIONS,
) -> tuple[Tensor, float]:
    """(L_online, L_unif) in bits for the examples in the order given, ``fit(h, y, K)`` trained on each
    prefix 1..t_i; one problem ``h [N, d]``, ``y [N]`` (L_online a 0-d tensor) or a stack ``[B, N, d]``,
    ``[B, N]`` (L_online ``[B]``). Each problem of a stack is coded as it would be alone:

    - a prefix that holds one label only cannot train a probe: that problem's next block is coded with the
      add-one (Laplace) frequencies (n_k + 1) / (t_i + K) of the labels sent so far;
    - a class not yet sent (K′ < K classes seen) has no examples to fit, and what a probe gives it is
      whatever its optimiser reached; it gets the add-one estimate's escape mass instead: each unseen class
      1 / (t_i + K), i.e. log₂(t_i + K) bits, and the probe's distribution over the seen classes,
      renormalised, the rest, (t_i + K′) / (t_i + K). With every class seen this is the probe's own."""
    single = isinstance(h, Tensor) and h.dim() == 2
    h, y, K = check_probe_data(h, y, n_classes)
    N = y.size(1)
    ts = timestamps(N, fractions)
    bits = torch.full((y.size(0),), ts[0] * math.log2(K), dtype=torch.float64, device=h.device)
    for start, end in zip(ts[:-1], ts[1:], strict=True):
        counts = F.one_hot(y[:, :start], K).sum(1).double()  # [B, K]
        logp = ((counts + 1) / (start + K)).log()[:, None].repeat(1, end - start, 1)  # add-one, [B, n, K]
        fitted = (counts > 0).sum(-1) > 1
        if bool(fitted.any()):
            probe = fit(h[fitted, :start], y[fitted, :start], K)
            logp[fitted] = _with_escape(probe(h[fitted, start:end]), counts[fitted] > 0, start)
        bits -= logp.gather(2, y[:, start:end, None])[..., 0].sum(1) / math.log(2)
    return (bits[0] if single else bits), N * math.log2(K)


def _with_escape(logp: Tensor, seen: Tensor, t: int) -> Tensor:
    """log q for a probe's ``logp [B, n, K]`` and the classes ``seen [B, K]`` in a prefix of t labels: the
    probe renormalised over the seen classes, times (t + K′) / (t + K); 1 / (t + K) for each unseen one."""
    K, k_seen = seen.size(-1), seen.sum(-1, keepdim=True).double()  # K′ per problem, [B, 1]
    on_seen = logp.masked_fill(~seen[:, None], -math.inf)
    on_seen = on_seen - on_seen.logsumexp(-1, keepdim=True) + ((t + k_seen) / (t + K)).log()[:, None]
    return torch.where(seen[:, None], on_seen, -math.log(t + K))
