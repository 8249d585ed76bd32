"""The one-screen turn image: the cards on the table (who played what) above the player's hand, so that a
player can play from their hand message alone, without looking at the table message.

Made of pieces kept in the palette, as the hand image is (``images.Piece``), as PNG bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image

from bot.render import _assets
from bot.render.alt import hand_alt_text
from bot.render.images import (
    BODY,
    FELT,
    GOLD,
    HAND_CARD_H,
    HAND_RAISE,
    HEADER_H,
    MAX_HAND,
    MUTED,
    SLOT,
    SMALL,
    TEXT,
    TRICK_CARD_H,
    TRICK_CARD_W,
    WIDTH,
    Piece,
    Placed,
    _fit_lines,
    _fit_name,
    _lines,
    _stamp,
    compose_in_palette,
    hand_row,
    header_piece,
    line_height,
)
from bot.render.names import (
    DEFAULT_DECK,
    DEFAULT_LANGUAGE,
    card_name,
    check_card,
    check_deck,
    check_lang,
    check_suit,
    join_names,
    label,
)
from bot.render.png import palette_png

_CAPTION_TOP, _CAPTION_LINES = HEADER_H + 4, 2  # the caption takes two lines where one is too short
_SLOT_Y = _CAPTION_TOP + _CAPTION_LINES * line_height(BODY) + 4
_COLUMN = WIDTH // 4  # each place's column: its card, and its name under it
# Room for names of two lines under the cards, three where a name at the table needs them (the names stay
# for the whole table, so its turn images keep one size).
_NAME_LINES, _MOST_NAME_LINES = 2, 3
_NAME_Y = _SLOT_Y + TRICK_CARD_H + 4
TURN_SIZE = (WIDTH, _NAME_Y + _NAME_LINES * line_height(SMALL) + 6 + HAND_RAISE + HAND_CARD_H + 12)


@dataclass(frozen=True, slots=True)
class TurnScene:
    """What a player sees on their turn: the table's cards above their hand. Hashable, so that a position's
    image is drawn once and then reused (``payloads``)."""

    cards: tuple[str, ...]  # the hand, in the order it is shown
    playable: tuple[str, ...] | None  # None: not a card play (every card shown plainly)
    # The seats in playing order, each (name, card on the table or None, is it the viewer).
    places: tuple[tuple[str, str | None, bool], ...]
    caption: str  # what the cards above are ("Trick 3", "Last trick: won by Anna"), already translated
    trump: str | None = None
    contract_label: str | None = None
    multiplier: int = 1
    deck: str = DEFAULT_DECK
    lang: str = DEFAULT_LANGUAGE

    def __post_init__(self) -> None:
        for card in self.cards + (self.playable or ()):
            check_card(card)
        for _, played, _ in self.places:
            if played is not None:
                check_card(played)
        if len(self.cards) > MAX_HAND or len(self.places) > 4:
            raise ValueError(f"a turn image shows at most {MAX_HAND} cards and 4 places")
        if self.trump is not None:
            check_suit(self.trump)
        check_deck(self.deck)
        check_lang(self.lang)


def _shown_names(scene: TurnScene) -> list[tuple[str, tuple[str, ...]]]:
    """Each place's name as drawn under its card: weight and lines, "(you)" after the viewer's."""
    you = label("you", scene.lang)
    return [
        _fit_name(f"{name} ({you})" if is_viewer else name, SMALL, _COLUMN - 6, _MOST_NAME_LINES)
        for name, _, is_viewer in scene.places
    ]


def turn_size(scene: TurnScene) -> tuple[int, int]:
    """TURN_SIZE, or taller by a line when a name at the table takes three."""
    return _size_for(_shown_names(scene))


def _size_for(names: list[tuple[str, tuple[str, ...]]]) -> tuple[int, int]:
    lines = max((len(lines) for _, lines in names), default=0)
    return WIDTH, TURN_SIZE[1] + max(lines - _NAME_LINES, 0) * line_height(SMALL)


def render_turn(scene: TurnScene) -> bytes:
    """The table's cards above the hand, as PNG bytes (``turn_size(scene)``, palette mode)."""
    size, layout = turn_layout(scene)
    return palette_png(compose_in_palette(size, scene.deck, layout))


