"""The cost of attention and the subquadratic answers (lesson 14), one idea a module:

- ``cost``: time and peak memory of one layer as n grows, fitted exponents, sequential operations
  and maximum path length from each layer's connectivity;
- ``chunked``: exact attention with chunked keys and an online softmax (Rabe & Staats 2021);
- ``sparse``: sliding-window and strided patterns (Child et al. 2019), windowed attention;
- ``linear``: linear attention with φ = elu + 1, causal prefix sums (Katharopoulos et al. 2020);
- ``performer``: positive random features for the softmax kernel (Choromanski et al. 2021);
- ``linformer``: low-rank projection of keys and values (Wang et al. 2020);
- ``adaptive``: α-entmax with α learned per head and its ∂/∂α (Correia et al. 2019);
- ``positions``: absolute vs relative position representations (Shaw et al. 2018).
- ``relative``: Shaw et al.'s relative scores z_ij = q_i · (k_j + a^K_r) / √d_att (exercise 5.1's reference).
"""
