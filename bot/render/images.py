"""Hand, table and result images: pure functions from plain values to PNG bytes.

Each image is composed from cached, pre-scaled tiles on a cached background (both read-only, copied or
pasted from), so a render costs a few pastes, a few lines of text and the PNG encoding; the hand image (and
the turn image, turn.py), drawn on every move, from pieces kept in the palette (``Piece``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

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
    label,
    suit_name,
)
from bot.render.png import palette_png
from bot.render.scenes import ResultScene, TableScene, team_of

RGB = tuple[int, int, int]
# Every image is drawn 480 px wide and no text in it is below 16 px: Discord shows an image at most the width of
# a message, which on a phone 360 px wide is about 360 px, and there 16 px text is 12 px (docs/cards.md;
# tests/bot/render/test_render_phone.py checks every image kind that way).
WIDTH = 480
PHONE_WIDTH = 360
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
HEADER_ICON = 26  # the trump suit symbol in the header
HAND_CARD_W, HAND_CARD_H = 88, 132
HAND_GAP = 5
HAND_RAISE = 10
TRICK_CARD_W, TRICK_CARD_H = 72, 108
MINI_CARD_W, MINI_CARD_H = 56, 84
TINY_CARD_W, TINY_CARD_H = 40, 60
TINY_STRIDE = 22
HAND_SIZE = (WIDTH, HEADER_H + HAND_RAISE + 10 + HAND_CARD_H + 12)

# Text sizes in pixels: a phone shows these 480 px images about 360 px wide, where 16 px is 12 px.
SMALL = 16  # captions, notes, names under cards
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


def line_height(size: int) -> int:
    return round(size * 1.25)


@lru_cache(maxsize=2048)
def _fit_lines(
    text: str, largest: int, smallest: int, max_width: int, weight: str = "bold", max_lines: int = 2
) -> tuple[int, tuple[str, ...]]:
    """The size and lines to draw text in max_width: one line at the largest size that fits (down to
    smallest), else as few lines as fit (up to max_lines) at the largest size that needs no cut; only a text
    too long for that is cut, at smallest."""
    for size in range(largest, smallest - 1, -1):
        if fonts.length(text, size, weight) <= max_width:
            return size, (text,)
    for size in range(largest, smallest - 1, -1):
        lines = fonts.wrap(text, size, max_width, weight, max_lines=len(text))
        if len(lines) <= max_lines:
            return size, lines
    return smallest, fonts.wrap(text, smallest, max_width, weight, max_lines)


def _fit_name(text: str, size: int, max_width: int, max_lines: int = 2) -> tuple[str, tuple[str, ...]]:
    """A name in a narrow place, at ``size``: the weight and lines to draw it whole, bold if it fits in
    max_lines lines, else regular (narrower); cut only when neither fits."""
    for weight in ("bold", "regular"):
        lines = fonts.wrap(text, size, max_width, weight, max_lines=len(text))
        if len(lines) <= max_lines and all(fonts.length(word, size, weight) <= max_width for word in text.split()):
            return weight, lines
    return "regular", fonts.wrap(text, size, max_width, "regular", max_lines)


def _lines(
    canvas: Image.Image,
    x: float,
    top: float,
    lines: Sequence[str],
    size: int,
    fill: RGB,
    weight: str = "bold",
    align: str = "l",
) -> int:
    """Lines of text from top down, aligned l(eft), m(iddle) or r(ight) at x; returns their height."""
    step = line_height(size)
    for index, line in enumerate(lines):
        _text(canvas, (x, top + step * index + step / 2), line, size, fill, weight, anchor=f"{align}m")
    return step * len(lines)


def _stamp(canvas: Image.Image, stamp: Image.Image, xy: tuple[int, int]) -> None:
    canvas.paste(stamp, xy, stamp)


def _header(
    canvas: Image.Image, trump: str | None, contract: str | None, multiplier: int, deck: str, lang: str, top: int = 0
) -> None:
    """The strip along the top: trump suit on the left, contract and multiplier on the right, both as large
    as they fit side by side (20 px down to 16, then the contract's name is cut, never the multiplier).
    ``top``: where the strip begins (a piece of its own begins at 0)."""
    if trump is not None:
        _stamp(canvas, _assets.suit_icon(deck, trump, HEADER_ICON), (10, top + (HEADER_H - HEADER_ICON) // 2))
        left, left_x, colour = f"{label('trump', lang)}: {suit_name(trump, deck, lang)}", 42, TEXT
    else:  # no contract yet means trump is still to be named; a contract without trumps has none
        left, left_x, colour = label("no_trump" if contract else "trump_not_chosen", lang), 12, MUTED
    stakes = f"×{multiplier}" if multiplier > 1 else ""
    right = "  ".join(part for part in (contract, stakes) if part)
    size = NAME
    while size > SMALL and left_x + fonts.length(left, size) + 16 + fonts.length(right, size) + 12 > WIDTH:
        size -= 1
    left_w = round(fonts.length(left, size))
    room = WIDTH - 12 - left_x - (left_w + 16 if right else 0)
    _text(canvas, (left_x, top + HEADER_H // 2), left, size, colour, anchor="lm", max_width=WIDTH - 12 - left_x)
    if contract and stakes and fonts.length(right, size) > room:  # the stakes stay whole
        right = f"{fonts.fit(contract, size, room - round(fonts.length('  ' + stakes, size)))}  {stakes}"
    if right:
        _text(canvas, (WIDTH - 12, top + HEADER_H // 2), right, size, GOLD, anchor="rm", max_width=room)


def _team_name(names: Sequence[str], team: int, lang: str) -> str:
    return label("team", lang, a=names[team], b=names[team + 2])


@lru_cache(maxsize=8)
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
    layout = hand_layout(cards, playable_set, trump, deck, lang, contract)
    return palette_png(compose_in_palette(HAND_SIZE, deck, layout))


def hand_layout(
    cards: tuple[str, ...], playable_set: set[str] | None, trump: str | None, deck: str, lang: str,
    contract: str | None = None,
) -> list[Placed]:
    return [header_piece(trump, contract, 1, deck, lang), *hand_row(cards, playable_set, trump, deck, HAND_SIZE[1])]


CardLook = Literal["raised", "plain", "dimmed"]
# A hand card's piece: its column, from a raised card's outline down to the bottom of a card left in place.
_HAND_PIECE_SIZE = (HAND_CARD_W + 4, 2 + HAND_RAISE + HAND_CARD_H)


def hand_row(
    cards: Sequence[str], playable: set[str] | None, trump: str | None, deck: str, bottom: int
) -> list[Placed]:
    """A hand centred along the foot of an image ``bottom`` px tall: playable cards raised and outlined, the
    others dimmed (all plain when ``playable`` is None), trumps starred. The hand image and the turn image
    draw it alike."""
    total = len(cards) * HAND_CARD_W + max(0, len(cards) - 1) * HAND_GAP
    x = (WIDTH - total) // 2
    top = bottom - 12 - HAND_CARD_H - HAND_RAISE - 2
    row = []
    for card in cards:
        look: CardLook = "plain" if playable is None else "raised" if card in playable else "dimmed"
        starred = trump is not None and card[0] == trump
        row.append(((x - 2, top), Piece(_HAND_PIECE_SIZE, FELT, _hand_card, (deck, card, look, starred))))
        x += HAND_CARD_W + HAND_GAP
    return row


def _hand_card(canvas: Image.Image, x: int, y: int, deck: str, card: str, look: CardLook, starred: bool) -> None:
    """One card of a hand in its piece (a raised card outlined in gold) with the piece's top left at x, y."""
    x, y = x + 2, y + (2 if look == "raised" else 2 + HAND_RAISE)
    if look == "raised":
        _stamp(canvas, _assets.rounded_stamp(HAND_CARD_W + 4, HAND_CARD_H + 4, 9, GOLD), (x - 2, y - 2))
    dimmed = look == "dimmed"
    _stamp(canvas, (_assets.dimmed_tile if dimmed else _assets.card_tile)(deck, card, HAND_CARD_W), (x, y))
    if starred:
        badge = _assets.star(22, GOLD, GOLD_DARK)
        _stamp(canvas, badge, (x + HAND_CARD_W - badge.width - 4, y + 4))


# ---------------------------------------------------------------- table

# Where each seat is drawn: 0 = bottom, 1 = left, 2 = top, 3 = right. A viewer's own seat is at the bottom;
# the public image (no viewer) is drawn as a compass, as bridge diagrams are: North at the top, East on the
# right, South at the bottom, West on the left, which is South's own view. Play goes clockwise (N, E, S, W),
# which seen from above runs bottom -> left -> top -> right.
_SLOTS = {0: (204, 238), 1: (60, 174), 2: (204, 110), 3: (348, 174)}  # trick card slots, top left corners
# Each seat's name pill: its centre x, the y of its edge next to the card (the top pill grows upwards from
# there, the others downwards) and its width. A name too long for one line takes two.
_PILLS = {0: (240, 352, 236), 1: (96, 288, 172), 2: (240, 104, 236), 3: (384, 288, 172)}
_ROSE = (40, 100)  # centre of the compass rose in the top left corner
_ROSE_R = 28
_PANEL_H, _PANEL_GAP = 100, 8
_PANEL_X, _PANEL_W = 10, WIDTH - 20
_PANEL_Y = (418, 418 + _PANEL_H + _PANEL_GAP)  # the viewer's team (or North-South) first
TABLE_SIZE = (WIDTH, _PANEL_Y[1] + _PANEL_H + 10)


def _relative(seat: int, viewer: int | None) -> int:
    """Where seat is drawn (see _SLOTS) for this viewer; None: the compass view, which is South's."""
    return (seat - (2 if viewer is None else viewer)) % 4


@lru_cache(maxsize=4)
def _table_background(own_team: int | None) -> Image.Image:
    """Felt, empty card slots, the compass rose's cross and the two team panels; own_team's panel (the
    first) is outlined."""
    canvas = _felt(TABLE_SIZE).copy()
    slot = _assets.rounded_stamp(TRICK_CARD_W, TRICK_CARD_H, 8, FELT, SLOT, 2)
    for xy in _SLOTS.values():
        _stamp(canvas, slot, xy)
    x, y = _ROSE
    arm = _ROSE_R - 12
    draw = ImageDraw.Draw(canvas)
    draw.line((x - arm, y, x + arm, y), fill=SLOT, width=2)
    draw.line((x, y - arm, x, y + arm), fill=SLOT, width=2)
    for index, y in enumerate(_PANEL_Y):
        outline = GOLD if own_team is not None and index == 0 else None
        panel = _assets.rounded_stamp(_PANEL_W, _PANEL_H, 12, PANEL, outline, 2 if outline else 0)
        _stamp(canvas, panel, (_PANEL_X, y))
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


def _name_pill(canvas: Image.Image, where: int, text: str, size: int, colour: RGB, weight: str,
               fill: RGB) -> None:  # fmt: skip
    """A name on its pill next to its seat's card, on two lines when one is too short for it."""
    cx, edge, width = _PILLS[where]
    size, lines = _fit_lines(text, size, SMALL, width - 20, weight)
    height = line_height(size) * len(lines) + 8
    top = edge - height if where == 2 else edge
    _stamp(canvas, _assets.rounded_stamp(width, height, min(height // 2, 16), fill), (cx - width // 2, top))
    _lines(canvas, cx, top + 4, lines, size, colour, weight, align="m")


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
            ring = _assets.rounded_stamp(TRICK_CARD_W, TRICK_CARD_H, 8, FELT, GOLD, 3)
            _stamp(canvas, ring, (x, y))
        name = names[seat]
        if seat == scene.viewer_seat:
            name = f"{name} ({label('you', lang)})"
        if seat == scene.to_act_seat:
            _name_pill(canvas, where, name, NAME, INK, "bold", GOLD)
        elif seat == scene.sitting_out_seat:
            _name_pill(canvas, where, f"{name}: {label('sits_out', lang)}", BODY, MUTED, "regular", FELT_DARK)
        else:
            _name_pill(canvas, where, name, NAME, TEXT, "bold", FELT_DARK)

    first_team = own_team if own_team is not None else 0
    for index, team in enumerate((first_team, 1 - first_team)):
        _team_panel(canvas, scene, team, _PANEL_Y[index])
    return canvas


def _team_panel(canvas: Image.Image, scene: TableScene, team: int, y: int) -> None:
    """The team's names (on two lines if need be) with its points and tricks below, and the cards of its
    first trick on the right."""
    lang = scene.lang
    x = _PANEL_X
    right = x + _PANEL_W - 12
    start = right - TINY_CARD_W - TINY_STRIDE * 3  # room for a whole trick, so the columns stay put
    cards = scene.first_tricks[team]
    if cards:
        _text(canvas, (start, y + 10), label("first_trick", lang), SMALL, MUTED, weight="regular",
              max_width=right - start)  # fmt: skip
        for offset, card in enumerate(cards):
            tile = _assets.card_tile(scene.deck, card, TINY_CARD_W)
            _stamp(canvas, tile, (start + offset * TINY_STRIDE, y + _PANEL_H - TINY_CARD_H - 8))
    column = start - x - 28
    size, lines = _fit_lines(_team_name(scene.seat_names, team, lang), NAME, SMALL, column)
    name_h = _lines(canvas, x + 14, y + 8, lines, size, TEXT)
    line_y = y + 8 + name_h + 24
    tricks = count_label(scene.team_tricks[team], "trick", "tricks", lang)
    if scene.team_points is not None:
        points = count_label(scene.team_points[team], "point", "points", lang)
        _text(canvas, (x + 14, line_y), points, 22, GOLD, anchor="lm", max_width=column)
        tricks_x = x + 14 + round(fonts.length(points, 22)) + 16
        _text(canvas, (tricks_x, line_y), tricks, BODY, MUTED, weight="regular", anchor="lm",
              max_width=max(start - 12 - tricks_x, 0) or None)  # fmt: skip
    else:
        _text(canvas, (x + 14, line_y), tricks, BODY, MUTED, weight="regular", anchor="lm", max_width=column)


# ---------------------------------------------------------------- result

RESULT_MAX_H = 600  # drawn on a canvas this tall, then cut to what the result needs


def render_result(scene: ResultScene) -> bytes:
    """The end of a deal: winners, game points, card points and the Bummerl score, as PNG bytes (WIDTH wide,
    as tall as the names need; palette mode)."""
    return _encode(_compose_result(scene), scene.deck)


def _compose_result(scene: ResultScene) -> Image.Image:
    lang, names = scene.lang, scene.seat_names
    canvas = _felt((WIDTH, RESULT_MAX_H)).copy()
    _header(canvas, scene.trump, scene.contract_label, scene.multiplier, scene.deck, lang)
    centre, inner = WIDTH // 2, WIDTH - 32
    headline = label("wins", lang, team=_team_name(names, scene.winner_team, lang))
    size, lines = _fit_lines(headline, 28, NAME, inner)
    y = HEADER_H + 12 + _lines(canvas, centre, HEADER_H + 12, lines, size, GOLD, align="m")
    if scene.detail:
        size, lines = _fit_lines(scene.detail, BODY, SMALL, inner, "regular")
        y += 2 + _lines(canvas, centre, y + 2, lines, size, TEXT, "regular", align="m")
    points = count_label(scene.game_points, "game_point", "game_points", lang)
    y += 4 + _lines(canvas, centre, y + 4, [points], 24, TEXT, align="m")
    if scene.card_points is not None:
        a, b = scene.card_points
        card_points = f"{label('card_points', lang)}  {a} : {b}"
        y += _lines(canvas, centre, y, [card_points], BODY, MUTED, "regular", align="m")
    # Bummerl standing: each team's names and score, a bar towards the target under them, and the Bummerl
    # it has lost so far (a team's Bummerl is one it lost: it is charged to the losers).
    y += 14
    bar_w, bar_h = inner, 16
    for team in (0, 1):
        colour = GOLD if team == scene.winner_team else MUTED
        score = f"{scene.score[team]} / {scene.target}"
        score_w = round(fonts.length(score, NAME))
        _text(canvas, (WIDTH - 16, y + line_height(NAME) // 2), score, NAME, colour, anchor="rm")
        size, lines = _fit_lines(_team_name(names, team, lang), NAME, SMALL, inner - score_w - 16)
        y += _lines(canvas, 16, y, lines, size, TEXT) + 4
        _stamp(canvas, _assets.rounded_stamp(bar_w, bar_h, bar_h // 2, FELT_DARK), (16, y))
        filled = round(bar_w * min(scene.score[team], scene.target) / scene.target)
        if filled >= bar_h:
            _stamp(canvas, _assets.rounded_stamp(filled, bar_h, bar_h // 2, colour), (16, y))
        y += bar_h + 4
        if scene.bummerls[team]:
            lost = label("bummerl_lost", lang, n=scene.bummerls[team])
            y += _lines(canvas, 16, y, [lost], SMALL, MUTED, "regular")
        y += 12
    return canvas.crop((0, 0, WIDTH, y + 2))


# ---------------------------------------------------------------- encoding
# Encoding an RGB PNG costs more than composing it. Mapping the canvas onto a fixed 256-colour palette (no
# dithering) and saving that is several times faster and smaller. Each deck's palette is cut offline by
# tools/gen_palette.py from sample renders that contain every card tile, so the flat card art and anti-aliased
# edges keep their colours, and shipped as assets/cards/<deck>/palette.png.


def _encode(canvas: Image.Image, deck: str) -> bytes:
    return palette_png(_in_palette(canvas, deck))


def _in_palette(canvas: Image.Image, deck: str) -> Image.Image:
    return canvas.quantize(palette=_assets.palette(deck), dither=Image.Dither.NONE)


# ---------------------------------------------------------------- pieces kept in the palette
# The images drawn on every move (a hand, a turn) are made of pieces that each lie on one plain colour and
# overlap no other: the header, the caption, each card's place. A piece is drawn once on its colour and kept
# already in the deck's palette, and such an image is its pieces copied into place on the palette's felt: no
# blending, no colour search. The pixels are those of drawing the whole layout on the felt and mapping it onto
# the palette, since that mapping takes each pixel alone (tests/bot/render/test_render_pieces.py).


@dataclass(frozen=True, slots=True)
class Piece:
    """``draw(canvas, x, y, *args)`` draws the piece with its top left corner at x, y; it lies on
    ``background`` and draws nothing outside ``size``."""

    size: tuple[int, int]
    background: RGB
    draw: Callable[..., None]
    args: tuple[Any, ...]


Placed = tuple[tuple[int, int], Piece]  # a piece and where its top left corner goes


def compose_in_palette(size: tuple[int, int], deck: str, layout: Sequence[Placed]) -> Image.Image:
    """The felt of ``size`` with each piece of ``layout`` in place, in ``deck``'s palette."""
    canvas = _felt_in_palette(size, deck).copy()
    for xy, piece in layout:
        canvas.paste(_piece_in_palette(piece, deck), xy)
    return canvas


def drawn_whole(size: tuple[int, int], layout: Sequence[Placed]) -> Image.Image:
    """The felt of ``size`` with the layout drawn on it in full colour: what ``compose_in_palette`` gives, before
    the palette (the tool that cuts the palettes samples it)."""
    canvas = _felt(size).copy()
    for (x, y), piece in layout:
        piece.draw(canvas, x, y, *piece.args)
    return canvas


@lru_cache(maxsize=1536)
def _piece_in_palette(piece: Piece, deck: str) -> Image.Image:
    canvas = Image.new("RGB", piece.size, piece.background)
    piece.draw(canvas, 0, 0, *piece.args)
    return _in_palette(canvas, deck)


@lru_cache(maxsize=16)
def _felt_in_palette(size: tuple[int, int], deck: str) -> Image.Image:
    return _in_palette(_felt(size), deck)


def header_piece(trump: str | None, contract: str | None, multiplier: int, deck: str, lang: str) -> Placed:
    """``_header`` as a piece."""
    return (0, 0), Piece((WIDTH, HEADER_H), FELT_DARK, _header_at, (trump, contract, multiplier, deck, lang))


def _header_at(
    canvas: Image.Image, x: int, y: int, trump: str | None, contract: str | None, multiplier: int, deck: str,
    lang: str,
) -> None:  # fmt: skip
    """``_header``'s strip at ``y`` (it is the image's width: ``x`` is 0)."""
    _header(canvas, trump, contract, multiplier, deck, lang, top=y)


def preload(deck: str = DEFAULT_DECK) -> None:
    """Load the deck's palette, scale its tiles and read the fonts' glyph coverage now instead of on the
    first renders."""
    check_deck(deck)
    _assets.palette(deck)
    for weight in _assets.FONT_FILES:
        for path in _assets.font_chain(weight):
            _assets.coverage(path)
    for card in ALL_CARDS:
        for width in (HAND_CARD_W, TRICK_CARD_W, MINI_CARD_W, TINY_CARD_W):
            _assets.card_tile(deck, card, width)
        _assets.dimmed_tile(deck, card, HAND_CARD_W)
        _assets.dimmed_tile(deck, card, MINI_CARD_W)  # the deal review's cards never played
    _assets.dimmed_tile(deck, "back", TRICK_CARD_W)
    for suit in SUITS:
        _assets.suit_icon(deck, suit, HEADER_ICON)
