"""The one-screen turn image: the cards on the table (who played what) above the player's hand, so that a
player can play from their hand message alone, without looking at the table message.

Made of the same cached tiles and text masks as the hand and table images (``images.py``), as PNG bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.render import _assets
from bot.render.alt import hand_alt_text
from bot.render.images import (
    BODY,
    FELT,
    GOLD,
    HAND_CARD_H,
    MAX_HAND,
    MUTED,
    SLOT,
    SMALL,
    TEXT,
    TRICK_CARD_H,
    TRICK_CARD_W,
    WIDTH,
    _encode,
    _felt,
    _hand_row,
    _header,
    _stamp,
    _text,
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

TURN_SIZE = (WIDTH, 500)
_CAPTION_Y = 58
_SLOT_Y = 74
_SLOT_GAP = 48  # room for a name of about 15 characters under each card
_NAME_Y = _SLOT_Y + TRICK_CARD_H + 14
_HAND_BASE_Y = TURN_SIZE[1] - HAND_CARD_H - 14


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


def render_turn(scene: TurnScene) -> bytes:
    """The table's cards above the hand, as PNG bytes (TURN_SIZE, palette mode)."""
    deck, lang = scene.deck, scene.lang
    canvas = _felt(TURN_SIZE).copy()
    _header(canvas, scene.trump, scene.contract_label, scene.multiplier, deck, lang)
    _text(canvas, (WIDTH // 2, _CAPTION_Y), scene.caption, BODY, MUTED, weight="regular", anchor="mm",
          max_width=WIDTH - 40)  # fmt: skip
    places = scene.places
    total = len(places) * TRICK_CARD_W + max(0, len(places) - 1) * _SLOT_GAP
    x = (WIDTH - total) // 2
    empty = _assets.rounded_stamp(TRICK_CARD_W, TRICK_CARD_H, 10, FELT, SLOT, 2)
    yours = _assets.rounded_stamp(TRICK_CARD_W, TRICK_CARD_H, 10, FELT, GOLD, 3)
    for name, card, is_viewer in places:
        if card is not None:
            _stamp(canvas, _assets.card_tile(deck, card, TRICK_CARD_W), (x, _SLOT_Y))
        else:
            _stamp(canvas, yours if is_viewer else empty, (x, _SLOT_Y))
        shown = f"{name} ({label('you', lang)})" if is_viewer else name
        _text(canvas, (x + TRICK_CARD_W // 2, _NAME_Y), shown, SMALL, GOLD if is_viewer else TEXT, anchor="mm",
              max_width=TRICK_CARD_W + _SLOT_GAP - 4)  # fmt: skip
        x += TRICK_CARD_W + _SLOT_GAP
    playable = None if scene.playable is None else set(scene.playable)
    _hand_row(canvas, scene.cards, playable, scene.trump, deck, _HAND_BASE_Y)
    return _encode(canvas, deck)


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
