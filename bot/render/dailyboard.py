"""The daily deal's top ten as an image (posted with a day's results): a title, then one row per person with
rank, name, score against par and deals played; names and numbers only, never a card. Pure: plain values in,
PNG bytes out (call it off the event loop)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image

from bot.render import fonts

WIDTH = 480  # a phone shows it about 360 px wide: the 16 px of its smallest text are 12 px there
TITLE_H = 56
ROW_H = 40
PAD = 16
FELT = (22, 74, 48)
STRIPE = (27, 86, 56)
TEXT = (240, 236, 222)
GOLD = (232, 196, 92)
MUTED = (176, 196, 180)
PLUS = (150, 226, 150)
MINUS = (240, 150, 140)
RANK_X, NAME_X = PAD + 26, PAD + 36  # the rank's right edge, the name's left
PLAYED_X = WIDTH - PAD  # right edges of the deals played and the score
SCORE_X = PLAYED_X - 100
NAME_W = SCORE_X - 52 - NAME_X


@dataclass(frozen=True, slots=True)
class BoardRow:
    rank: int
    name: str
    score: int
    played: int


def _name_lines(name: str) -> tuple[int, tuple[str, ...]]:
    """A name's size and lines: one line at 20 px down to 16, else two at 16 (cut only past that)."""
    for size in range(20, 15, -1):
        if fonts.length(name, size) <= NAME_W:
            return size, (name,)
    return 16, fonts.wrap(name, 16, NAME_W)


def _row_height(row: BoardRow) -> int:
    return max(ROW_H, 20 * len(_name_lines(row.name)[1]) + 12)


def board_size(rows: Sequence[BoardRow]) -> tuple[int, int]:
    """The image's size for these rows (the first ten; a name on two lines makes its row taller)."""
    shown = list(rows)[:10]
    return WIDTH, TITLE_H + (sum(_row_height(row) for row in shown) if shown else ROW_H) + PAD


def _text(canvas: Image.Image, xy: tuple[int, int], text: str, size: int, fill: tuple[int, int, int], *,
          anchor: str = "lm", max_width: int | None = None, weight: str = "bold") -> None:  # fmt: skip
    mask, dx, dy = fonts.mask(fonts.fit(text, size, max_width, weight), size, weight, anchor)
    canvas.paste(fill, (xy[0] + dx, xy[1] + dy), mask)


def render_daily_board(title: str, rows: Sequence[BoardRow], empty: str, deals_label: str) -> bytes:
    """The board as PNG bytes: ``title`` above the rows (at most ten are drawn); ``empty`` when there are no
    rows; ``deals_label`` the word after the number of deals played (e.g. "deals")."""
    shown = list(rows)[:10]
    canvas = Image.new("RGB", board_size(shown), FELT)
    size = next((s for s in range(24, 17, -1) if fonts.length(title, s) <= WIDTH - 2 * PAD), 18)
    _text(canvas, (PAD, TITLE_H // 2), title, size, GOLD, max_width=WIDTH - 2 * PAD)
    if not shown:
        _text(canvas, (PAD, TITLE_H + ROW_H // 2), empty, 18, MUTED, max_width=WIDTH - 2 * PAD, weight="regular")
    top = TITLE_H
    for n, row in enumerate(shown):
        height = _row_height(row)
        if n % 2 == 0:
            canvas.paste(STRIPE, (0, top, WIDTH, top + height))
        middle = top + height // 2
        _text(canvas, (RANK_X, middle), f"{row.rank}.", 20, GOLD, anchor="rm")
        name_size, lines = _name_lines(row.name)
        step = round(name_size * 1.25)
        first = middle - step * (len(lines) - 1) // 2
        for index, line in enumerate(lines):
            _text(canvas, (NAME_X, first + index * step), line, name_size, TEXT, max_width=NAME_W)
        colour = PLUS if row.score > 0 else MINUS if row.score < 0 else TEXT
        _text(canvas, (SCORE_X, middle), f"{row.score:+d}", 22, colour, anchor="rm")
        _text(canvas, (PLAYED_X, middle), f"{row.played} {deals_label}", 16, MUTED, anchor="rm", weight="regular",
              max_width=PLAYED_X - SCORE_X - 16)  # fmt: skip
        top += height
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
