"""The size of a GPT-2 from four numbers (lesson 04, section 7): vocabulary D, context n_ctx, width d_e and
depth L, with the unembedding tied to W_e (weight tying: counted once). Every linear map has a bias and
every LayerNorm a gain γ and a shift β:

    embeddings      W_e: D d_e,   W_p: n_ctx d_e
    one block       LN_1, LN_2: 2 · 2 d_e
                    attention: W_q, W_k, W_v (d_e · 3 d_e + 3 d_e) and W_o (d_e · d_e + d_e)
                    MLP at 4 d_e: (d_e · 4 d_e + 4 d_e) + (4 d_e · d_e + d_e)
                    together 12 d_e² + 13 d_e
    final LN_f      2 d_e

    N = D d_e + n_ctx d_e + L (12 d_e² + 13 d_e) + 2 d_e.

``blocks.parameter_counts`` gives the same total by part from a config.
"""

from __future__ import annotations

from xai_tf import _checks


def gpt2_parameter_count(D: int, n_ctx: int, d_e: int, L: int) -> int:
    """N = D d_e + n_ctx d_e + L (12 d_e² + 13 d_e) + 2 d_e: the parameters of a GPT-2 with a vocabulary of
    D tokens, a context of n_ctx positions, width d_e and L blocks, W_e tied to the unembedding."""
    for name, value in (("D", D), ("n_ctx", n_ctx), ("d_e", d_e), ("L", L)):
        _checks.integer(name, value, 1)
    return D * d_e + n_ctx * d_e + L * (12 * d_e**2 + 13 * d_e) + 2 * d_e
