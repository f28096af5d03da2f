"""``one_thread``: torch on a single intra-op thread for a while. The toy models of lessons 08–14 are so
small that a second thread only adds waiting, and on a CPU shared with other processes an intra-op thread
that is not scheduled can stall every step."""

from collections.abc import Iterator
from contextlib import contextmanager

import torch


@contextmanager
def one_thread() -> Iterator[None]:
    """Run torch on one thread inside the ``with`` block, then restore the thread count."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)
