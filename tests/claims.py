"""The seeds every claim test runs over (see tests/test_claims_*.py): each claim about a trained or
sampled result is re-run for every seed here, through the helpers' ``seed=`` arguments, so
``XAI_TF_SEED_OFFSET`` shifts these draws too."""

SEEDS = range(5)
