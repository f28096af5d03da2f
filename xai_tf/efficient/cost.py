"""What one layer costs as the sequence grows (lesson 14): time, peak memory, sequential operations
and maximum path length, measured rather than read off the table.

Vaswani et al. (2017), table 1, per layer (n positions, d = d_e features, kernel k, window r):

    layer                  time           sequential ops   max path length
    self-attention         O(n²·d)        O(1)             O(1)
    recurrent              O(n·d²)        O(n)             O(n)
    convolutional          O(k·n·d²)      O(1)             O(log_k n) dilated, O(n/k) contiguous
    restricted attention   O(r·n·d)       O(1)             O(n/r)

``measure`` times one layer (median of repeats after a warm-up) and records the peak bytes torch
allocates during one call (``peak_bytes``: torch.profiler's memory events on the CPU, the CUDA
allocator's peak on a GPU). ``fit_exponent`` is the slope of log cost against log n. The last two
columns are computed from each layer's connectivity: ``sequential_operations`` is the longest chain
of steps inside one layer that must run one after another, ``max_path_length`` the number of
layers (stacked, identical) a signal needs from position j to position i, the longest over j < i.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import numpy as np
import torch
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import shortest_path
from torch import Tensor, nn

from xai_tf import _checks, seeds, timing
from xai_tf.efficient.chunked import chunked_attention, naive_attention
from xai_tf.efficient.linear import linear_attention
from xai_tf.efficient.linformer import linformer_attention
from xai_tf.efficient.performer import performer_attention
from xai_tf.efficient.sparse import windowed_attention

#: Layers ``layer`` builds. ``width`` is the kernel k, the window r, the features m or the rank k.
METHODS = (
    "self-attention",
    "sdpa",
    "chunked",
    "GRU",
    "LSTM",
    "convolution",
    "restricted attention",
    "linear attention",
    "performer",
    "linformer",
)
KINDS = ("self-attention", "recurrent", "convolution", "restricted attention")
MAX_N = 65_536  # the sweep stops at 16 384; at 65 536 one pass of the quadratic layers takes minutes
MAX_PATH_N = 1024  # breadth-first search over n² edges from each of n positions: n³ steps


def _attention_layer(attend: Callable[[Tensor, Tensor, Tensor], Tensor], d: int, g: torch.Generator):
    W_q, W_k, W_v = (torch.randn(d, d, generator=g, device="cpu") / d**0.5 for _ in range(3))

    def run(E: Tensor) -> Tensor:  # Q = E W_qᵀ, K = E W_kᵀ, V = E W_vᵀ
        return attend(E @ W_q.T.to(E), E @ W_k.T.to(E), E @ W_v.T.to(E))

    return run


def _sdpa(Q: Tensor, K: Tensor, V: Tensor) -> Tensor:
    """torch's fused kernel; [1, 1, n, d] so that the CPU picks its flash-attention path."""
    return torch.nn.functional.scaled_dot_product_attention(Q[:, None], K[:, None], V[:, None])[:, 0]


