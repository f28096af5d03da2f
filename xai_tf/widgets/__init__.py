"""The lessons' ipywidgets panels, one module per topic on top of ``_panel`` (named controls, one
redraw per change, errors as one line). A lesson imports its topic's module:
``from xai_tf.widgets.decoding import decoding_panel``.
"""