# Under the header, in bands: the caption, the places' cards, each place's name in its column (from under the
# cards down to the hand), the hand.
_NAMES_TOP = _SLOT_Y + TRICK_CARD_H


def turn_layout(scene: TurnScene) -> tuple[tuple[int, int], list[Placed]]:
    """The turn image's size (``turn_size``) and its pieces (``images.Piece``), each where it goes: the names
    fitted once for both."""
    deck = scene.deck
    names = _shown_names(scene)
    size = _size_for(names)
    height = size[1]
    layout = [
        header_piece(scene.trump, scene.contract_label, scene.multiplier, deck, scene.lang),
        ((0, HEADER_H), Piece((WIDTH, _SLOT_Y - HEADER_H), FELT, _caption, (scene.caption,))),
    ]
    name_size = (_COLUMN, height - 12 - HAND_CARD_H - HAND_RAISE - 2 - _NAMES_TOP)  # down to the hand's pieces
    x = (WIDTH - len(scene.places) * _COLUMN) // 2
    for (_, card, is_viewer), (weight, lines) in zip(scene.places, names, strict=True):
        slot = Piece((TRICK_CARD_W, TRICK_CARD_H), FELT, _place_card, (deck, card, is_viewer))
        layout.append(((x + (_COLUMN - TRICK_CARD_W) // 2, _SLOT_Y), slot))
        layout.append(((x, _NAMES_TOP), Piece(name_size, FELT, _place_name, (lines, weight, is_viewer))))
        x += _COLUMN
    playable = None if scene.playable is None else set(scene.playable)
    return size, layout + hand_row(scene.cards, playable, scene.trump, deck, height)


def _caption(canvas: Image.Image, x: int, y: int, caption: str) -> None:
    size, lines = _fit_lines(caption, BODY, SMALL, WIDTH - 24, "regular", _CAPTION_LINES)
    caption_h = line_height(size) * len(lines)
    top = y + _CAPTION_TOP - HEADER_H + (_CAPTION_LINES * line_height(BODY) - caption_h) // 2
    _lines(canvas, x + WIDTH // 2, top, lines, size, MUTED, "regular", align="m")


def _place_card(canvas: Image.Image, x: int, y: int, deck: str, card: str | None, is_viewer: bool) -> None:
    """A place's card on the table, or its empty slot (the viewer's outlined in gold)."""
    if card is not None:
        _stamp(canvas, _assets.card_tile(deck, card, TRICK_CARD_W), (x, y))
    elif is_viewer:
        _stamp(canvas, _assets.rounded_stamp(TRICK_CARD_W, TRICK_CARD_H, 8, FELT, GOLD, 3), (x, y))
    else:
        _stamp(canvas, _assets.rounded_stamp(TRICK_CARD_W, TRICK_CARD_H, 8, FELT, SLOT, 2), (x, y))


def _place_name(canvas: Image.Image, x: int, y: int, lines: tuple[str, ...], weight: str, is_viewer: bool) -> None:
    colour = GOLD if is_viewer else TEXT
    _lines(canvas, x + _COLUMN // 2, y + _NAME_Y - _NAMES_TOP, lines, SMALL, colour, weight, align="m")


def turn_alt_text(scene: TurnScene) -> str:
    """E.g. "Trick 2. Trick: Anna played Herz-Sau and Ben played Herz-König. Your hand: ... Playable: ..."."""
    deck, lang = scene.deck, scene.lang
    sentences = [scene.caption.rstrip(".") + "."]
    plays: Sequence[str] = [
        label("alt_played", lang, name=name, card=card_name(card, deck, lang))
        for name, card, _ in scene.places
        if card is not None
    ]
    sentences.append(label("alt_trick", lang, plays=join_names(list(plays), lang)) if plays
                     else label("alt_trick_empty", lang))  # fmt: skip
    sentences.append(hand_alt_text(scene.cards, scene.playable, scene.trump, deck, lang))
    return " ".join(sentences)
