"""Probing and specialised heads (lesson 19): labels the text defines (``data``), the residual stream by
layer (``features``), linear and MLP probes (``probes``), control tasks (``control``), MDL online codes
(``mdl``), specialised heads (``heads``), a part-of-speech proxy for syntactic heads (``pos_heads``), the
depth of lesson 09's Dyck strings in its toy models' states (``dyck_depth``), token identifiability
(``identifiability``) and erasure of hidden states (``erasure``)."""
