"""Sequence to sequence with attention (lesson 16; its task data and metrics serve lesson 17 too).

``data`` (the synthetic language pair with gold alignments, vocabularies, padded batches),
``grammar`` and ``lexicon`` (how the pairs are made), ``metrics`` (alignment error rate, argmax
alignments, BLEU from sacrebleu, exact match, scores by source length).
"""
