"""Structured attention (lesson 18): binary variables z_i ∈ {0, 1} ("attend to position i or not")
instead of one distribution over positions.

``chain`` builds latent structured attention (Kim et al. 2017): independent sigmoid variables, then a
linear-chain CRF over z whose attention is the marginals p(z_i = 1), by forward–backward in log space
and as ∇_θ log Z. ``sparsemap`` is its sparse counterpart (Niculae et al. 2018): the active-set solver
over any structure with a MAP oracle, returning a few structures and their weights.

The lesson's side: ``bias`` (how monotone and contiguous lesson 16's alignments are, and where softmax,
sparsemax and fusedmax put weight), ``compare`` (six maps of one score vector, their Jacobians),
``decoder``/``training``/``shipped`` (lesson 16's decoder with structured attention, trained by
``scripts/train_structured.py``), ``hierarchy`` (hierarchical vs flat attention on a document task).
"""

from xai_tf.structured.chain import (
    chain_log_partition,
    chain_marginals,
    chain_marginals_autograd,
    chain_marginals_enumerated,
    independent_marginals,
    viterbi,
)
from xai_tf.structured.sparsemap import (
    SparseMAP,
    sparsemap_chain,
    sparsemap_chain_marginals,
    sparsemap_unstructured,
)

__all__ = [
    "SparseMAP",
    "chain_log_partition",
    "chain_marginals",
    "chain_marginals_autograd",
    "chain_marginals_enumerated",
    "independent_marginals",
    "sparsemap_chain",
    "sparsemap_chain_marginals",
    "sparsemap_unstructured",
    "viterbi",
]
