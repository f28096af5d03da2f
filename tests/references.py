"""Independent references shared by the tests and the benchmarks (``benchmarks/`` puts this folder on
its path): written from the papers with a general-purpose library, never from xai_tf's own code."""

import networkx as nx
import torch


def networkx_flow(attentions: torch.Tensor, residual: float = 0.5) -> torch.Tensor:
    """Abnar & Zuidema's attention flow by networkx: the layered graph with capacities
    Â_l = (1 − r) mean_h A_l + r I, and the max-flow from each input t to each output s."""
    eye = torch.eye(attentions.size(-1), dtype=torch.float64)
    A_hat = (1 - residual) * attentions.double().mean(1) + residual * eye
    L, T, _ = A_hat.shape
    G = nx.DiGraph()
    for layer in range(L):
        for s in range(T):
            for t in range(T):
                if A_hat[layer, s, t] > 0:
                    G.add_edge((layer, t), (layer + 1, s), capacity=float(A_hat[layer, s, t]))
    flows = [[nx.maximum_flow_value(G, (0, t), (L, s)) for t in range(T)] for s in range(T)]
    return torch.tensor(flows, dtype=torch.float64)


def tiny_bert():
    """Hugging Face's ``BertModel`` (no pooler, eval mode) at a random tiny size, seeded: the reference
    encoder of the registry's "encoder" kind (vocabulary 50, width 32, 2 layers of 4 heads)."""
    import transformers

    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=50,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=96,
        max_position_embeddings=16,
        attn_implementation="eager",
    )
    return transformers.BertModel(config, add_pooling_layer=False).eval()
