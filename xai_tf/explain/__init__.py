"""Explanation methods, one topic a module: ``attribution`` (gradients, IG, leave-one-out; lesson 06)
on top of ``path_integral`` (IG of any function), ``agreement`` (how far the methods agree; lesson 06),
``lens`` (the logit lens; lesson 04), ``wordlevel`` (word-level attention, rollout, flow; lesson 07), and
``registry`` (the methods a panel picks by name)."""
