"""Bad-input probes for lesson 04's later checkers (issue 54), collected by ``test_bad_inputs.py``; the
first five sit in ``probes_transformer.py``."""

EXEMPT: dict = {}

RAISES: list = []

CHECKERS = {
    "xai_tf.exercises.blocks.check_rotary": r"R_p x is None",
}

PANELS: dict = {}
