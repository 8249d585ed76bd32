"""Hand, table and result images: pure functions from plain values to PNG bytes.

Each image is composed from cached, pre-scaled tiles on a cached background (both read-only, copied or
pasted from), so a render costs a few pastes, a few lines of text and the PNG encoding.
"""

from __future__ import annotations

import io
from collections.abc import Collection, Sequence
from functools import lru_cache

from PIL import Image, ImageDraw

from bot.render import _assets, fonts
from bot.render.names import (
    ALL_CARDS,
    DEFAULT_DECK,
    DEFAULT_LANGUAGE,
    SUITS,
    check_card,
    check_deck,
    check_lang,
    check_suit,
    count_label,
    family_label,
    family_members,
    label,
    suit_name,
)
from bot.render.scenes import ProfileScene, ResultScene, TableScene, team_of

RGB = tuple[int, int, int]
WIDTH = 760
HAND_SIZE = (WIDTH, 300)
RESULT_SIZE = (WIDTH, 420)
MAX_HAND = 5

FELT: RGB = (26, 96, 68)
FELT_DARK: RGB = (15, 62, 44)
PANEL: RGB = (18, 70, 50)
SLOT: RGB = (60, 130, 100)
TEXT: RGB = (246, 244, 236)
MUTED: RGB = (168, 204, 186)
GOLD: RGB = (244, 196, 64)
GOLD_DARK: RGB = (120, 84, 8)
INK: RGB = (28, 28, 28)

HEADER_H = 44
HEADER_ICON = 30  # the trump suit symbol in the header
HAND_CARD_W, HAND_CARD_H = 140, 210
HAND_GAP = 10
HAND_RAISE = 14
TRICK_CARD_W, TRICK_CARD_H = 104, 156
MINI_CARD_W, MINI_CARD_H = 56, 84
MINI_STRIDE = 32

# Text sizes in pixels. The images are 760 px wide and a phone shows them about 360 px wide, so even the
# smallest text here is about 8 px on such a screen (it was 5 px at the 11 px captions before).
SMALL = 16  # captions, notes, names under small cards
BODY = 18  # second lines: tricks, Bummerl, details
NAME = 20  # names, team names, the header

# ---------------------------------------------------------------- shared pieces


@lru_cache(maxsize=2048)
def _text_mask(
    text: str, size: int, weight: str, anchor: str, max_width: int | None
) -> tuple[Image.Image, int, int]:
    """Rendered text as an anti-aliased mask and its offset from the anchor point. Names and labels repeat
    from one image to the next, so caching them saves most of the text cost."""
    return fonts.mask(fonts.fit(text, size, max_width, weight), size, weight, anchor)


def _text(
    canvas: Image.Image,
    xy: tuple[float, float],
    text: str,
    size: int,
    fill: RGB,
    weight: str = "bold",
    anchor: str = "la",
    max_width: int | None = None,
) -> None:
    mask, dx, dy = _text_mask(text, size, weight, anchor, max_width)
    canvas.paste(fill, (round(xy[0]) + dx, round(xy[1]) + dy), mask)


def _size_to_fit(text: str, largest: int, smallest: int, max_width: int, weight: str = "bold") -> int:
    """The largest size from largest down to smallest at which text fits max_width (smallest if none does,
    where the text is then cut): a headline with long names shrinks before it loses its verb."""
    for size in range(largest, smallest, -2):
        if fonts.length(text, size, weight) <= max_width:
            return size
    return smallest


def _stamp(canvas: Image.Image, stamp: Image.Image, xy: tuple[int, int]) -> None:
    canvas.paste(stamp, xy, stamp)


