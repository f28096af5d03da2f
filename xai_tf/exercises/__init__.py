"""Exercise checkers, one module per topic (``attention``, ``masking``, ``decoding``, …) on top of ``_check``.

A lesson imports its own topic's module: ``from xai_tf.exercises.attention import check_softmax``, and
``use`` for its check cells: ``softmax = use(check_softmax, my_softmax)`` checks the student's function
and returns the one the lesson continues with (docs/practice.md describes the whole scheme).
"""

from xai_tf.exercises._check import use

__all__ = ["use"]