def layer(method: str, n: int, d: int = 64, width: int = 16, seed: int = 0) -> Callable[[Tensor], Tensor]:
    """One layer of ``method`` (see ``METHODS``) with seeded random weights, for inputs
    ``E [1, n, d]``; ``width`` is the convolution's kernel, the window, the Performer's features or
    the Linformer's rank, in 1..n."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    n, d = _checks.integer("n", n, 1, MAX_N), _checks.integer("d", d, 1)
    width = _checks.integer("width", width, 1, n)
    _checks.fits(f"a layer's weights at d = {d}", 4 * 4 * d * d, "choose a smaller d")
    g = seeds.generator(seed)
    if method in ("GRU", "LSTM"):
        with seeds.seeded(seed):
            rnn = getattr(nn, method)(d, d, batch_first=True)
        return lambda E: rnn.to(E)(E)[0]
    if method == "convolution":
        with seeds.seeded(seed):
            conv = nn.Conv1d(d, d, width, padding="same")
        return lambda E: conv.to(E)(E.transpose(1, 2)).transpose(1, 2)
    attend = {
        "self-attention": naive_attention,
        "sdpa": _sdpa,
        "chunked": lambda Q, K, V: chunked_attention(Q, K, V, chunk_size=256, query_chunk_size=1024),
        "restricted attention": lambda Q, K, V: windowed_attention(Q, K, V, width),
        "linear attention": lambda Q, K, V: linear_attention(Q, K, V, causal=True),
        "performer": lambda Q, K, V: performer_attention(Q, K, V, n_features=width, seed=seed),
        "linformer": lambda Q, K, V: linformer_attention(Q, K, V, rank=width, seed=seed),
    }[method]
    return _attention_layer(attend, d, g)


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Send file descriptor 2 to /dev/null for a moment: the profiler's C++ side prints a
    "profiler_start"/"profiler_stop" line per use, which a notebook would show under every cell."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def peak_bytes(fn: Callable[[], object], device: torch.device | str = "cpu") -> int:
    """Peak bytes torch allocates while ``fn()`` runs, above what was allocated before. On the CPU,
    from torch.profiler's memory events (an allocation counted when its op starts, a free when its
    op ends: a slight over-estimate, never an under-estimate of the tensors alive at once)."""
    if not callable(fn):
        raise TypeError(f"fn must be a function of no arguments, got {type(fn).__name__}")
    device = torch.device(device)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        base = torch.cuda.memory_allocated(device)
        torch.cuda.reset_peak_memory_stats(device)
        fn()
        torch.cuda.synchronize(device)
        return int(torch.cuda.max_memory_allocated(device) - base)
    from torch.profiler import ProfilerActivity, profile

    with _quiet_stderr(), profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    changes = []
    for e in prof.events():
        own = e.self_cpu_memory_usage
        if own:
            changes.append((e.time_range.start if own > 0 else e.time_range.end, own))
    now = best = 0
    for _, change in sorted(changes, key=lambda c: (c[0], -c[1])):
        now += change
        best = max(best, now)
    return int(best)


def measure(
    method: str,
    n: int,
    d: int = 64,
    width: int = 16,
    repeats: int = 3,
    device: torch.device | str = "cpu",
    memory: bool = True,
) -> dict[str, float]:
    """Median seconds of one forward pass of ``layer(method, n, d, width)`` on ``E [1, n, d]`` (one
    warm-up, then ``repeats`` runs, no autograd) and, if ``memory``, its ``peak_bytes``."""
    run = layer(method, n, d, width)
    E = torch.randn(1, n, d, generator=seeds.generator(1), device="cpu").to(device)
    with torch.no_grad():
        result = {"seconds": timing.median_seconds(lambda: run(E), repeats, device)}
        if memory:
            result["peak_bytes"] = float(peak_bytes(lambda: run(E), device))
    return result


def fit_exponent(ns: Sequence[float], costs: Sequence[float], last: int | None = None) -> float:
    """Least-squares slope of log(cost) against log(n) over the ``last`` points (None: all): cost ∝ n^slope.
    Small n is dominated by fixed overheads, so fit the largest n."""
    x, y = np.log(_positive("ns", ns)), np.log(_positive("costs", costs))
    _checks.same_length("fit_exponent", "ns", ns, "costs", costs)
    if len(x) < 2:
        raise ValueError(f"a slope needs at least 2 points, got {len(x)}")
    if last is not None:
        last = _checks.integer("last", last, 2, len(x))
        x, y = x[-last:], y[-last:]
    if np.ptp(x) == 0:
        raise ValueError("ns must hold at least two different values for a slope")
    return float(np.polyfit(x, y, 1)[0])


def _positive(name: str, values: object) -> np.ndarray:
    """A sequence of finite numbers > 0 (sizes, costs on a log axis) as a float array."""
    array = _numbers(name, values)
    if not (array > 0).all():
        raise ValueError(f"{name} must be finite numbers > 0, got {array[:8].tolist()}")
    return array


def _numbers(name: str, values: object) -> np.ndarray:
    """A sequence of finite numbers as a float array."""
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)):
        raise TypeError(f"{name} must be a sequence of numbers, got {type(values).__name__}")
    try:
        array = np.asarray(values, float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a sequence of numbers") from None
    if array.ndim != 1 or not np.isfinite(array).all():
        raise ValueError(f"{name} must be finite numbers, got {array[:8].tolist()}")
    return array


def multiply_adds(kind: str, n: int, d: int = 64) -> int:
    """Multiply-adds of one forward pass on n positions of d features, counting every matrix product:
    self-attention 3·n·d² (Q = E W_qᵀ, K = E W_kᵀ, V = E W_vᵀ) + 2·n²·d (Q Kᵀ and A V); an LSTM
    8·n·d² (four gates, each an input and a recurrent d × d matrix). Equal at n = 2.5·d."""
    if kind not in ("self-attention", "LSTM"):
        raise ValueError(f"kind must be 'self-attention' or 'LSTM', got {kind!r}")
    n, d = _checks.integer("n", n, 1), _checks.integer("d", d, 1)
    return 3 * n * d**2 + 2 * n**2 * d if kind == "self-attention" else 8 * n * d**2


def crossover(ns: Sequence[float], reference: Sequence[float], other: Sequence[float]) -> float | None:
    """The smallest n of ``ns`` from which ``other`` costs less than ``reference`` at every larger n
    measured; None if it never does."""
    _checks.same_length("crossover", "ns", ns, "reference costs", reference)
    _checks.same_length("crossover", "ns", ns, "other costs", other)
    sizes = _positive("ns", ns)
    _numbers("reference costs", reference)
    _numbers("other costs", other)
    if (np.diff(sizes) <= 0).any():
        raise ValueError(f"ns must increase, got {list(ns)}")
    found = None
    for n, a, b in zip(ns, reference, other, strict=True):
        found = (found if found is not None else n) if b < a else None
    return found


def relative_error(Y: Tensor, Y_ref: Tensor) -> float:
    """‖Y − Y_ref‖_F / ‖Y_ref‖_F."""
    if _checks.tensor("Y", Y).shape != _checks.tensor("Y_ref", Y_ref).shape:
        raise ValueError(f"Y is {tuple(Y.shape)} but Y_ref is {tuple(Y_ref.shape)}: they must match")
    if not Y_ref.any():
        raise ValueError("Y_ref is all zeros: an error relative to it is undefined")
    return float((Y - Y_ref).double().norm() / Y_ref.double().norm())


# ---------------------------------------------------------------- connectivity


def connectivity(kind: str, n: int, width: int = 3) -> np.ndarray:
    """C ``[n, n]`` bool, C_ij: position j's input reaches position i's output in one step of a
    ``kind`` layer — self-attention: every j; recurrent: j = i − 1 (the state) and j = i;
    convolution with kernel k = ``width`` (odd): |i − j| ≤ (k − 1)/2; restricted attention: |i − j| ≤ r."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    n = _checks.integer("n", n, 1, MAX_PATH_N)
    width = _checks.integer("width", width, 1, n)
    offset = np.arange(n)[:, None] - np.arange(n)[None, :]
    if kind == "self-attention":
        return np.ones((n, n), bool)
    if kind == "recurrent":
        return (offset == 0) | (offset == 1)
    if kind == "convolution":
        if width % 2 == 0 or width < 3:
            raise ValueError(f"width must be an odd kernel size in 3..{n} for a convolution, got {width}")
        return np.abs(offset) <= (width - 1) // 2
    return np.abs(offset) <= width


