"""Seeded images of one shape with known concepts (lesson 12), so that h can be a small CNN as in
Koh et al. (2020): a red, green or blue square, circle or triangle, small or large, in the left or
right and top or bottom half of a 16 × 16 image with a little pixel noise.

Concepts (binary): red, green, blue, square, circle, triangle, large, left, top — five groups for
intervention (colour, shape, size, horizontal, vertical). The label is a rule of the concepts alone:

    y = 1  ⇔  (circle ∧ ¬blue) ∨ (large ∧ top)
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks, seeds
from xai_tf.cbm._common import check_concepts
from xai_tf.cbm.data import ConceptData

SIZE = 16
NAMES = ("red", "green", "blue", "square", "circle", "triangle", "large", "left", "top")
GROUPS = ((0, 1, 2), (3, 4, 5), (6,), (7,), (8,))
GROUP_NAMES = ("colour", "shape", "size", "horizontal", "vertical")
IMAGE_BYTES = 6 * 3 * SIZE * SIZE * 8  # the float64 image, its noise and the masks' grids, per image
RADIUS = {False: 2.5, True: 4.5}  # half-width of a small / large shape, in pixels


def label_rule(c: Tensor) -> Tensor:
    """y = (circle ∧ ¬blue) ∨ (large ∧ top) for concepts ``c [n, 9]`` in NAMES' order."""
    check_concepts("c", c, len(NAMES))
    circle, blue, large, top = (c[:, NAMES.index(name)] > 0.5 for name in ("circle", "blue", "large", "top"))
    return ((circle & ~blue) | (large & top)).float()


def _masks(shape: Tensor, cx: Tensor, cy: Tensor, r: Tensor) -> Tensor:
    """[n, 16, 16] True inside each shape (0 square, 1 circle, 2 upward triangle) of half-width r."""
    grid = torch.arange(SIZE, dtype=torch.float64, device=cx.device)
    dx = grid.view(1, 1, -1) - cx.view(-1, 1, 1)
    dy = grid.view(1, -1, 1) - cy.view(-1, 1, 1)
    r = r.view(-1, 1, 1)
    square = (dx.abs() <= r) & (dy.abs() <= r)
    circle = dx**2 + dy**2 <= r**2
    triangle = (dy <= r) & (dy >= -r) & (dx.abs() <= (dy + r) / 2)
    return torch.where(
        shape.view(-1, 1, 1) == 0, square, torch.where(shape.view(-1, 1, 1) == 1, circle, triangle)
    )


def shapes(n: int, seed: int = 0, noise: float = 0.1) -> ConceptData:
    """``n`` images ``x [n, 3, 16, 16]`` in [0, 1] (pixel noise of standard deviation ``noise``),
    their nine concepts and the label of the module docstring."""
    n = _checks.integer("n", n, 1)
    _checks.fits(f"shapes(n = {n})", n * IMAGE_BYTES, "choose a smaller n")
    seed = _checks.integer("seed", seed, 0)
    noise = _checks.at_least("noise", noise, 0)
    g = seeds.generator(seed)
    colour, shape = (torch.randint(3, (n,), generator=g, device="cpu") for _ in range(2))
    large, left, top = (torch.rand(n, generator=g, device="cpu") < 0.5 for _ in range(3))
    r = torch.where(large, RADIUS[True], RADIUS[False]).double()
    # the centre stays a pixel away from the middle line 7.5: x ∈ [r, 6.5] (left) or [8.5, 15 − r]
    u, v = (torch.rand(n, generator=g, dtype=torch.float64, device="cpu") for _ in range(2))
    cx = torch.where(left, r + u * (6.5 - r), 8.5 + u * (SIZE - 1 - r - 8.5))
    cy = torch.where(top, r + v * (6.5 - r), 8.5 + v * (SIZE - 1 - r - 8.5))
    inside = _masks(shape, cx, cy, r)
    rgb = torch.nn.functional.one_hot(colour, 3).double() * 0.8 + 0.1
    image = 0.5 + inside.unsqueeze(1) * (rgb.view(n, 3, 1, 1) - 0.5)
    image = (image + noise * torch.randn(image.shape, generator=g, dtype=torch.float64, device="cpu")).clamp(
        0, 1
    )
    c = torch.cat(
        [
            torch.nn.functional.one_hot(colour, 3),
            torch.nn.functional.one_hot(shape, 3),
            torch.stack([large, left, top], -1).long(),
        ],
        -1,
    ).float()
    return ConceptData(
        image.float(),
        c,
        label_rule(c),
        torch.ones(len(NAMES), dtype=torch.bool, device="cpu"),
        NAMES,
        GROUPS,
        "binary",
    )
