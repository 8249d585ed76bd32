"""The daily deal's top ten as an image (posted with a day's results): a title, then one row per person with
rank, name, score against par and deals played; names and numbers only, never a card. Pure: plain values in,
PNG bytes out (call it off the event loop)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image

from bot.render import fonts

WIDTH = 640
TITLE_H = 64
ROW_H = 40
PAD = 24
FELT = (22, 74, 48)
STRIPE = (27, 86, 56)
TEXT = (240, 236, 222)
GOLD = (232, 196, 92)
MUTED = (176, 196, 180)
PLUS = (150, 226, 150)
MINUS = (240, 150, 140)


@dataclass(frozen=True, slots=True)
class BoardRow:
    rank: int
    name: str
    score: int
    played: int


def board_size(rows: int) -> tuple[int, int]:
    return WIDTH, TITLE_H + ROW_H * max(rows, 1) + PAD


def _text(canvas: Image.Image, xy: tuple[int, int], text: str, size: int, fill: tuple[int, int, int], *,
          anchor: str = "lm", max_width: int | None = None, weight: str = "bold") -> None:  # fmt: skip
    mask, dx, dy = fonts.mask(fonts.fit(text, size, max_width, weight), size, weight, anchor)
    canvas.paste(fill, (xy[0] + dx, xy[1] + dy), mask)


def render_daily_board(title: str, rows: Sequence[BoardRow], empty: str, deals_label: str) -> bytes:
    """The board as PNG bytes: ``title`` above the rows (at most ten are drawn); ``empty`` when there are no
    rows; ``deals_label`` the word after the number of deals played (e.g. "deals")."""
    shown = list(rows)[:10]
    canvas = Image.new("RGB", board_size(len(shown)), FELT)
    _text(canvas, (PAD, TITLE_H // 2), title, 26, GOLD, max_width=WIDTH - 2 * PAD)
    if not shown:
        _text(canvas, (PAD, TITLE_H + ROW_H // 2), empty, 20, MUTED, max_width=WIDTH - 2 * PAD, weight="regular")
    for n, row in enumerate(shown):
        top = TITLE_H + n * ROW_H
        if n % 2 == 0:
            canvas.paste(STRIPE, (0, top, WIDTH, top + ROW_H))
        middle = top + ROW_H // 2
        _text(canvas, (PAD + 28, middle), f"{row.rank}.", 20, GOLD, anchor="rm")
        _text(canvas, (PAD + 40, middle), row.name, 20, TEXT, max_width=320)
        colour = PLUS if row.score > 0 else MINUS if row.score < 0 else TEXT
        _text(canvas, (WIDTH - PAD - 120, middle), f"{row.score:+d}", 22, colour, anchor="rm")
        _text(canvas, (WIDTH - PAD, middle), f"{row.played} {deals_label}", 18, MUTED, anchor="rm", weight="regular")
    buffer = io.BytesIO()
    canvas.save(buffer, format="PNG", optimize=False, compress_level=6)
    return buffer.getvalue()


def daily_board_alt_text(title: str, rows: Sequence[BoardRow], empty: str) -> str:
    """What the image shows, for screen readers: the title and each row (within Discord's 1024 characters).

    >>> daily_board_alt_text("Daily deal", [BoardRow(1, "anna", 3, 6)], "Nobody")
    'Daily deal. 1. anna +3 (6).'
    """
    if not rows:
        return f"{title}. {empty}"[:1024]
    lines = [f"{row.rank}. {row.name} {row.score:+d} ({row.played})" for row in list(rows)[:10]]
    return (f"{title}. " + "; ".join(lines) + ".")[:1024]
