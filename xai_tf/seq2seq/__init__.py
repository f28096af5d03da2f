"""Sequence to sequence with attention (lesson 16; its task data and metrics serve lesson 17 too).

``data`` (the synthetic language pair with gold alignments, vocabularies, padded batches; made by
``grammar`` from the words of ``lexicon``), ``metrics`` (alignment error rate, argmax alignments,
BLEU from sacrebleu, exact match, scores by source length), ``attention`` (the score functions and
Bahdanau's step), ``model`` (the GRU encoder–decoder with or without attention), ``training``,
``decoding`` (greedy, beam search with a length penalty, teacher forcing vs free running, log p(y | x)),
``evaluate`` (translations and attention scored), ``shipped`` (the trained models and their recorded
draws) and ``summary`` (the recorded draws as arrays; where attention and gold links disagree).
Helpers follow the model's device; training runs on the CPU.
"""
