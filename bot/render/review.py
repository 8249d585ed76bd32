"""The deal review ("Show the deal"): the four hands as dealt and every trick in order with its winner, as
one PNG, and the alt text that says all of it. Plain values in, like the other images."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from bot.render import _assets, fonts
from bot.render.images import (
    BODY,
    FELT,
    FELT_DARK,
    GOLD,
    HEADER_H,
    MINI_CARD_H,
    MINI_CARD_W,
    MUTED,
    NAME,
    PANEL,
    SMALL,
    TEXT,
    WIDTH,
    _encode,
    _header,
    _size_to_fit,
    _stamp,
    _team_name,
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
    count_label,
    join_names,
    label,
    suit_name,
)
from bot.render.scenes import SEATS

Play = tuple[int, str]  # (seat, card)


@dataclass(frozen=True, slots=True)
class ReviewTrick:
    plays: tuple[Play, ...]  # in playing order, the leader first
    winner: int | None  # seat; None for a lead that ended the deal at once (announcing a marriage)


@dataclass(frozen=True, slots=True)
class DealReviewScene:
    """A finished deal: what each seat was dealt, the tricks as played, and the result."""

    seat_names: tuple[str, str, str, str]
    hands: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]  # as dealt, N E S W
    tricks: tuple[ReviewTrick, ...]
    winner_team: int
    game_points: int
    contract_label: str | None = None  # already translated
    declarer_seat: int | None = None
    trump: str | None = None  # suit letter; None for no-trump contracts
    aufschlag_card: str | None = None  # the card turned up for trump, if the deal had one
    multiplier: int = 1
    sitting_out_seat: int | None = None
    marriages: tuple[tuple[int, str, int, int], ...] = ()  # (seat, suit, 20 or 40, 1-based trick number)
    deck: str = DEFAULT_DECK
    lang: str = DEFAULT_LANGUAGE

    def __post_init__(self) -> None:
        if len(self.seat_names) != 4 or len(self.hands) != 4:
            raise ValueError("a review needs four names and four hands, N E S W")
        dealt = [check_card(card) for hand in self.hands for card in hand]
        if len(set(dealt)) != len(dealt):
            raise ValueError(f"a card is dealt once: {self.hands!r}")
        for number, trick in enumerate(self.tricks, start=1):
            seats = [seat for seat, _ in trick.plays]
            if trick.winner is None:
                if number != len(self.tricks) or not self._announced_on(number, trick):
                    raise ValueError(f"only the last trick is unfinished, a lead announcing a marriage: {trick!r}")
            elif len(set(seats)) != len(seats) or trick.winner not in seats:
                raise ValueError(f"a trick has each seat at most once and its winner in it: {trick!r}")
            for seat, card in trick.plays:
                if seat not in SEATS or card not in self.hands[seat]:
                    raise ValueError(f"seat {seat} plays only a card it was dealt: {card!r}")
        if self.winner_team not in (0, 1):
            raise ValueError(f"winner_team must be 0 or 1, got {self.winner_team!r}")
        for optional_seat in (self.declarer_seat, self.sitting_out_seat):
            if optional_seat is not None and optional_seat not in SEATS:
                raise ValueError(f"a seat is 0..3, got {optional_seat!r}")
        if self.trump is not None:
            check_suit(self.trump)
        if self.aufschlag_card is not None and self.aufschlag_card not in dealt:
            raise ValueError(f"the turned-up card is one of the dealt cards: {self.aufschlag_card!r}")
        check_deck(self.deck)
        check_lang(self.lang)

    def _announced_on(self, number: int, lead: ReviewTrick) -> bool:
        """Whether ``lead`` is one card whose seat announced a marriage of its suit on trick ``number``."""
        if len(lead.plays) != 1:
            return False
        seat, card = lead.plays[0]
        return card[1] in "KQ" and any(m[:2] == (seat, card[0]) and m[3] == number for m in self.marriages)

    def played(self) -> frozenset[str]:
        """Every card led or played, a final lead included (it was shown to the table)."""
        return frozenset(card for trick in self.tricks for _, card in trick.plays)

    def never_played(self, seat: int) -> tuple[str, ...]:
        played = self.played()
        return tuple(card for card in self.hands[seat] if card not in played)


# ---------------------------------------------------------------- the image

_MARGIN, _GAP = 10, 10
_CELL_W = (WIDTH - 2 * _MARGIN - _GAP) // 2  # two columns
_CARD_STRIDE = MINI_CARD_W + 6
_HAND_CELL_H = 30 + MINI_CARD_H + 10
_TRICK_CELL_H = 30 + MINI_CARD_H + 30  # a name under each card
_TITLE_H = 30


def review_size(scene: DealReviewScene) -> tuple[int, int]:
    """Width and height of the review image: two rows of hands, then the tricks and the result in two columns."""
    trick_rows = (len(scene.tricks) + 1 + 1) // 2  # the result takes the cell after the last trick
    height = (
        HEADER_H + 2 * (_TITLE_H + _GAP) + 2 * (_HAND_CELL_H + _GAP) + trick_rows * (_TRICK_CELL_H + _GAP)
    )
    return WIDTH, height


def render_deal_review(scene: DealReviewScene) -> bytes:
    """The deal review as PNG bytes (``review_size(scene)``, palette mode)."""
    return _encode(_compose_review(scene), scene.deck)


def _cell_xy(index: int, top: int, height: int) -> tuple[int, int]:
    return _MARGIN + (index % 2) * (_CELL_W + _GAP), top + (index // 2) * (height + _GAP)


def _compose_review(scene: DealReviewScene) -> Image.Image:
    deck, lang, names = scene.deck, scene.lang, scene.seat_names
    width, height = review_size(scene)
    canvas = Image.new("RGB", (width, height), FELT)
    ImageDraw.Draw(canvas).rectangle((0, 0, width, HEADER_H - 1), fill=FELT_DARK)
    _header(canvas, scene.trump, scene.contract_label, scene.multiplier, deck, lang)
    panel_hand = _assets.rounded_stamp(_CELL_W, _HAND_CELL_H, 12, PANEL)
    panel_trick = _assets.rounded_stamp(_CELL_W, _TRICK_CELL_H, 12, PANEL)
    ring = _assets.rounded_stamp(MINI_CARD_W + 6, MINI_CARD_H + 6, 7, GOLD)

    # The hands as dealt; a card never played is dimmed (the legend says so), the turned-up card is ringed.
    y = HEADER_H + _GAP
    _text(canvas, (_MARGIN + 4, y + _TITLE_H // 2), label("review_hands", lang), NAME, GOLD, anchor="lm")
    unplayed = [scene.never_played(seat) for seat in SEATS]
    if any(unplayed):
        legend = label("review_not_played", lang)
        right = WIDTH - _MARGIN - 4
        _text(canvas, (right, y + _TITLE_H // 2), legend, SMALL, MUTED, weight="regular", anchor="rm")
        mini = _assets.dimmed_tile(deck, "back", 16)
        legend_w = round(fonts.length(legend, SMALL, "regular"))
        _stamp(canvas, mini, (right - legend_w - 22, y + (_TITLE_H - mini.height) // 2))
    top = y + _TITLE_H + _GAP
    for seat in SEATS:
        x, cy = _cell_xy(seat, top, _HAND_CELL_H)
        _stamp(canvas, panel_hand, (x, cy))
        name = names[seat]
        colour = TEXT
        if seat == scene.declarer_seat:
            name, colour = f"{name} · {label('review_declarer', lang)}", GOLD
        elif seat == scene.sitting_out_seat:
            name, colour = f"{name}: {label('sits_out', lang)}", MUTED
        name_width = _CELL_W - 24
        if scene.aufschlag_card in scene.hands[seat]:
            note = label("review_aufschlag", lang)
            _text(canvas, (x + _CELL_W - 12, cy + 15), note, SMALL, GOLD, weight="regular", anchor="rm")
            name_width -= round(fonts.length(note, SMALL, "regular")) + 12
        _text(canvas, (x + 12, cy + 15), name, BODY, colour, anchor="lm", max_width=name_width)
        for index, card in enumerate(scene.hands[seat]):
            cx = x + 12 + index * _CARD_STRIDE
            if card == scene.aufschlag_card:
                _stamp(canvas, ring, (cx - 3, cy + 30 - 3))
            tile = _assets.dimmed_tile if card in unplayed[seat] else _assets.card_tile
            _stamp(canvas, tile(deck, card, MINI_CARD_W), (cx, cy + 30))

    # The tricks in order: the leader's card first, the winning card ringed, each player's name under theirs.
    y = top + 2 * (_HAND_CELL_H + _GAP)
    _text(canvas, (_MARGIN + 4, y + _TITLE_H // 2), label("review_tricks", lang), NAME, GOLD, anchor="lm")
    top = y + _TITLE_H + _GAP
    for number, trick in enumerate(scene.tricks, start=1):
        x, cy = _cell_xy(number - 1, top, _TRICK_CELL_H)
        _stamp(canvas, panel_trick, (x, cy))
        # Marriages said in this trick, right-aligned on the title line ("Anna 40" and the suit); the title
        # takes the rest of the line.
        mx = x + _CELL_W - 12
        for seat, suit, value, _ in (m for m in scene.marriages if m[3] == number):
            icon = _assets.suit_icon(deck, suit, 18)
            _stamp(canvas, icon, (mx - icon.width, cy + 6))
            note = f"{fonts.fit(names[seat], SMALL, 96, 'regular')} {value}"  # the name gives way, not the 40
            _text(canvas, (mx - icon.width - 4, cy + 15), note, SMALL, GOLD, weight="regular", anchor="rm")
            mx -= icon.width + 4 + round(fonts.length(note, SMALL, "regular")) + 10
        taken = label("review_deal_over", lang) if trick.winner is None else names[trick.winner]
        title = f"{label('review_trick', lang, n=number)} · {taken}"
        _text(canvas, (x + 12, cy + 15), title, BODY, TEXT, anchor="lm", max_width=mx - x - 12)
        # Each play in its own column, its player's name centred under the card.
        column = (_CELL_W - 16) // 4
        for index, (seat, card) in enumerate(trick.plays):
            centre = x + 8 + index * column + column // 2
            cx = centre - MINI_CARD_W // 2
            if seat == trick.winner:
                _stamp(canvas, ring, (cx - 3, cy + 30 - 3))
            _stamp(canvas, _assets.card_tile(deck, card, MINI_CARD_W), (cx, cy + 30))
            colour = GOLD if seat == trick.winner else MUTED
            _text(canvas, (centre, cy + 30 + MINI_CARD_H + 15), names[seat], SMALL, colour, weight="regular",
                  anchor="mm", max_width=column - 4)  # fmt: skip

    # The result in the cell after the last trick.
    x, cy = _cell_xy(len(scene.tricks), top, _TRICK_CELL_H)
    centre = x + _CELL_W // 2
    winners = label("wins", lang, team=_team_name(names, scene.winner_team, lang))
    size = _size_to_fit(winners, 22, SMALL, _CELL_W - 20)
    _text(
        canvas,
        (centre, cy + _TRICK_CELL_H // 2 - 16),
        winners,
        size,
        GOLD,
        anchor="mm",
        max_width=_CELL_W - 20,
    )
    points = count_label(scene.game_points, "game_point", "game_points", lang)
    _text(
        canvas, (centre, cy + _TRICK_CELL_H // 2 + 18), points, 20, TEXT, anchor="mm", max_width=_CELL_W - 20
    )
    return canvas


# ---------------------------------------------------------------- the alt text

ALT_LIMIT = 1000  # Discord keeps 1024 characters of an attachment's description


def deal_review_alt_text(scene: DealReviewScene) -> str:
    """Every hand, every trick with its winner, the contract and the result, in sentences, within Discord's
    limit: when that is too long, the tricks name their cards without repeating who played each (the hands say
    it), and then only who won each trick (``deal_review_lines`` has them in full for the message)."""
    text = ""
    for detail in (FULL, CARDS_ONLY, WINNERS_ONLY):
        text = " ".join([*_deal_sentences(scene), *_trick_sentences(scene, detail), *_end_sentences(scene)])
        if len(text) <= ALT_LIMIT:
            return text
    return text[: ALT_LIMIT - 1] + "…"


def deal_review_lines(scene: DealReviewScene) -> list[str]:
    """The tricks in full, a sentence each (who played what, who won it, marriages), for the message's text."""
    return _trick_sentences(scene, FULL)


