"""bertviz's head and model views, rendered offline and on the first run (lesson 07 and on)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from importlib.resources import files
from pathlib import Path

import torch
import xstatic.pkg.jquery
from bertviz import head_view, model_view
from IPython.display import HTML


@cache
def _d3_and_jquery() -> str:
    """d3 v5.7.0 (the version bertviz asks for, shipped by the mpld3 package) and jQuery (the
    xstatic-jquery package), each evaluated as a CommonJS module into a local variable: no global
    is touched, nothing is fetched."""
    d3 = (files("mpld3") / "js" / "d3.v5.min.js").read_text(encoding="utf-8")
    jquery = (Path(xstatic.pkg.jquery.BASE_DIR) / "jquery.min.js").read_text(encoding="utf-8")

    def module(source: str) -> str:
        body = f"var exports = module.exports;\n{source}\n;return module.exports;"
        return f"(function (module) {{ {body} }})({{exports: {{}}}})"

    return f"var d3 = {module(d3)};\nvar jQuery = {module(jquery)};\n"


_REQUIRE_STAND_IN = """var modules = {d3: d3, jquery: jQuery};
var require = {config: function () {}};
function requirejs(names, main) { main.apply(null, names.map(function (name) { return modules[name]; })); }
"""


def bertviz_view(attentions, tokens: Sequence[str], kind: str = "head") -> HTML:
    """bertviz's head view or model view of attentions ``[layers, heads, T, T]``, made to render
    offline and on the first run: the CDN script tags are dropped and d3 and jQuery are inlined
    from installed packages (so one view carries about 330 kB of JavaScript)."""
    views = {"head": head_view, "model": model_view}
    if kind not in views:
        raise ValueError(f"kind must be 'head' or 'model', got {kind!r}")
    attentions = torch.as_tensor(attentions)
    if attentions.dim() != 4 or attentions.shape[-2:] != (len(tokens), len(tokens)):
        raise ValueError(
            f"attentions must be [layers, heads, {len(tokens)}, {len(tokens)}], got {tuple(attentions.shape)}"
        )
    per_layer = tuple(a[None] for a in attentions)  # bertviz wants one [batch, heads, T, T] per layer
    page = views[kind](per_layer, list(tokens), html_action="return").data
    page = re.sub(r"<script src=[^>]*></script>", "", page)
    opening = '<script type="text/javascript">'
    markup, _, script = page.partition(opening)
    body = script.rsplit("</script>", 1)[0]
    wrapped = "(function () {\n" + _d3_and_jquery() + _REQUIRE_STAND_IN + body + "\n})();"
    return HTML(markup + opening + wrapped.replace("</script", "<\\/script") + "</script>")
