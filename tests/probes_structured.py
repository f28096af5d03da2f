"""Bad-input probes for lesson 18 (structured attention: ``xai_tf.structured``), collected by
``test_bad_inputs.py``: NaN or ±inf scores, no position (T = 0), a transition matrix that is not
[2, 2], integer data, a chain too long to enumerate, a batch where one chain is expected."""

import torch
from probe_kit import NAN, TE, VE, z

from xai_tf import structured as st
from xai_tf.seq2seq import data
from xai_tf.structured import compare, hierarchy, training
from xai_tf.widgets.structured import document_view

A = z(2, 2)
CHAIN = "xai_tf.structured.chain"
SPARSEMAP = "xai_tf.structured.sparsemap"

EXEMPT = {
    f"{CHAIN}.viterbi_array": "unchecked on purpose: SparseMAP's oracle calls it thousands of times a step; "
    "its checked entry point is chain.viterbi (probed below)",
}

RAISES = [
    (
        f"{CHAIN}.independent_marginals",
        lambda: st.independent_marginals(torch.tensor([0.0, NAN])),
        VE,
        "theta has NaN",
    ),
    (
        f"{CHAIN}.independent_marginals",
        lambda: st.independent_marginals(z(3, 0)),
        VE,
        r"theta must be \[..., T\] with T ≥ 1",
    ),
    (
        f"{CHAIN}.chain_log_partition",
        lambda: st.chain_log_partition(torch.tensor([1.0, float("inf")]), A),
        VE,
        "theta has NaN or ±inf",
    ),
    (
        f"{CHAIN}.chain_log_partition",
        lambda: st.chain_log_partition(z(4), z(3, 3)),
        VE,
        r"transition must be \[2, 2\].*got shape \(3, 3\)",
    ),
    (
        f"{CHAIN}.chain_marginals",
        lambda: st.chain_marginals(z(2, 0), A),
        VE,
        r"theta must be \[..., T\] with T ≥ 1",
    ),
    (
        f"{CHAIN}.chain_marginals",
        lambda: st.chain_marginals(torch.arange(4), A),
        TE,
        "theta must be a floating-point tensor",
    ),
    (
        f"{CHAIN}.chain_marginals",
        lambda: st.chain_marginals(z(4), torch.tensor([[0.0, NAN], [0.0, 0.0]])),
        VE,
        "transition has NaN",
    ),
    (f"{CHAIN}.chain_marginals", lambda: st.chain_marginals(z(4), z(4)), VE, r"transition must be \[2, 2\]"),
    (
        f"{CHAIN}.chain_marginals_autograd",
        lambda: st.chain_marginals_autograd(z(4), A.long()),
        TE,
        "transition must be a floating-point",
    ),
    (
        f"{CHAIN}.chain_marginals_autograd",
        lambda: st.chain_marginals_autograd([0.5, 1.0], A),
        TE,
        "theta must be a torch.Tensor",
    ),
    (
        f"{CHAIN}.chain_marginals_enumerated",
        lambda: st.chain_marginals_enumerated(z(17), A),
        VE,
        r"theta's length T .* must be an integer in 1..16, got 17",
    ),
    (f"{CHAIN}.chain_marginals_enumerated", lambda: st.chain_marginals_enumerated(z(0), A), VE, r"T ≥ 1"),
    (
        f"{CHAIN}.viterbi",
        lambda: st.viterbi(z(2, 4), A),
        VE,
        r"theta must be one chain \[T\], got shape \(2, 4\)",
    ),
    (f"{CHAIN}.viterbi", lambda: st.viterbi(z(4), z(2, 3)), VE, r"transition must be \[2, 2\]"),
    (
        f"{SPARSEMAP}.sparsemap_unstructured",
        lambda: st.sparsemap_unstructured(z(0)),
        VE,
        r"theta must be \[T\] with T ≥ 1",
    ),
    (
        f"{SPARSEMAP}.sparsemap_unstructured",
        lambda: st.sparsemap_unstructured(z(2, 3)),
        VE,
        "theta must have 1 dimensions",
    ),
    (
        f"{SPARSEMAP}.sparsemap_unstructured",
        lambda: st.sparsemap_unstructured(torch.tensor([1.0, NAN])),
        VE,
        "theta has NaN",
    ),
    (
        f"{SPARSEMAP}.sparsemap_chain",
        lambda: st.sparsemap_chain(z(5), z(2)),
        VE,
        r"transition must be \[2, 2\]",
    ),
    (f"{SPARSEMAP}.sparsemap_chain", lambda: st.sparsemap_chain(z(0), A), VE, r"T ≥ 1"),
    (
        f"{SPARSEMAP}.sparsemap_chain",
        lambda: st.sparsemap_chain(z(3, 5), A),
        VE,
        r"theta must be one chain \[T\]",
    ),
    (
        f"{SPARSEMAP}.sparsemap_chain",
        lambda: st.sparsemap_chain(torch.ones(4, dtype=torch.int32), A),
        TE,
        "theta must be a floating-point",
    ),
    (
        f"{SPARSEMAP}.sparsemap_chain_marginals",
        lambda: st.sparsemap_chain_marginals(z(2, 5), z(3, 2)),
        VE,
        r"transition must be \[2, 2\]",
    ),
    (
        f"{SPARSEMAP}.sparsemap_chain_marginals",
        lambda: st.sparsemap_chain_marginals(z(2, 0), A),
        VE,
        r"T ≥ 1",
    ),
    (
        f"{SPARSEMAP}.sparsemap_chain_marginals",
        lambda: st.sparsemap_chain_marginals(torch.tensor([[1.0, NAN]]), A),
        VE,
        "theta has NaN",
    ),
]

CHECKERS: dict = {}
PANELS: dict = {}


# Issue 58: enumerating 2^T structures of many chains is refused before it allocates what would not fit.
RAISES += [
    (
        "xai_tf.structured.chain.chain_marginals_enumerated",
        lambda: st.chain_marginals_enumerated(torch.zeros(1, 16).expand(10**6, 16), torch.zeros(2, 2)),
        VE,
        "enumerating 1000000 chains needs .* enumerate fewer chains",
    ),
]


# Issue 58 (second sweep), one row per class: λ is checked whichever map is chosen (softmax ignored a
# λ of "big"); a model of the wrong kind where a StructuredSeq2Seq is expected (an AttributeError
# before); word ids outside the documents' vocabulary reaching nn.Embedding (an IndexError before);
# attention weights with NaN drawn as a page (a bar "nanpx" wide before).
RAISES += [
    (
        "xai_tf.structured.compare.attention_map",
        lambda: compare.attention_map(z(3), "softmax", lam="big"),
        TE,
        "lam must be a finite number ≥ 0",
    ),
    (
        "xai_tf.structured.training.forced_attention",
        lambda: training.forced_attention(None, _corpus(), _corpus().test),
        TE,
        "model must be a StructuredSeq2Seq",
    ),
    (
        "xai_tf.structured.hierarchy.Hierarchical",
        lambda: hierarchy.Hierarchical()(torch.full((1, 2, 3), 10**6)),
        VE,
        r"ids must be token ids in 0\.\.",
    ),
    (
        "xai_tf.widgets.structured.document_view",
        lambda: document_view([["a", "b"]], torch.tensor([[NAN, 1.0]]), torch.ones(1)),
        VE,
        "alpha has NaN",
    ),
]


def _corpus() -> data.Corpus:
    return data.make_corpus(0, 30, 5, 5)