FULL, CARDS_ONLY, WINNERS_ONLY = 2, 1, 0  # how much of each trick the alt text says


def _cards(scene: DealReviewScene, cards: Sequence[str]) -> str:
    return ", ".join(card_name(card, scene.deck, scene.lang) for card in cards)


def _deal_sentences(scene: DealReviewScene) -> list[str]:
    """The contract, trump, the turned-up card and the four hands."""
    deck, lang, names = scene.deck, scene.lang, scene.seat_names
    sentences = [label("alt_review_title", lang)]
    if scene.contract_label and scene.declarer_seat is not None:
        declarer = names[scene.declarer_seat]
        sentences.append(label("alt_review_declarer", lang, name=declarer, contract=scene.contract_label))
    elif scene.contract_label:
        sentences.append(label("alt_contract", lang, contract=scene.contract_label))
    if scene.multiplier > 1:
        sentences.append(label("alt_multiplier", lang, n=scene.multiplier))
    if scene.trump is None:
        sentences.append(label("alt_no_trump", lang))
    else:
        sentences.append(label("alt_trump", lang, suit=suit_name(scene.trump, deck, lang)))
    if scene.aufschlag_card is not None:
        card = card_name(scene.aufschlag_card, deck, lang)
        sentences.append(label("alt_review_aufschlag", lang, card=card))
    for seat in SEATS:
        sentences.append(
            label("alt_review_hand", lang, name=names[seat], cards=_cards(scene, scene.hands[seat]))
        )
    if scene.sitting_out_seat is not None:
        sentences.append(label("alt_sits_out", lang, name=names[scene.sitting_out_seat]))
    return sentences


