"""The profile card (`/schnapsen stats`): a player's rating with a line of its history, results, contracts per
family, Kontra and best partner. A pure function from a ``ProfileScene`` to PNG bytes, drawn with the shared
pieces of ``images.py``."""

from __future__ import annotations

from PIL import Image, ImageDraw

from bot.render import _assets, fonts
from bot.render.images import (
    BODY,
    FELT,
    GOLD,
    HEADER_H,
    MUTED,
    NAME,
    PANEL,
    SLOT,
    SMALL,
    TEXT,
    WIDTH,
    _encode,
    _felt,
    _fit_lines,
    _lines,
    _size_to_fit,
    _stamp,
    _text,
    line_height,
)
from bot.render.names import DEFAULT_DECK, family_label, family_members, label
from bot.render.scenes import ProfileScene

PROFILE_MAX_H = 1200  # drawn on a canvas this tall, then cut to what the card needs
_PROFILE_X, _PROFILE_W = 10, WIDTH - 20
_RATING_BOX_Y, _RATING_BOX_H = HEADER_H + 12, 196
_CHART = (26, _RATING_BOX_Y + 96, WIDTH - 52, 84)  # x, y, width, height of the rating line
_BOX_GAP = 10


def render_profile(scene: ProfileScene) -> bytes:
    """A player's profile card: rating with a line of its history, results, contracts per family, Kontra and
    best partner, as PNG bytes (WIDTH wide, as tall as its texts need; palette mode)."""
    return _encode(_compose_profile(scene), DEFAULT_DECK)


def _panel(canvas: Image.Image, y: int, height: int) -> None:
    _stamp(canvas, _assets.rounded_stamp(_PROFILE_W, height, 12, PANEL), (_PROFILE_X, y))


