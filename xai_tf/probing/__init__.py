"""Probing and specialised heads (lesson 19): labels the text defines (``data``), the residual stream by
layer (``features``), linear and MLP probes (``probes``), control tasks (``control``), MDL online codes
(``mdl``), specialised heads (``heads``), token identifiability (``identifiability``) and erasure of
hidden states (``erasure``)."""
