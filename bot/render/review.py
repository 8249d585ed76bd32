"""The deal review ("Show the deal"): the four hands as dealt and every trick in order with its winner, as
one PNG, and the alt text that says all of it. Plain values in, like the other images."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

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
    RGB,
    SMALL,
    TEXT,
    WIDTH,
    _encode,
    _fit_lines,
    _fit_name,
    _header,
    _lines,
    _stamp,
    _team_name,
    _text,
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
# One column per seat (N E S W), as a bridge hand record has it: each name once at the top, the hand as dealt
# under it (the cards stacked so that each shows its corner), then the tricks as rows, each card in its
# player's column. A name gets a whole column's width (two lines if need be) instead of a cut.

_MARGIN = 8
_NUMBER_W = 26  # the trick numbers' column on the left
_COLUMN_W = (WIDTH - 2 * _MARGIN - _NUMBER_W) // 4
_COLUMNS_X = _MARGIN + _NUMBER_W  # the first seat column's left edge
_STACK_STEP = 28  # how much of each card of a hand shows above the next: its corner
_STACK_H = MINI_CARD_H + 4 * _STACK_STEP
_ROW_H = MINI_CARD_H + 14  # a trick's row
_TITLE_H = 32
_SWATCH_W = 20  # the cards in the legends


def _column_centre(seat: int) -> int:
    return _COLUMNS_X + seat * _COLUMN_W + _COLUMN_W // 2


NameBlock = tuple[str, tuple[str, ...], str | None, RGB]  # weight, lines, role, the role's colour


def _name_blocks(scene: DealReviewScene, roles: bool = True) -> tuple[list[NameBlock], int]:
    """Each seat's name (weight and lines) and, with roles, its role (declarer, sits out), and the height
    they all take."""
    blocks = []
    for seat in SEATS:
        weight, lines = _fit_name(scene.seat_names[seat], SMALL, _COLUMN_W - 6, 3)
        role, colour = None, MUTED
        if roles and seat == scene.declarer_seat:
            role, colour = label("review_declarer", scene.lang), GOLD
        elif roles and seat == scene.sitting_out_seat:
            role = label("sits_out", scene.lang)
        blocks.append((weight, lines, role, colour))
    height = max(len(lines) + (role is not None) for _, lines, role, _ in blocks) * line_height(SMALL)
    return blocks, height


def _legend_items(scene: DealReviewScene) -> list[tuple[Image.Image, str]]:
    """The hands' legend: a never-played card dimmed, the turned-up card ringed, as they are drawn."""
    deck, items = scene.deck, []
    unplayed = [card for seat in SEATS for card in scene.never_played(seat)]
    if unplayed:
        items.append((_assets.dimmed_tile(deck, unplayed[0], _SWATCH_W), label("review_not_played", scene.lang)))
    if scene.aufschlag_card is not None:
        items.append((_ringed(deck, scene.aufschlag_card, _SWATCH_W), label("review_aufschlag", scene.lang)))
    return items


def _trick_legend_items(scene: DealReviewScene) -> list[tuple[Image.Image, str]]:
    """The tricks' legend: the lead's mark, and a card that took a trick, ringed as it is drawn."""
    winners = [dict(trick.plays)[trick.winner] for trick in scene.tricks if trick.winner is not None]
    if not winners:
        return [(_lead_mark(), label("review_led", scene.lang))]
    won = winners[0]
    return [(_lead_mark(), label("review_led", scene.lang)),
            (_ringed(scene.deck, won, _SWATCH_W), label("review_won", scene.lang))]  # fmt: skip


LegendRow = list[tuple[Image.Image, str, int]]  # swatch, words, width
_LEGEND_STEP = _SWATCH_W * 3 // 2 + 6


def _section_head(title: str, items: Sequence[tuple[Image.Image, str]]) -> tuple[list[LegendRow], int]:
    """A section's legend rows and the height of its head: the legend on the title's line where it fits
    there, else in rows under it."""
    rows = _legend_rows(items)
    beside = WIDTH - 2 * _MARGIN - 8 - round(fonts.length(title, NAME)) - 24
    if len(rows) <= 1 and sum(width + 18 for *_, width in (rows[0] if rows else [])) <= beside:
        return rows, _TITLE_H
    return rows, _TITLE_H + len(rows) * _LEGEND_STEP


