"""Bad-input probes for ``xai_tf.seeds`` (the one seed rule every lesson uses), collected by
``test_bad_inputs.py``."""

from probe_kit import TE, VE

from xai_tf import seeds

EXEMPT = {"xai_tf.seeds.offset": "no arguments (a bad XAI_TF_SEED_OFFSET is tested in test_seeds.py)"}

RAISES = [
    ("xai_tf.seeds.effective", lambda: seeds.effective(-1), VE, "seed must be an integer ≥ 0, got -1"),
    ("xai_tf.seeds.generator", lambda: seeds.generator(1.5), TE, "seed must be an integer ≥ 0, got 1.5"),
    ("xai_tf.seeds.numpy_rng", lambda: seeds.numpy_rng("0"), TE, "seed must be an integer ≥ 0, got '0'"),
    (
        "xai_tf.seeds.seeded",
        lambda: seeds.seeded(None).__enter__(),
        TE,
        "seed must be an integer ≥ 0, got None",
    ),
    (
        "xai_tf.seeds.manual_seed",
        lambda: seeds.manual_seed(True),
        TE,
        "seed must be an integer ≥ 0, got True",
    ),
]

CHECKERS: dict = {}
PANELS: dict = {}
