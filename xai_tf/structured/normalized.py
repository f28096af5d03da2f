"""Kim et al.'s (2017) normalised CRF marginals (lesson 18, section 4), as a function.

Their translation code (harvardnlp/struct-attn, ``models/models-nmt.lua``) reads the attention of a
linear-chain CRF as its marginals divided by their sum and scaled by a constant λ,
``nn.MulConstant(lambda)(nn.Normalize(1)(attn))``:

    α_ij = λ p(z_j = 1) / Σ_{j'} p(z_{j'} = 1)

(``-lambda 2`` by default in their ``train-nmt.lua``; the ``crf_normalized`` decoder of
``xai_tf.structured.decoder`` uses λ = 1, a distribution over the source words again). It lives apart
from ``decoder`` so that the recorded trainings' fingerprint (that module's code) is unchanged.
"""

from __future__ import annotations

from torch import Tensor

from xai_tf import _checks


def normalized_marginals(p: Tensor, lam: float = 1.0) -> Tensor:
    """α_j = λ p_j / Σ_{j'} p_{j'} along the last axis of the marginals ``p [..., S]`` (entries in [0, 1],
    each row with a positive sum), λ = ``lam`` > 0; each row of α sums to λ."""
    p = _checks.real_tensor("p", p)
    if p.dim() == 0 or p.size(-1) == 0:
        raise ValueError(f"p must be [..., S] with S ≥ 1 marginals p(z_j = 1), got shape {tuple(p.shape)}")
    if bool(((p < 0) | (p > 1)).any()):
        raise ValueError("p must hold marginals p(z_j = 1) in [0, 1], got a value outside")
    total = p.sum(-1, keepdim=True)
    if bool((total <= 0).any()):
        raise ValueError("p has a row of zeros: its marginals cannot be divided by their sum")
    return _checks.positive("lam", lam) * p / total
