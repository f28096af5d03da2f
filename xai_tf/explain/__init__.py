"""Explanation methods, one topic a module: ``attribution`` (gradients, IG, leave-one-out; lesson 06)
on top of ``path_integral`` (IG of any function), ``agreement`` (how far the methods agree; lesson 06),
``lens`` (the logit lens; lesson 04), ``wordlevel`` (word-level attention, rollout, flow; lesson 07), and
``registry`` (one registry of methods by id, and the verb ``explain``), whose methods live in ``causal``
(lesson 06's, for a causal language model), ``encoder`` (attention importances and an encoder's
leave-one-out) and ``faithfulness`` (lesson 08's)."""
