"""The transformer itself (lessons 04–05): the pieces of a GPT-2 block as formulas (``blocks``),
tokenizers (``tokenization``; byte-pair encoding learned from scratch in ``bpe``), decoding (``decoding``;
its cost with and without the key/value cache in ``decoding_cost``), held-out loss (``lm_eval``) and the
Shakespeare corpus the bundled model is trained on (``corpus``). The architectures it runs are in
``xai_tf.models``.
"""
