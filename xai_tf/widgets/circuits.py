"""Lesson 15's figures and panel: a grid (layers × positions or heads) as a heatmap, the three
figures of an induction test, and the patching panel (a prompt pair, the answer and wrong token, the
component, exact or attribution patching; the grid is a grid of buttons, and clicking a cell shows its
patched run's top next tokens)."""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.axes import Axes

from xai_tf import _checks
from xai_tf.circuits import metrics, patching
from xai_tf.circuits.attribution_patching import attribution_patching
from xai_tf.models.loaded import LoadedModel
from xai_tf.viz.arrays import host_array
from xai_tf.viz.svg import html_ranked_table
from xai_tf.widgets._panel import Panel, needs, position_labels

# the panel's methods by name: exact activation patching, and its first-order estimate
METHODS = {"exact": patching.activation_patching, "attribution": attribution_patching}
#: The longest prompt the panel patches (exact patching runs layers × tokens forward passes of it).
MAX_TOKENS = 32


def _grid(name: str, grid: object, columns: object) -> tuple[np.ndarray, list[str]]:
    """A finite ``[layers, len(columns)]`` array on the host, and the column labels as strings."""
    if isinstance(columns, str) or not isinstance(columns, Sequence):
        raise TypeError(f"columns must be a list of labels (str), got {type(columns).__name__}")
    labels = [str(c) for c in columns]
    if isinstance(grid, torch.Tensor):
        grid = _checks.real_tensor(name, grid)
    array = host_array(grid)
    if array.ndim != 2 or array.shape[1] != len(labels) or not array.size:
        raise ValueError(
            f"{name} must be [layers, {len(labels)}] for {len(labels)} columns, got {array.shape}"
        )
    if not np.issubdtype(array.dtype, np.number) or np.issubdtype(array.dtype, np.complexfloating):
        raise TypeError(f"{name} must hold real numbers, got {array.dtype}")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} has NaN or ±inf entries: every cell must be a finite number")
    return array.astype(float), labels


def plot_grid(
    grid,
    columns: Sequence[str],
    title: str = "",
    ax: Axes | None = None,
    scale: float | None = None,
    signed: bool = True,
) -> Axes:
    """``grid [layers, n]`` as a heatmap, layers down, ``columns`` across: diverging on −``scale``..
    ``scale`` (0 white; default scale the largest |value|), or with ``signed=False`` for values that
    cannot be negative (scores in 0..1), sequential on 0..``scale``."""
    grid, columns = _grid("grid", grid, columns)
    if not isinstance(signed, bool):
        raise TypeError(f"signed must be True (colours on −scale..scale) or False (0..scale), got {signed!r}")
    ax = ax or plt.subplots(figsize=(0.55 * len(columns) + 2, 0.4 * len(grid) + 1.4))[1]
    scale = max(float(np.abs(grid).max()), 1e-9) if scale is None else _checks.positive("scale", scale)
    cmap, low = ("RdBu_r", -scale) if signed else ("Blues", 0.0)
    image = ax.imshow(grid, cmap=cmap, vmin=low, vmax=scale, aspect="auto")
    ax.set_xticks(range(len(columns)), columns, rotation=60, ha="right", fontsize=9)
    ax.set_yticks(range(len(grid)), [f"layer {layer}" for layer in range(len(grid))], fontsize=9)
    ax.set_title(title, fontsize=11)
    plt.colorbar(image, ax=ax, shrink=0.8)
    return ax


def plot_induction(loss, induction, previous, half: int, title: str = "") -> plt.Figure:
    """The three figures of an induction test on repeated tokens (``half`` tokens a half): the
    per-token loss ``[batch, 2·half − 1]`` averaged over the batch with the halves' border marked,
    and the induction and previous-token scores ``[layers, heads]`` as grids on 0..1."""
    half = _checks.integer("half", half, 2)
    loss, induction = host_array(loss), host_array(induction)
    if loss.ndim != 2 or loss.shape[1] != 2 * half - 1 or not loss.shape[0]:
        raise ValueError(f"loss must be [batch, {2 * half - 1}] for half = {half}, got {loss.shape}")
    if not np.isfinite(loss).all():
        raise ValueError("loss has NaN or ±inf entries: every per-token loss must be a finite number")
    previous = host_array(previous)
    if induction.ndim != 2 or previous.shape != induction.shape:
        raise ValueError(
            f"induction and previous must be [layers, heads] of one shape, got {induction.shape} and "
            f"{previous.shape}"
        )
    fig, axes = plt.subplots(1, 3, figsize=(15, 0.35 * len(induction) + 2.6))
    axes[0].plot(loss.mean(0))
    axes[0].axvline(half - 0.5, color="grey", ls=":")
    axes[0].set(xlabel="position t", ylabel="loss (nats)", title=f"{title}per-token loss, batch mean")
    heads = [f"head {h}" for h in range(induction.shape[1])]
    plot_grid(induction, heads, "induction score (colours on 0..1)", axes[1], scale=1.0, signed=False)
    plot_grid(previous, heads, "previous-token score (colours on 0..1)", axes[2], scale=1.0, signed=False)
    fig.tight_layout()
    return fig