def _header(
    canvas: Image.Image, trump: str | None, contract: str | None, multiplier: int, deck: str, lang: str
) -> None:
    """The strip along the top: trump suit on the left, contract and multiplier on the right."""
    if trump is not None:
        _stamp(canvas, _assets.suit_icon(deck, trump, HEADER_ICON), (12, 7))
        _text(
            canvas,
            (50, HEADER_H // 2),
            f"{label('trump', lang)}: {suit_name(trump, deck, lang)}",
            20,
            TEXT,
            anchor="lm",
            max_width=330,
        )
    else:  # no contract yet means trump is still to be named; a contract without trumps has none
        _text(canvas, (14, HEADER_H // 2), label("no_trump" if contract else "trump_not_chosen", lang), 20, MUTED,
              anchor="lm")  # fmt: skip
    parts = [contract] if contract else []
    if multiplier > 1:
        parts.append(f"×{multiplier}")
    if parts:
        _text(canvas, (WIDTH - 14, HEADER_H // 2), "  ".join(parts), 20, GOLD, anchor="rm", max_width=340)


def _team_name(names: Sequence[str], team: int, lang: str) -> str:
    return label("team", lang, a=names[team], b=names[team + 2])


@lru_cache(maxsize=4)
def _felt(size: tuple[int, int]) -> Image.Image:
    canvas = Image.new("RGB", size, FELT)
    ImageDraw.Draw(canvas).rectangle((0, 0, size[0], HEADER_H - 1), fill=FELT_DARK)
    return canvas


# ---------------------------------------------------------------- hand


def render_hand(
    cards: Sequence[str],
    playable: Collection[str] | None = None,
    trump: str | None = None,
    deck: str = DEFAULT_DECK,
    lang: str = DEFAULT_LANGUAGE,
    contract: str | None = None,
) -> bytes:
    """Up to five cards side by side, as PNG bytes (HAND_SIZE, palette mode).

    playable: the cards that may be played now; they are raised and outlined, the others dimmed.
    None means "not your turn": every card is shown plainly. Trump cards carry a gold star.
    contract: the contract's name, already translated (None while bidding: then no trump means none named yet).
    """
    cards = tuple(check_card(card) for card in cards)
    if len(cards) > MAX_HAND:
        raise ValueError(f"a hand image shows at most {MAX_HAND} cards, got {len(cards)}")
    check_deck(deck)
    check_lang(lang)
    if trump is not None:
        check_suit(trump)
    playable_set = None if playable is None else {check_card(card) for card in playable}
    return _encode(_compose_hand(cards, playable_set, trump, deck, lang, contract), deck)


def _compose_hand(
    cards: tuple[str, ...], playable_set: set[str] | None, trump: str | None, deck: str, lang: str,
    contract: str | None = None,
) -> Image.Image:
    canvas = _felt(HAND_SIZE).copy()
    _header(canvas, trump, contract, 1, deck, lang)
    _hand_row(canvas, cards, playable_set, trump, deck, HAND_SIZE[1] - HAND_CARD_H - 16)
    return canvas


def _hand_row(
    canvas: Image.Image, cards: Sequence[str], playable: set[str] | None, trump: str | None, deck: str, base_y: int
) -> None:
    """A hand centred along ``base_y``: playable cards raised and outlined, the others dimmed (all plain when
    ``playable`` is None), trumps starred. The hand image and the turn image draw it alike."""
    total = len(cards) * HAND_CARD_W + max(0, len(cards) - 1) * HAND_GAP
    x = (WIDTH - total) // 2
    outline = _assets.rounded_stamp(HAND_CARD_W + 8, HAND_CARD_H + 8, 14, GOLD)
    badge = _assets.star(30, GOLD, GOLD_DARK)
    for card in cards:
        marked = playable is not None and card in playable
        y = base_y - HAND_RAISE if marked else base_y
        if marked:
            _stamp(canvas, outline, (x - 4, y - 4))
        if playable is None or marked:
            tile = _assets.card_tile(deck, card, HAND_CARD_W)
        else:
            tile = _assets.dimmed_tile(deck, card, HAND_CARD_W)
        _stamp(canvas, tile, (x, y))
        if trump is not None and card[0] == trump:
            _stamp(canvas, badge, (x + HAND_CARD_W - badge.width - 6, y + 6))
        x += HAND_CARD_W + HAND_GAP


# ---------------------------------------------------------------- table

# Where each seat is drawn: 0 = bottom, 1 = left, 2 = top, 3 = right. A viewer's own seat is at the bottom;
# the public image (no viewer) is drawn as a compass, as bridge diagrams are: North at the top, East on the
# right, South at the bottom, West on the left, which is South's own view. Play goes clockwise (N, E, S, W),
# which seen from above runs bottom -> left -> top -> right.
_SLOTS = {0: (328, 298), 1: (140, 192), 2: (328, 90), 3: (516, 192)}  # trick card slots, top left corners
_PILL_H = 34
_PILLS = {0: (380, 474, 280), 1: (192, 370, 228), 2: (380, 66, 280), 3: (568, 370, 228)}  # centre x, y; width
_ROSE = (64, 106)  # centre of the compass rose in the top left corner
_ROSE_R = 34
_PANEL_Y, _PANEL_H, _PANEL_W = 502, 152, 364
_PANEL_X = (10, 386)
TABLE_SIZE = (WIDTH, _PANEL_Y + _PANEL_H + 10)


def _relative(seat: int, viewer: int | None) -> int:
    """Where seat is drawn (see _SLOTS) for this viewer; None: the compass view, which is South's."""
    return (seat - (2 if viewer is None else viewer)) % 4


@lru_cache(maxsize=4)
def _table_background(own_team: int | None) -> Image.Image:
    """Felt, empty card slots, name pills, the compass rose's cross and the two team panels; own_team's
    panel (left) is outlined."""
    canvas = _felt(TABLE_SIZE).copy()
    slot = _assets.rounded_stamp(TRICK_CARD_W, TRICK_CARD_H, 10, FELT, SLOT, 2)
    for xy in _SLOTS.values():
        _stamp(canvas, slot, xy)
    for cx, cy, width in _PILLS.values():
        pill = _assets.rounded_stamp(width, _PILL_H, _PILL_H // 2, FELT_DARK)
        _stamp(canvas, pill, (cx - width // 2, cy - _PILL_H // 2))
    x, y = _ROSE
    arm = _ROSE_R - 14
    draw = ImageDraw.Draw(canvas)
    draw.line((x - arm, y, x + arm, y), fill=SLOT, width=2)
    draw.line((x, y - arm, x, y + arm), fill=SLOT, width=2)
    for index, x in enumerate(_PANEL_X):
        outline = GOLD if own_team is not None and index == 0 else None
        panel = _assets.rounded_stamp(_PANEL_W, _PANEL_H, 12, PANEL, outline, 2 if outline else 0)
        _stamp(canvas, panel, (x, _PANEL_Y))
    return canvas


def _compass_rose(canvas: Image.Image, viewer: int | None, lang: str) -> None:
    """N, E, S and W (in lang) around a small cross, each on the side its seat is drawn, so that "You sit
    East" can be found in the picture."""
    x, y = _ROSE
    offsets = {0: (0, _ROSE_R), 1: (-_ROSE_R, 0), 2: (0, -_ROSE_R), 3: (_ROSE_R, 0)}
    for seat, letter in enumerate(label("compass", lang).split()):
        dx, dy = offsets[_relative(seat, viewer)]
        _text(canvas, (x + dx, y + dy), letter, BODY, MUTED, anchor="mm")


def render_table(scene: TableScene) -> bytes:
    """The trick in progress around the table, names, trump, contract and both teams' standing, as PNG bytes
    (TABLE_SIZE, palette mode)."""
    return _encode(_compose_table(scene), scene.deck)


def _compose_table(scene: TableScene) -> Image.Image:
    deck, lang, names = scene.deck, scene.lang, scene.seat_names
    own_team = None if scene.viewer_seat is None else team_of(scene.viewer_seat)
    canvas = _table_background(own_team).copy()
    _header(canvas, scene.trump, scene.contract_label, scene.multiplier, deck, lang)
    _compass_rose(canvas, scene.viewer_seat, lang)

    played = dict(scene.trick)
    for seat in range(4):
        where = _relative(seat, scene.viewer_seat)
        x, y = _SLOTS[where]
        if seat in played:
            tile = _assets.card_tile(deck, played[seat], TRICK_CARD_W)
            _stamp(canvas, tile, (x, y))
        elif seat == scene.sitting_out_seat:
            tile = _assets.dimmed_tile(deck, "back", TRICK_CARD_W)
            _stamp(canvas, tile, (x, y))
        elif seat == scene.to_act_seat:
            ring = _assets.rounded_stamp(TRICK_CARD_W, TRICK_CARD_H, 10, FELT, GOLD, 3)
            _stamp(canvas, ring, (x, y))
        cx, cy, width = _PILLS[where]
        name = names[seat]
        if seat == scene.viewer_seat:
            name = f"{name} ({label('you', lang)})"
        if seat == scene.to_act_seat:
            pill = _assets.rounded_stamp(width, _PILL_H, _PILL_H // 2, GOLD)
            _stamp(canvas, pill, (cx - width // 2, cy - _PILL_H // 2))
            _text(canvas, (cx, cy), name, NAME, INK, anchor="mm", max_width=width - 20)
        elif seat == scene.sitting_out_seat:
            shown = f"{name}: {label('sits_out', lang)}"
            _text(canvas, (cx, cy), shown, BODY, MUTED, weight="regular", anchor="mm", max_width=width - 20)
        else:
            _text(canvas, (cx, cy), name, NAME, TEXT, anchor="mm", max_width=width - 20)

    left_team = own_team if own_team is not None else 0
    for index, team in enumerate((left_team, 1 - left_team)):
        _team_panel(canvas, scene, team, _PANEL_X[index])
    return canvas


def _team_panel(canvas: Image.Image, scene: TableScene, team: int, x: int) -> None:
    """The team's names across the top, its points and tricks below on the left, and the cards of its first
    trick on the right."""
    lang = scene.lang
    y = _PANEL_Y
    inner = _PANEL_W - 28
    _text(canvas, (x + 14, y + 12), _team_name(scene.seat_names, team, lang), NAME, TEXT, max_width=inner)
    cards = scene.first_tricks[team]
    right = x + _PANEL_W - 10
    start = right - MINI_CARD_W - MINI_STRIDE * 3  # room for a whole trick, so the columns stay put
    if cards:
        _text(canvas, (start, y + 38), label("first_trick", lang), SMALL, MUTED, weight="regular",
              max_width=right - start)  # fmt: skip
        for offset, card in enumerate(cards):
            tile = _assets.card_tile(scene.deck, card, MINI_CARD_W)
            _stamp(canvas, tile, (start + offset * MINI_STRIDE, y + _PANEL_H - MINI_CARD_H - 8))
    column = start - x - 28
    line_y = y + 50
    if scene.team_points is not None:
        points = count_label(scene.team_points[team], "point", "points", lang)
        _text(canvas, (x + 14, line_y), points, 24, GOLD, max_width=column)
        line_y += 38
    tricks = count_label(scene.team_tricks[team], "trick", "tricks", lang)
    _text(canvas, (x + 14, line_y), tricks, BODY, MUTED, weight="regular", max_width=column)


# ---------------------------------------------------------------- result


def render_result(scene: ResultScene) -> bytes:
    """The end of a deal: winners, game points, card points and the Bummerl score, as PNG bytes
    (RESULT_SIZE, palette mode)."""
    return _encode(_compose_result(scene), scene.deck)


def _compose_result(scene: ResultScene) -> Image.Image:
    lang, names = scene.lang, scene.seat_names
    canvas = _felt(RESULT_SIZE).copy()
    _header(canvas, scene.trump, scene.contract_label, scene.multiplier, scene.deck, lang)
    centre = WIDTH // 2
    winners = _team_name(names, scene.winner_team, lang)
    headline = label("wins", lang, team=winners)
    size = _size_to_fit(headline, 34, NAME, WIDTH - 40)
    _text(canvas, (centre, 92), headline, size, GOLD, anchor="mm", max_width=WIDTH - 40)
    y = 134
    if scene.detail:
        _text(
            canvas, (centre, y), scene.detail, 20, TEXT, weight="regular", anchor="mm", max_width=WIDTH - 40
        )
        y += 36
    points = count_label(scene.game_points, "game_point", "game_points", lang)
    _text(canvas, (centre, y + 6), points, 28, TEXT, anchor="mm")
    y += 44
    if scene.card_points is not None:
        a, b = scene.card_points
        _text(
            canvas,
            (centre, y),
            f"{label('card_points', lang)}  {a} : {b}",
            18,
            MUTED,
            weight="regular",
            anchor="mm",
        )
    # Bummerl standing: one bar per team towards the target.
    bar_x, bar_w, bar_h = 286, 350, 24
    for team in (0, 1):
        row_y = 282 + team * 62
        colour = GOLD if team == scene.winner_team else MUTED
        _text(canvas, (24, row_y), _team_name(names, team, lang), NAME, TEXT, anchor="lm", max_width=250)
        bummerl = f"{label('bummerl', lang)}: {scene.bummerls[team]}"
        _text(canvas, (24, row_y + 27), bummerl, SMALL, MUTED, weight="regular", anchor="lm")
        _stamp(
            canvas, _assets.rounded_stamp(bar_w, bar_h, bar_h // 2, FELT_DARK), (bar_x, row_y - bar_h // 2)
        )
        filled = round(bar_w * min(scene.score[team], scene.target) / scene.target)
        if filled >= bar_h:
            _stamp(
                canvas, _assets.rounded_stamp(filled, bar_h, bar_h // 2, colour), (bar_x, row_y - bar_h // 2)
            )
        _text(canvas, (WIDTH - 24, row_y), f"{scene.score[team]} / {scene.target}", 20, colour, anchor="rm")
    return canvas


# ---------------------------------------------------------------- profile

PROFILE_SIZE = (WIDTH, 612)
_PROFILE_TOP = HEADER_H + 12
_RATING_BOX = (10, _PROFILE_TOP, 364, 208)  # x, y, width, height
_COUNTS_BOX = (386, _PROFILE_TOP, 364, 208)
_CONTRACTS_BOX = (10, _PROFILE_TOP + 220, 740, 278)
_PARTNER_Y = PROFILE_SIZE[1] - 24
_CHART = (30, _PROFILE_TOP + 92, 324, 92)  # x, y, width, height of the rating line


@lru_cache(maxsize=2)
def _profile_background(with_games: bool) -> Image.Image:
    canvas = _felt(PROFILE_SIZE).copy()
    if with_games:
        for x, y, w, h in (_RATING_BOX, _COUNTS_BOX, _CONTRACTS_BOX):
            _stamp(canvas, _assets.rounded_stamp(w, h, 12, PANEL), (x, y))
    return canvas


def render_profile(scene: ProfileScene) -> bytes:
    """A player's profile card: rating with a line of its history, results, contracts per family, Kontra and
    best partner, as PNG bytes (PROFILE_SIZE, palette mode)."""
    return _encode(_compose_profile(scene), DEFAULT_DECK)


def _compose_profile(scene: ProfileScene) -> Image.Image:
    lang = scene.lang
    canvas = _profile_background(scene.has_games).copy()
    _text(canvas, (14, HEADER_H // 2), scene.display_name, 22, TEXT, anchor="lm", max_width=420)
    if scene.rank is not None:
        rank = label("profile_rank", lang, rank=scene.rank)
        _text(canvas, (WIDTH - 14, HEADER_H // 2), rank, 20, GOLD, anchor="rm", max_width=300)
    if not scene.has_games:
        centre = WIDTH // 2
        _text(
            canvas,
            (centre, 230),
            label("profile_no_games", lang),
            28,
            GOLD,
            anchor="mm",
            max_width=WIDTH - 40,
        )
        hint = label("profile_no_games_hint", lang)
        _text(canvas, (centre, 280), hint, 20, TEXT, weight="regular", anchor="mm", max_width=WIDTH - 40)
        return canvas
    _profile_rating(canvas, scene)
    _profile_counts(canvas, scene)
    _profile_contracts(canvas, scene)
    if scene.partner is not None:
        name, together, won = scene.partner
        line = label("profile_partner_line", lang, name=name, won=won, together=together)
        colour = TEXT
    else:
        line, colour = label("profile_no_partner", lang, n=scene.min_together), MUTED
    title = label("profile_partner", lang)
    _text(canvas, (24, _PARTNER_Y), title, BODY, GOLD, anchor="lm")
    indent = 36 + round(fonts.length(title, BODY))
    _text(
        canvas,
        (indent, _PARTNER_Y),
        line,
        BODY,
        colour,
        weight="regular",
        anchor="lm",
        max_width=WIDTH - 24 - indent,
    )
    return canvas


def _profile_rating(canvas: Image.Image, scene: ProfileScene) -> None:
    lang = scene.lang
    x, y, w, _ = _RATING_BOX
    _text(canvas, (x + 14, y + 12), label("profile_rating", lang), BODY, MUTED, weight="regular")
    if scene.rating is None:
        _text(canvas, (x + 14, y + 38), label("profile_unrated", lang), 26, TEXT, max_width=w - 28)
    else:
        big = f"{scene.rating}"
        _text(canvas, (x + 14, y + 34), big, 40, GOLD)
        spread = f"± {scene.uncertainty}"
        _text(canvas, (x + 26 + fonts.length(big, 40), y + 52), spread, 20, MUTED, weight="regular")
    _rating_chart(canvas, scene)


def _rating_chart(canvas: Image.Image, scene: ProfileScene) -> None:
    """The shown rating after each of the last Bummerl as a line, lowest and highest value at its side."""
    lang, history = scene.lang, scene.history
    cx, cy, cw, ch = _CHART
    if not history:
        message = label("profile_no_rated_games", lang)
        _stamp(canvas, _assets.rounded_stamp(cw, ch, 10, FELT, SLOT, 2), (cx, cy))
        _text(
            canvas,
            (cx + cw // 2, cy + ch // 2),
            message,
            16,
            MUTED,
            weight="regular",
            anchor="mm",
            max_width=cw - 20,
        )
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
    _text(canvas, (cx + cw, _RATING_BOX[1] + 14), caption, SMALL, MUTED, weight="regular", anchor="ra")


def _share(won: int, total: int) -> str:
    return f"{round(100 * won / total)} %" if total else "—"


def _profile_counts(canvas: Image.Image, scene: ProfileScene) -> None:
    lang = scene.lang
    x, y, w, _ = _COUNTS_BOX
    rows = (
        ("profile_bummerl", scene.bummerl),
        ("profile_deals", scene.deals),
        ("profile_kontra", scene.kontra),
    )
    for index, (key, (won, total)) in enumerate(rows):
        row_y = y + 14 + index * 64
        _text(canvas, (x + 14, row_y), label(key, lang), 16, MUTED, weight="regular", max_width=w - 110)
        value = label("profile_of", lang, won=won, total=total)
        _text(canvas, (x + 14, row_y + 22), value, 24, TEXT, max_width=w - 110)
        _text(canvas, (x + w - 14, row_y + 22), _share(won, total), 24, GOLD, anchor="ra")


def _profile_contracts(canvas: Image.Image, scene: ProfileScene) -> None:
    lang = scene.lang
    x, y, w, _ = _CONTRACTS_BOX
    declared_x, made_x, share_x = x + w - 250, x + w - 140, x + w - 16
    _text(canvas, (x + 14, y + 12), label("profile_contracts", lang), NAME, GOLD)
    for column_x, key in ((declared_x, "profile_declared"), (made_x, "profile_made")):
        _text(canvas, (column_x, y + 14), label(key, lang), SMALL, MUTED, weight="regular", anchor="ra")
    for index, (family, declared, made) in enumerate(scene.contracts):
        row_y = y + 46 + index * 46
        colour = TEXT if declared else MUTED
        name = family_label(family, lang)
        _text(canvas, (x + 14, row_y), name, BODY, colour, max_width=declared_x - x - 120)
        members = family_members(family, lang)
        if members:
            _text(
                canvas,
                (x + 14, row_y + 21),
                members,
                SMALL,
                MUTED,
                weight="regular",
                max_width=declared_x - x - 90,
            )
        _text(canvas, (declared_x, row_y), str(declared), 18, colour, anchor="ra")
        _text(canvas, (made_x, row_y), str(made), 18, colour, anchor="ra")
        _text(canvas, (share_x, row_y), _share(made, declared), 18, GOLD if declared else MUTED, anchor="ra")


# ---------------------------------------------------------------- encoding
# Encoding an RGB PNG costs more than composing it. Mapping the canvas onto a fixed 256-colour palette (no
# dithering) and saving that is several times faster and smaller. Each deck's palette is cut offline by
# tools/gen_palette.py from sample renders that contain every card tile, so the flat card art and anti-aliased
# edges keep their colours, and shipped as assets/cards/<deck>/palette.png.


def _encode(canvas: Image.Image, deck: str) -> bytes:
    indexed = canvas.quantize(palette=_assets.palette(deck), dither=Image.Dither.NONE)
    buffer = io.BytesIO()
    indexed.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


def preload(deck: str = DEFAULT_DECK) -> None:
    """Load the deck's palette, scale its tiles and read the fonts' glyph coverage now instead of on the
    first renders."""
    check_deck(deck)
    _assets.palette(deck)
    for weight in _assets.FONT_FILES:
        for path in _assets.font_chain(weight):
            _assets.coverage(path)
    for card in ALL_CARDS:
        for width in (HAND_CARD_W, TRICK_CARD_W, MINI_CARD_W):
            _assets.card_tile(deck, card, width)
        _assets.dimmed_tile(deck, card, HAND_CARD_W)
    _assets.dimmed_tile(deck, "back", TRICK_CARD_W)
    for suit in SUITS:
        _assets.suit_icon(deck, suit, HEADER_ICON)
