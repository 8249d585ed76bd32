"""The daily deal's top-ten image: its size follows the rows (ten at most), it is the same for the same board,
and its alt text names each row."""

from __future__ import annotations

import io

from PIL import Image

from bot.render.dailyboard import BoardRow, board_size, daily_board_alt_text, render_daily_board


def test_the_board_image_draws_at_most_ten_rows_the_same_each_time() -> None:
    rows = [BoardRow(n, f"player {n}", 12 - n, 6) for n in range(1, 13)]
    png = render_daily_board("Daily deal, 2026-12-03", rows, "Nobody yet", "deals")
    assert Image.open(io.BytesIO(png)).size == board_size(rows[:10])
    assert render_daily_board("Daily deal, 2026-12-03", rows, "Nobody yet", "deals") == png
    empty = render_daily_board("Daily deal, 2026-12-03", [], "Nobody yet", "deals")
    assert Image.open(io.BytesIO(empty)).size == board_size([])
    long = [BoardRow(1, "Maximiliane von Hohenberg-Oberhuber", 3, 6)]
    assert board_size(long)[1] > board_size(rows[:1])[1], "a name on two lines makes its row taller"


def test_the_alt_text_names_each_drawn_row_within_discords_limit() -> None:
    rows = [BoardRow(n, "x" * 90, -n, 6) for n in range(1, 13)]
    alt = daily_board_alt_text("Daily deal", rows, "Nobody")
    assert len(alt) <= 1024 and alt.startswith("Daily deal. 1. ")
    assert daily_board_alt_text("Daily deal", [], "Nobody") == "Daily deal. Nobody"
