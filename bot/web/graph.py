"""The player's rating history as an inline SVG (drawn by the template from these numbers: no script, no
image file, nothing to fetch)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

WIDTH, HEIGHT = 600, 200
MARGIN = 8


@dataclass(frozen=True, slots=True)
class Graph:
    points: str  # the polyline's "x,y x,y ..." in the SVG's own units
    dots: tuple[tuple[float, float, int], ...]  # (x, y, value): each Bummerl's rating, for its title
    low: int
    high: int
    width: int = WIDTH
    height: int = HEIGHT


def rating_graph(values: Sequence[int]) -> Graph | None:
    """The line of the shown ratings after each rated Bummerl, oldest left; None with fewer than two."""
    if len(values) < 2:
        return None
    low, high = min(values), max(values)
    span = max(high - low, 10)  # a flat line sits in the middle, not on an edge
    middle = (low + high) / 2
    bottom = middle - span / 2
    step = (WIDTH - 2 * MARGIN) / (len(values) - 1)
    dots = tuple(
        (
            round(MARGIN + i * step, 1),
            round(HEIGHT - MARGIN - (value - bottom) / span * (HEIGHT - 2 * MARGIN), 1),
            value,
        )
        for i, value in enumerate(values)
    )
    return Graph(" ".join(f"{x},{y}" for x, y, _ in dots), dots, low, high)