def _compose_profile(scene: ProfileScene) -> Image.Image:
    lang = scene.lang
    canvas = _felt((WIDTH, PROFILE_MAX_H)).copy()
    name_size = _size_to_fit(scene.display_name, 22, SMALL, WIDTH - 24)
    _text(canvas, (12, HEADER_H // 2), scene.display_name, name_size, TEXT, anchor="lm", max_width=WIDTH - 24)
    centre, inner = WIDTH // 2, WIDTH - 40
    if not scene.has_games:
        size, lines = _fit_lines(label("profile_no_games", lang), 26, NAME, inner)
        y = HEADER_H + 40 + _lines(canvas, centre, HEADER_H + 40, lines, size, GOLD, align="m")
        size, lines = _fit_lines(label("profile_no_games_hint", lang), BODY, SMALL, inner, "regular", 3)
        y += 14 + _lines(canvas, centre, y + 14, lines, size, TEXT, "regular", align="m")
        return canvas.crop((0, 0, WIDTH, y + 40))
    _profile_rating(canvas, scene)
    y = _profile_counts(canvas, scene, _RATING_BOX_Y + _RATING_BOX_H + _BOX_GAP)
    y = _profile_contracts(canvas, scene, y + _BOX_GAP)
    if scene.partner is not None:
        name, together, won = scene.partner
        line = label("profile_partner_line", lang, name=name, won=won, together=together)
        colour = TEXT
    else:
        line, colour = label("profile_no_partner", lang, n=scene.min_together), MUTED
    y += 12 + _lines(canvas, 22, y + 12, [label("profile_partner", lang)], BODY, GOLD)
    size, lines = _fit_lines(line, BODY, SMALL, WIDTH - 44, "regular", 3)
    y += _lines(canvas, 22, y, lines, size, colour, "regular")
    return canvas.crop((0, 0, WIDTH, y + 14))


def _profile_rating(canvas: Image.Image, scene: ProfileScene) -> None:
    lang = scene.lang
    x, y = _PROFILE_X, _RATING_BOX_Y
    _panel(canvas, y, _RATING_BOX_H)
    _text(canvas, (x + 16, y + 22), label("profile_rating", lang), BODY, MUTED, weight="regular", anchor="lm")
    if scene.rating is None:
        shown = label("profile_unrated", lang)
        _text(canvas, (x + 16, y + 62), shown, 24, TEXT, anchor="lm", max_width=_PROFILE_W // 2)
        used = min(round(fonts.length(shown, 24)), _PROFILE_W // 2)
    else:
        big = f"{scene.rating}"
        _text(canvas, (x + 16, y + 62), big, 40, GOLD, anchor="lm")
        spread = f"± {scene.uncertainty}"
        spread_x = x + 28 + round(fonts.length(big, 40))
        _text(canvas, (spread_x, y + 66), spread, NAME, MUTED, weight="regular", anchor="lm")
        used = spread_x - x - 16 + round(fonts.length(spread, NAME, "regular"))
    if scene.rank is not None:  # beside the rating, on the right
        rank = label("profile_rank", lang, rank=scene.rank)
        room = _PROFILE_W - 32 - used - 20
        size, lines = _fit_lines(rank, BODY, SMALL, room)
        top = y + 64 - line_height(size) * len(lines) // 2
        _lines(canvas, x + _PROFILE_W - 16, top, lines, size, GOLD, align="r")
    _rating_chart(canvas, scene)


def _rating_chart(canvas: Image.Image, scene: ProfileScene) -> None:
    """The shown rating after each of the last Bummerl as a line, lowest and highest value at its side."""
    lang, history = scene.lang, scene.history
    cx, cy, cw, ch = _CHART
    if not history:
        message = label("profile_no_rated_games", lang)
        _stamp(canvas, _assets.rounded_stamp(cw, ch, 10, FELT, SLOT, 2), (cx, cy))
        size, lines = _fit_lines(message, SMALL, SMALL, cw - 20, "regular")
        top = cy + (ch - line_height(size) * len(lines)) // 2
        _lines(canvas, cx + cw // 2, top, lines, size, MUTED, "regular", align="m")
        return
    low, high = min(history), max(history)
    span = max(high - low, 1)
    plot_w = cw - 56  # room for the value labels on the right
    step = plot_w / max(len(history) - 1, 1)
    points = [
        (cx + i * step, cy + 6 + (ch - 12) * (high - value) / span if high != low else cy + ch / 2)
        for i, value in enumerate(history)
    ]
    # Drawn large and scaled down, like the stamps, so the line is smooth.
    s = _assets.SUPERSAMPLE
    layer = Image.new("RGBA", (cw * s, ch * s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    for gy in (0, ch // 2, ch - 1):
        draw.line([(0, gy * s), (plot_w * s, gy * s)], fill=(*SLOT, 255), width=s)
    scaled = [((px - cx) * s, (py - cy) * s) for px, py in points]
    if len(scaled) > 1:
        draw.line(scaled, fill=(*GOLD, 255), width=3 * s, joint="curve")
    last_x, last_y = scaled[-1]
    draw.ellipse((last_x - 4 * s, last_y - 4 * s, last_x + 4 * s, last_y + 4 * s), fill=(*GOLD, 255))
    _stamp(canvas, layer.resize((cw, ch), Image.Resampling.LANCZOS), (cx, cy))
    _text(canvas, (cx + plot_w + 8, cy + 6), str(high), SMALL, MUTED, weight="regular", anchor="lm")
    _text(canvas, (cx + plot_w + 8, cy + ch - 6), str(low), SMALL, MUTED, weight="regular", anchor="lm")
    caption = label("profile_chart", lang, n=len(history))
    _text(canvas, (_PROFILE_X + _PROFILE_W - 16, _RATING_BOX_Y + 22), caption, SMALL, MUTED, weight="regular",
          anchor="rm", max_width=_PROFILE_W // 2)  # fmt: skip


def _share(won: int, total: int) -> str:
    return f"{round(100 * won / total)} %" if total else "—"


def _profile_counts(canvas: Image.Image, scene: ProfileScene, y: int) -> int:
    """Bummerl, deals and Kontra won, side by side: what, how many of how many, and the share. Returns the
    panel's bottom."""
    lang = scene.lang
    rows = (
        ("profile_bummerl", scene.bummerl),
        ("profile_deals", scene.deals),
        ("profile_kontra", scene.kontra),
    )
    column = _PROFILE_W // 3
    laid = [_fit_lines(label(key, lang), SMALL, SMALL, column - 24, "regular") for key, _ in rows]
    label_h = max(line_height(size) * len(lines) for size, lines in laid)
    height = 12 + label_h + 6 + 2 * line_height(22) + 12
    _panel(canvas, y, height)
    for index, ((_, (won, total)), (size, lines)) in enumerate(zip(rows, laid, strict=True)):
        x = _PROFILE_X + 16 + index * column
        _lines(canvas, x, y + 12, lines, size, MUTED, "regular")
        value_y = y + 12 + label_h + 6
        value = label("profile_of", lang, won=won, total=total)
        value_size = _size_to_fit(value, 22, SMALL, column - 24)
        _text(canvas, (x, value_y + line_height(22) // 2), value, value_size, TEXT, anchor="lm",
              max_width=column - 24)  # fmt: skip
        _lines(canvas, x, value_y + line_height(22), [_share(won, total)], 22, GOLD)
    return y + height


def _profile_contracts(canvas: Image.Image, scene: ProfileScene, y: int) -> int:
    """Each contract family: declared, made and the share on its line, the contracts it holds below. Returns
    the panel's bottom."""
    lang = scene.lang
    right = _PROFILE_X + _PROFILE_W - 16
    share_x, made_x, declared_x = right, right - 74, right - 164
    name_x = _PROFILE_X + 16
    rows = []
    for family, declared, made in scene.contracts:
        held = family_members(family, lang)
        laid = _fit_lines(held, SMALL, SMALL, right - name_x, "regular", 3) if held else (SMALL, ())
        rows.append((family, declared, made, laid))
    height = 46 + sum(line_height(BODY) + line_height(SMALL) * len(laid[1]) + 10 for *_, laid in rows) + 4
    _panel(canvas, y, height)
    _text(canvas, (name_x, y + 22), label("profile_contracts", lang), NAME, GOLD, anchor="lm",
          max_width=declared_x - 80 - name_x)  # fmt: skip
    for column_x, key in ((declared_x, "profile_declared"), (made_x, "profile_made")):
        _text(canvas, (column_x, y + 22), label(key, lang), SMALL, MUTED, weight="regular", anchor="rm",
              max_width=86)  # fmt: skip
    row_y = y + 46
    for family, declared, made, (size, members) in rows:
        colour = TEXT if declared else MUTED
        middle = row_y + line_height(BODY) // 2
        _text(canvas, (name_x, middle), family_label(family, lang), BODY, colour, anchor="lm",
              max_width=declared_x - 60 - name_x)  # fmt: skip
        _text(canvas, (declared_x, middle), str(declared), BODY, colour, anchor="rm")
        _text(canvas, (made_x, middle), str(made), BODY, colour, anchor="rm")
        _text(canvas, (share_x, middle), _share(made, declared), BODY, GOLD if declared else MUTED, anchor="rm")
        row_y += line_height(BODY)
        row_y += _lines(canvas, name_x, row_y, members, size, MUTED, "regular") + 10
    return y + height
