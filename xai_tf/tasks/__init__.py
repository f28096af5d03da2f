"""Task data and small task models, one module per task (``sentiment`` for lesson 06, ``language_model``
for lesson 04's training section, ``words``, ``cues``, ``tweets`` and ``recurrent`` for lessons 08 and 11,
``histogram``, ``dyck`` + ``dyck_model`` and ``solvable`` for lesson 09 (``toytasks`` loads the models
``scripts/train_toytasks.py`` ships), ``offsets`` for lesson 14), trained by the shared loop in ``train``."""
