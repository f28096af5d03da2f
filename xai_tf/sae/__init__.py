"""Sparse autoencoders on a model's residual stream (lesson 10, monosemanticity), split by role as
SAELens is: ``activations`` (streaming and scaling), ``model`` (the SAE, its loss, save/load),
``training``, ``metrics`` (L0, FVU, density, CE recovered), ``browse`` (a feature's contexts,
histogram, logit effects, label), ``steer`` (clamping), ``superposition`` (the toy model)."""