def _trick_sentences(scene: DealReviewScene, detail: int) -> list[str]:
    deck, lang, names = scene.deck, scene.lang, scene.seat_names
    sentences = []
    for number, trick in enumerate(scene.tricks, start=1):
        if trick.winner is None:  # the lead that ended the deal (its marriage is said next), at every detail
            (seat, card), *_ = trick.plays
            said = card_name(card, deck, lang)
            sentences.append(label("alt_review_final_lead", lang, n=number, name=names[seat], card=said))
        elif detail == WINNERS_ONLY:
            sentences.append(label("alt_review_won", lang, n=number, name=names[trick.winner]))
        else:
            if detail == CARDS_ONLY:
                plays = _cards(scene, [card for _, card in trick.plays])
            else:
                played = [
                    label("alt_played", lang, name=names[seat], card=card_name(card, deck, lang))
                    for seat, card in trick.plays
                ]
                plays = join_names(played, lang)
            sentences.append(label("alt_review_trick", lang, n=number, plays=plays, name=names[trick.winner]))
        for seat, suit, value, trick_no in scene.marriages:
            if trick_no == number:
                suit_said = suit_name(suit, deck, lang)
                sentences.append(
                    label("alt_review_marriage", lang, name=names[seat], value=value, suit=suit_said)
                )
    return sentences


def _end_sentences(scene: DealReviewScene) -> list[str]:
    """The cards never played (the deal ended early, or a seat sat out) and who won what."""
    lang, names = scene.lang, scene.seat_names
    sentences = []
    left = [
        label("alt_review_held", lang, name=names[seat], cards=_cards(scene, scene.never_played(seat)))
        for seat in SEATS
        if scene.never_played(seat)
    ]
    if left:
        sentences.append(label("alt_review_not_played", lang, cards="; ".join(left)))
    points = count_label(scene.game_points, "game_point", "game_points", lang).lstrip("+")
    team = label("team", lang, a=names[scene.winner_team], b=names[scene.winner_team + 2])
    sentences.append(label("alt_wins", lang, team=team, points=points))
    return sentences
