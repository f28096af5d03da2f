"""Rationalizers, faithful by design (lesson 11; Lei et al., 2016): a generator picks words, a predictor
sees only those. ``penalty`` (Ω: compactness and contiguity), ``reinforce`` (the score-function
estimator and its exact expectation on a toy), ``hardkuma`` (Bastings et al.'s HardKuma distribution),
``sparsity`` (their controlled sparsity: a Lagrange multiplier aiming at a share of selected words),
``model`` (generator, predictor, training with REINFORCE, HardKuma or sparsemax, evaluation against
planted cues), ``eraser`` (DeYoung et al.: comprehensiveness, sufficiency, AOPC of attention, the other
importances and the rationalizers). Their data are checked where they enter by
``xai_tf.tasks.words.check_examples``."""
