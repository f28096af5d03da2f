"""Sphinx configuration of the course website (built by ``scripts/build_site.py``, which puts the executed
lessons into ``lessons/`` next to this file's copy). Nothing here fetches anything: the lessons are not
re-executed, MathJax 3 is served from the site itself (``sphinx-mathjax-offline``) and so is the ipywidgets
renderer (``_static/html-manager/embed.js``, copied there by ``build_site.py`` from the pinned npm tarball
in xai_tf's cache, in place of myst-nb's CDN default), which calls MathJax 2's
``MathJax.Hub.Queue``: ``_static/mathjax2-api.js`` maps that call onto MathJax 3."""

project = "xai_tf"
author = "the xai_tf authors"
copyright = "2026 the xai_tf authors; code MIT, lesson text and figures CC BY 4.0 (see NOTICE.md)"

extensions = ["myst_nb", "sphinx-mathjax-offline"]
exclude_patterns = ["_build", "_static", "**.ipynb_checkpoints"]

myst_enable_extensions = ["dollarmath", "amsmath"]
nb_execution_mode = "off"  # scripts/build_site.py executed every lesson, widget state included
nb_ipywidgets_js = {"html-manager/embed.js": {}}
nb_merge_streams = True

html_theme = "sphinx_book_theme"
html_title = "xai_tf — how transformers work, and how to explain them"
html_static_path = ["_static"]
html_js_files = [("mathjax2-api.js", {"defer": "defer", "priority": 600})]  # after MathJax (priority 500)
html_theme_options = {
    "repository_url": "https://github.com/xai-tf/xai_tf",
    "repository_branch": "main",
    "path_to_docs": "",  # each page's source sits at lessons/NAME.ipynb, as in the repository
    "use_repository_button": True,
    "launch_buttons": {
        "binderhub_url": "https://mybinder.org",
        "colab_url": "https://colab.research.google.com",
        "notebook_interface": "jupyterlab",
    },
}