def _colour(value: float) -> str:
    """The grid's colour of ``value`` (RdBu_r on −1..1, as ``plot_grid`` with scale 1)."""
    r, g, b, _ = plt.get_cmap("RdBu_r")((max(-1.0, min(1.0, value)) + 1) / 2)
    return f"#{int(255 * r):02x}{int(255 * g):02x}{int(255 * b):02x}"


def cell_grid(grid, columns: Sequence[str], choose: Callable[[int, int], None]) -> widgets.GridBox:
    """``grid [layers, n]`` as a grid of small buttons coloured like ``plot_grid`` (−1..1), each
    showing its value; clicking cell (l, i) calls ``choose(l, i)``. ``_select`` outlines one."""
    grid, columns = _grid("grid", grid, columns)
    if not callable(choose):
        raise TypeError(f"choose must be a function (layer, i) → None, got {type(choose).__name__}")
    header = [widgets.HTML("")] + [
        widgets.HTML(f"<div style='font-size:10px;overflow:hidden'>{html.escape(c)}</div>") for c in columns
    ]
    cells: list[widgets.Widget] = list(header)
    for layer, row in enumerate(grid):
        cells.append(widgets.HTML(f"<div style='font-size:11px'>L{layer}</div>"))
        for i, value in enumerate(row):
            button = widgets.Button(
                description=f"{value:.2f}",
                tooltip=f"layer {layer}, {columns[i]}: {value:.3f}",
                layout=widgets.Layout(width="auto", height="24px", padding="0", border=UNSELECTED),
                style=widgets.ButtonStyle(
                    button_color=_colour(value),
                    font_size="10px",
                    text_color="white" if abs(value) > 0.6 else "black",
                ),
            )
            button.on_click(lambda _b, layer=layer, i=i: choose(layer, i))
            cells.append(button)
    return widgets.GridBox(
        cells,
        layout=widgets.Layout(
            grid_template_columns=f"32px repeat({len(columns)}, minmax(38px, 60px))", grid_gap="1px"
        ),
    )


UNSELECTED, SELECTED = "1px solid white", "2px solid black"


def _select(box: widgets.GridBox, n: int, cell: tuple[int, int]) -> None:
    """Outline ``cell`` = (layer, i) of a ``cell_grid`` of ``n`` columns, and no other."""
    buttons = [w for w in box.children if isinstance(w, widgets.Button)]
    chosen = cell[0] * n + cell[1]
    for k, button in enumerate(buttons):
        border = SELECTED if k == chosen else UNSELECTED
        if button.layout.border != border:
            button.layout.border = border


