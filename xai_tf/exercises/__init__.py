"""Exercise checkers, one module per topic (``attention``, ``decoding``, …) on top of ``_check``.

A lesson imports its own topic's module: ``from xai_tf.exercises.attention import check_softmax``.
"""
