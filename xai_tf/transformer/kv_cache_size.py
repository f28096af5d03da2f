"""The size of the key/value cache from a model's shape (lecture 004's modern block, §11.4 of lesson 04):
each of the L layers keeps a key and a value of d_h numbers for every one of the H_kv key/value heads and
each of the T tokens,

    bytes = 2 · L · T · H_kv · d_h · (bytes per number),

with H_kv = H for multi-head attention and H_kv < H (a divisor) for grouped-query attention. The models'
own ``kv_cache_bytes(T)`` is this formula for their shape and dtype.
"""

from __future__ import annotations

from xai_tf import _checks


def kv_cache_size(
    n_layer: int, T: int, n_head: int, n_kv_head: int, d_head: int, bytes_per_number: int
) -> int:
    """2 · L · T · H_kv · d_h · bytes_per_number: the bytes of the keys and values of T tokens cached by
    L = ``n_layer`` layers of H = ``n_head`` query heads sharing H_kv = ``n_kv_head`` key/value heads
    (H_kv must divide H) of size d_h = ``d_head``."""
    for name, value in (("n_layer", n_layer), ("n_head", n_head), ("d_head", d_head)):
        _checks.integer(name, value, 1)
    _checks.integer("T", T, 0)
    _checks.integer("bytes_per_number", bytes_per_number, 1, 8)
    _checks.integer("n_kv_head", n_kv_head, 1, n_head)
    if n_head % n_kv_head:
        raise ValueError(f"n_kv_head must divide n_head = {n_head}, got {n_kv_head}")
    return 2 * n_layer * T * n_kv_head * d_head * bytes_per_number