@needs("causal", "patching")
def patching_panel(lm: LoadedModel, clean: str, corrupted: str, answer: str, wrong: str) -> Panel:
    """Exact or attribution patching of the normalised logit difference of ``answer`` over ``wrong``,
    drawn as a grid of buttons (``panel.cells``); clicking a cell (or typing its layer and position
    or head) shows that patched run's top next tokens. The grid is computed once per prompt pair,
    component, method and direction; choosing a cell runs only its patched forward pass."""
    boxes = {
        name: widgets.Text(value=value, description=name, continuous_update=False)
        for name, value in (("clean", clean), ("corrupted", corrupted), ("answer", answer), ("wrong", wrong))
    }
    component = widgets.Dropdown(options=list(patching.COMPONENTS), description="component")
    method = widgets.Dropdown(options=list(METHODS), description="method")
    direction = widgets.Dropdown(options=patching.DIRECTIONS, description="direction")
    layer = widgets.BoundedIntText(value=lm.n_layer - 1, min=0, max=lm.n_layer - 1, description="layer")
    cell = widgets.BoundedIntText(value=0, min=0, max=lm.n_ctx - 1, description="position/head")
    cells = widgets.Box()
    computed: dict[str, object] = {"key": None}

    def keep_head() -> None:  # a position beyond the heads becomes the last head
        if component.value == "z":
            cell.value = min(cell.value, lm.n_head - 1)

    def choose(chosen_layer: int, chosen_cell: int) -> None:
        with panel.held():
            layer.value, cell.value = chosen_layer, chosen_cell
        panel.redraw()

    def render() -> str:
        cells.children = ()  # empty while computing: an error leaves no stale grid
        clean_ids, corrupted_ids = _prompts(lm, boxes["clean"].value, boxes["corrupted"].value)
        answer_ids, wrong_ids = (_token(lm, name, boxes[name].value) for name in ("answer", "wrong"))
        if answer_ids == wrong_ids:
            raise ValueError("the answer and wrong boxes hold the same token: the difference would be 0")
        key = (*(w.value for w in (*boxes.values(), component, method, direction)),)
        columns = (
            [f"head {h}" for h in range(lm.n_head)]
            if component.value == "z"
            else position_labels(lm.token_strings(clean_ids[0].tolist()))
        )
        if computed["key"] != key:
            pair = (clean_ids, corrupted_ids)
            try:
                metric = metrics.logit_difference_metric(lm, *pair, answer_ids, wrong_ids)
            except ValueError as err:
                raise ValueError(
                    "the clean and corrupted boxes give the same logit difference of the answer over the "
                    "wrong token: nothing to patch, change a box"
                    if "same logit difference" in str(err)
                    else str(err)
                ) from err
            grid = METHODS[method.value](lm, *pair, metric, component.value, direction.value)
            computed.update(key=key, box=cell_grid(grid, columns, choose))
        if cell.value >= len(columns):
            raise ValueError(f"position/head must lie in 0..{len(columns) - 1} for this component")
        top = patching.patched_top_tokens(
            lm, clean_ids, corrupted_ids, component.value, layer.value, cell.value, direction.value, k=6
        )
        _select(computed["box"], len(columns), (layer.value, cell.value))
        cells.children = (computed["box"],)
        title = f"{method.value} {direction.value}: normalised logit difference (click a cell)"
        table = html_ranked_table(
            ["patched run"],
            [top],
            title=f"top next tokens, layer {layer.value}, {html.escape(columns[cell.value])}",
        )
        return f"<b>{html.escape(title)}</b>" + table

    panel = Panel(
        {
            **boxes,
            "component": component,
            "method": method,
            "direction": direction,
            "layer": layer,
            "cell": cell,
        },
        render,
        rows=[
            ["clean", "corrupted"],
            ["answer", "wrong"],
            ["component", "method", "direction"],
            ["layer", "cell"],
        ],
        updates={"component": keep_head},
        slow=True,
    )
    panel.cells = cells
    panel.children = (*panel.children[:-1], cells, panel.children[-1])
    return panel


def _prompts(lm: LoadedModel, clean: str, corrupted: str) -> tuple[torch.Tensor, torch.Tensor]:
    """The clean and corrupted boxes as ``[1, T]`` ids: not empty, at most ``MAX_TOKENS`` tokens (refused
    before any model work), of one length."""
    ids = {}
    for name, text in (("clean", clean), ("corrupted", corrupted)):
        if not text.strip():
            raise ValueError(f"the {name} box is empty: type a prompt")
        if len(text) > 40 * MAX_TOKENS:  # refused before tokenizing a very long paste
            raise ValueError(
                f"the {name} box is too long: the panel patches prompts of at most {MAX_TOKENS} tokens"
            )
        ids[name] = lm.encode(text)
        if len(ids[name]) > MAX_TOKENS:
            raise ValueError(
                f"the {name} box has {len(ids[name])} tokens: the panel patches prompts of at most "
                f"{MAX_TOKENS} tokens (exact patching runs one forward pass per layer and token)"
            )
    if len(ids["clean"]) != len(ids["corrupted"]):
        raise ValueError(
            f"the clean box has {len(ids['clean'])} tokens but the corrupted box has "
            f"{len(ids['corrupted'])}: patching needs prompts of the same length in tokens"
        )
    return torch.tensor([ids["clean"]]), torch.tensor([ids["corrupted"]])


def _token(lm: LoadedModel, name: str, text: str) -> int:
    """The one token id of the answer or wrong box."""
    if not text:
        raise ValueError(f"the {name} box is empty: type one token, e.g. ' Romeo' (with its leading space)")
    ids = lm.encode(text)
    if len(ids) != 1:
        raise ValueError(
            f"the {name} box must hold one token of the model's vocabulary, {text!r} is {len(ids)} tokens"
        )
    return ids[0]
