"""Task data and small task models, one module per task (``sentiment`` for lesson 06), trained by
the shared loop in ``train``."""
