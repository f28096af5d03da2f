"""Concept bottleneck models (lesson 12), f(x) = g(h(x)) with h: ℝ^d → ℝ^k predicting k concepts and
g: ℝ^k → ℝ the output from them (Koh et al. 2020), one idea a module:

- ``data``: a data set with known concepts (inputs x, concepts c, target y, which concepts are binary);
- ``arthritis``: a seeded tabular task in the spirit of the lecture's arthritis example;
- ``shapes``: seeded rendered shapes with known colour, shape, size and position concepts;
- ``losses``: the concept losses ℓ_j, the task loss ℓ and the joint loss;
- ``models``: h and g (small MLPs, a small CNN) and the bottleneck model f = g ∘ h;
- ``training``: the four ways to train f — independent, sequential, joint (λ) and standard;
- ``metrics``: task error and concept error of a trained model;
- ``intervention``: replacing predicted concepts by true ones at test time, in random or uncertainty order;
- ``posthoc``: a post-hoc concept bottleneck (PCBM, PCBM-h) on a trained model's frozen features
  (Yuksekgonul et al. 2023);
- ``leakage``: how much the soft concept outputs say about y beyond the concepts (Mahinpei et al. 2021;
  Margeloiu et al. 2021).
- ``formulas``: the arthritis task's grade and the post-hoc head's elastic-net objective as functions of
  tensors (the references of the lesson's exercises 2.1 and 7.1).
"""