def max_path_length(kind: str, n: int, width: int = 3) -> int:
    """max over j < i of the fewest steps from position j to position i through ``connectivity``
    (breadth-first search on the graph with an edge j → i where C_ij)."""
    C = connectivity(kind, n, width)
    hops = shortest_path(csr_matrix(C.T & ~np.eye(n, dtype=bool)), directed=True, unweighted=True)
    forward = hops[np.triu_indices(n, 1)]  # hops[j, i] for j < i
    return int(forward.max()) if len(forward) else 0


def sequential_operations(kind: str, n: int, width: int = 3) -> int:
    """The longest chain of outputs of one layer that depend on each other (each must wait for the
    one before): n for a recurrent layer (h_i needs h_{i−1}), 1 when every output reads only inputs."""
    connectivity(kind, n, width)  # checks the arguments
    waits_for = np.zeros((n, n), bool)  # output i waits for output j of the same layer
    if kind == "recurrent":
        waits_for[np.arange(1, n), np.arange(n - 1)] = True
    depth = np.ones(n, int)
    for i in range(n):  # outputs wait only for earlier ones: one pass in order is enough
        earlier = np.nonzero(waits_for[i])[0]
        if len(earlier):
            depth[i] = 1 + depth[earlier].max()
    return int(depth.max())


#: The table's exponents of n for (time, memory) at fixed d, k, r, m: n² time for every exact
#: attention, n² memory only for the one that stores the scores; n for the rest.
TABLE_EXPONENTS = {
    m: (2.0, 2.0 if m == "self-attention" else 1.0)
    if m in ("self-attention", "sdpa", "chunked")
    else (1.0, 1.0)
    for m in METHODS
}
