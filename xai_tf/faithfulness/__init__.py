"""Is attention explanation? The debate's experiments, one idea a module (lesson 08; lesson 11 builds
on them): ``importance`` (attention, gradient, leave-one-out, IG of one prediction), ``correlation``
(Jain & Wallace's Kendall τ), ``divergence`` (KL, JSD, TVD), ``adversary`` (ε-adversarial attention),
``erasure`` (Serrano & Smith), ``deceive`` (Pruthi et al.), ``baselines`` (Wiegreffe & Pinter: uniform
attention, seeds, the model-consistent adversary), ``plausibility`` (precision at k against planted
cues), ``identifiability`` (Brunner et al.), ``heads`` (head removal), ``transformer`` (attention,
rollout and flow against IG and leave-one-out on a transformer classifier). Lesson 11 adds ``conicity``
(Mohankumar et al.) and ``regularised`` (the diversity penalty and Tutek & Šnajder's h–e tying); its
ERASER metrics, which also score rationalizers, are ``xai_tf.rationales.eraser``."""