def _draw_section_head(canvas: Image.Image, title: str, items: Sequence[tuple[Image.Image, str]], y: int) -> int:
    """The section's title and legend from y down; returns their height."""
    _text(canvas, (_MARGIN + 4, y + _TITLE_H // 2), title, NAME, GOLD, anchor="lm", max_width=WIDTH - 2 * _MARGIN)
    rows, height = _section_head(title, items)
    if height == _TITLE_H and rows:  # beside the title, flush right
        x = WIDTH - _MARGIN - 4 - sum(width for *_, width in rows[0]) - 18 * (len(rows[0]) - 1)
        _legend(canvas, rows, y + (_TITLE_H - _LEGEND_STEP) // 2, x)
    elif rows:
        _legend(canvas, rows, y + _TITLE_H, _MARGIN + 4)
    return height


def _legend_rows(items: Sequence[tuple[Image.Image, str]]) -> list[LegendRow]:
    """The legend's items in rows across the image, each with its width."""
    rows: list[LegendRow] = [[]]
    used = 0
    for swatch, words in items:
        width = swatch.width + 6 + round(fonts.length(words, SMALL, "regular"))
        if rows[-1] and used + 18 + width > WIDTH - 2 * _MARGIN - 8:
            rows.append([])
            used = 0
        rows[-1].append((swatch, words, width))
        used += width + (18 if used else 0)
    return [row for row in rows if row]


def _legend(canvas: Image.Image, rows: list[LegendRow], top: int, left: int) -> None:
    for index, row in enumerate(rows):
        x, middle = left, top + index * _LEGEND_STEP + _LEGEND_STEP // 2
        for swatch, words, width in row:
            _stamp(canvas, swatch, (x, middle - swatch.height // 2))
            _text(canvas, (x + swatch.width + 6, middle), words, SMALL, MUTED, weight="regular", anchor="lm")
            x += width + 18


@lru_cache(maxsize=128)
def _ringed(deck: str, card: str, width: int) -> Image.Image:
    """A card with the gold ring the review puts around the turned-up card and a trick's winner (read-only:
    paste it, never draw on it)."""
    tile = _assets.card_tile(deck, card, width)
    ring = _assets.rounded_stamp(tile.width + 6, tile.height + 6, 5, GOLD)
    stamp = ring.copy()
    stamp.paste(tile, (3, 3), tile)
    return stamp


def _lead_mark() -> Image.Image:
    """The gold triangle beside the card that led a trick."""
    return _assets.triangle(12, 16, GOLD)


def _result_lines(scene: DealReviewScene) -> tuple[int, tuple[str, ...]]:
    winners = label("wins", scene.lang, team=_team_name(scene.seat_names, scene.winner_team, scene.lang))
    return _fit_lines(winners, 22, SMALL, WIDTH - 2 * _MARGIN - 16)


def review_size(scene: DealReviewScene) -> tuple[int, int]:
    """Width and height of the review image: the names over the hands, then the tricks row by row and the
    result."""
    _, names_h = _name_blocks(scene)
    _, plain_names_h = _name_blocks(scene, roles=False)
    _, hands_head = _section_head(label("review_hands", scene.lang), _legend_items(scene))
    _, tricks_head = _section_head(label("review_tricks", scene.lang), _trick_legend_items(scene))
    size, lines = _result_lines(scene)
    height = (
        HEADER_H + 6 + hands_head + 6 + names_h + 8 + _STACK_H + 12
        + tricks_head + 6 + plain_names_h + 6 + len(scene.tricks) * (_ROW_H + 6)
        + 10 + line_height(size) * len(lines) + line_height(20) + 14
    )  # fmt: skip
    return WIDTH, height


def render_deal_review(scene: DealReviewScene) -> bytes:
    """The deal review as PNG bytes (``review_size(scene)``, palette mode)."""
    return _encode(_compose_review(scene), scene.deck)


def _names(canvas: Image.Image, blocks: list[NameBlock], top: int) -> None:
    for seat, (weight, lines, role, colour) in enumerate(blocks):
        centre = _column_centre(seat)
        height = _lines(canvas, centre, top, lines, SMALL, TEXT, weight, align="m")
        if role is not None:
            _lines(canvas, centre, top + height, [fonts.fit(role, SMALL, _COLUMN_W - 4, "regular")], SMALL,
                   colour, "regular", align="m")  # fmt: skip


def _compose_review(scene: DealReviewScene) -> Image.Image:
    deck, lang = scene.deck, scene.lang
    width, height = review_size(scene)
    canvas = Image.new("RGB", (width, height), FELT)
    ImageDraw.Draw(canvas).rectangle((0, 0, width, HEADER_H - 1), fill=FELT_DARK)
    _header(canvas, scene.trump, scene.contract_label, scene.multiplier, deck, lang)
    blocks, names_h = _name_blocks(scene)

    # The hands as dealt, each in its seat's column; a card never played is dimmed, the turned-up card ringed.
    y = HEADER_H + 6
    y += _draw_section_head(canvas, label("review_hands", lang), _legend_items(scene), y) + 6
    column_panel = _assets.rounded_stamp(_COLUMN_W - 6, names_h + 8 + _STACK_H + 8, 10, PANEL)
    for seat in SEATS:
        _stamp(canvas, column_panel, (_COLUMNS_X + seat * _COLUMN_W + 3, y - 4))
    _names(canvas, blocks, y)
    y += names_h + 8
    for seat in SEATS:
        unplayed = scene.never_played(seat)
        left = _column_centre(seat) - MINI_CARD_W // 2
        for index, card in enumerate(scene.hands[seat]):
            if card == scene.aufschlag_card:
                tile = _ringed(deck, card, MINI_CARD_W)
                _stamp(canvas, tile, (left - 3, y + index * _STACK_STEP - 3))
                continue
            tile = (_assets.dimmed_tile if card in unplayed else _assets.card_tile)(deck, card, MINI_CARD_W)
            _stamp(canvas, tile, (left, y + index * _STACK_STEP))
    y += _STACK_H + 12

    # The tricks in order, a row each: every card in its player's column, the lead marked, the winner ringed.
    y += _draw_section_head(canvas, label("review_tricks", lang), _trick_legend_items(scene), y) + 6
    plain, plain_h = _name_blocks(scene, roles=False)
    _names(canvas, plain, y)
    y += plain_h + 6
    row_panel = _assets.rounded_stamp(WIDTH - 2 * _MARGIN, _ROW_H, 10, PANEL)
    mark = _lead_mark()
    for number, trick in enumerate(scene.tricks, start=1):
        _stamp(canvas, row_panel, (_MARGIN, y))
        middle = y + _ROW_H // 2
        _text(canvas, (_MARGIN + _NUMBER_W // 2 + 2, middle), str(number), BODY, MUTED, anchor="mm")
        card_y = y + (_ROW_H - MINI_CARD_H) // 2
        for index, (seat, card) in enumerate(trick.plays):
            left = _column_centre(seat) - MINI_CARD_W // 2
            if seat == trick.winner:
                _stamp(canvas, _ringed(deck, card, MINI_CARD_W), (left - 3, card_y - 3))
            else:
                _stamp(canvas, _assets.card_tile(deck, card, MINI_CARD_W), (left, card_y))
            if index == 0:
                _stamp(canvas, mark, (left - mark.width - 5, middle - mark.height // 2))
        # A marriage said in this trick: its 20 or 40 and suit beside the card that announced it.
        for seat, suit, value, _ in (m for m in scene.marriages if m[3] == number):
            x = _column_centre(seat) + MINI_CARD_W // 2 + 4
            _text(canvas, (x, card_y + 10), str(value), SMALL, GOLD, anchor="lm")
            _stamp(canvas, _assets.suit_icon(deck, suit, 16), (x + 1, card_y + 22))
        if trick.winner is None:  # a lead that ended the deal: said across the columns nobody played in
            seat = trick.plays[0][0]
            span = range(seat + 1, 4) if seat < 3 else range(0, seat)
            centre = (_column_centre(span[0]) + _column_centre(span[-1])) // 2
            room = (len(span)) * _COLUMN_W - 12
            _text(canvas, (centre, middle), label("review_deal_over", lang), BODY, MUTED, weight="regular",
                  anchor="mm", max_width=room)  # fmt: skip
        y += _ROW_H + 6

    # The result under the tricks.
    y += 10
    size, lines = _result_lines(scene)
    y += _lines(canvas, WIDTH // 2, y, lines, size, GOLD, align="m")
    points = count_label(scene.game_points, "game_point", "game_points", lang)
    _lines(canvas, WIDTH // 2, y, [points], 20, TEXT, align="m")
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
