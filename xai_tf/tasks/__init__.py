"""Task data and small task models, one module per task (``sentiment`` for lesson 06, ``language_model``
for lesson 04's training section, ``offsets`` for lesson 14), trained by the shared loop in ``train``."""
