"""Rationalizers, faithful by design (lesson 11; Lei et al., 2016): a generator picks words, a predictor
sees only those. ``penalty`` (Ω: compactness and contiguity), ``reinforce`` (the score-function
estimator and its exact expectation on a toy), ``hardkuma`` (Bastings et al.'s HardKuma distribution),
``sparsity`` (their controlled sparsity: a Lagrange multiplier aiming at a share of selected words),
``model`` (generator, predictor, training with REINFORCE, HardKuma or sparsemax, evaluation against
planted cues), ``examples`` (their data, checked against the model's vocabulary where they enter)."""
