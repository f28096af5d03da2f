"""Is attention explanation? The debate's experiments, one idea a module (lesson 08; lesson 11 builds
on them): ``importance`` (attention, gradient, leave-one-out, IG of one prediction), ``correlation``
(Jain & Wallace's Kendall τ), ``adversary`` (ε-adversarial attention, JSD), ``erasure`` (Serrano &
Smith), ``deceive`` (Pruthi et al.), ``baselines`` (Wiegreffe & Pinter: uniform attention, seeds),
``plausibility`` (precision at k against planted cues), ``identifiability`` (Brunner et al.)."""
