"""White-box transformers (CRATE, Yu et al. 2023) for lesson 13, one idea a module.

Tokens are **columns** here, as in the CRATE notes: Y ∈ ℝ^{d×T} holds T tokens of d features
(tensors ``[..., d, T]``), unlike the rows ``E(x) ∈ ℝ^{T×d_e}`` of the other lessons.

- ``rate``: the coding rate R(Y), the compression term R^c(Y; U_[K]) = Σ_k R(U_kᵀY) (lecture 004: R_mix),
  their gradients and the sparse rate reduction objective;
- ``mixture``: orthonormal bases U_k and tokens sampled from a mixture of low-rank Gaussians;
- ``mssa``: one gradient step on R^c and its approximation by multi-head subspace self-attention;
- ``ista``: the ISTA block (the sparsifying MLP) and the proximal lemma behind it;
- ``denoise``: Tweedie's formula for the mixture, the notes' attention form, a Monte Carlo mean;
- ``model``: a small CRATE and a standard transformer of the same width and depth;
- ``study``: the subspace-classification task, training both models, per-layer R^c and sparsity.
- ``critique``: how far a learned dictionary is from orthogonal, ‖DᵀD − I‖₂.
"""
