"""The pages' words (English): seats, teams, cards, contracts and what each action did, from the names the
images and the table messages use (``bot.render.names``, the catalogue's contract names)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import t
from bot.render.names import card_name, suit_name
from engine import Contract
from engine import events as ev
from engine.events import Event

LANG = "en"
SEATS = ("North", "East", "South", "West")
TEAMS = ("North–South", "East–West")


def contract_name(contract: Contract | str | None) -> str | None:
    if contract is None:
        return None
    return t(LANG, f"contract.{contract if isinstance(contract, str) else contract.id}")


def seat_label(names: Sequence[str], seat: int) -> str:
    return f"{names[seat]} ({SEATS[seat]})"


def team_label(names: Sequence[str], team: int) -> str:
    return f"{names[team]} & {names[team + 2]}"


def card_label(card: str, deck: str) -> str:
    return card_name(card, deck, LANG)


def suit_label(suit: str | None, deck: str) -> str | None:
    return None if suit is None else suit_name(suit, deck, LANG)


def event_lines(events: Sequence[Event], names: Sequence[str], deck: str) -> list[str]:
    """What an action did, one sentence per public fact, in the order it happened."""
    lines: list[str] = []
    for event in events:
        match event:
            case ev.TrumpChosen(seat, suit, None):
                lines.append(f"{names[seat]} names {suit_name(suit, deck, LANG)} trump.")
            case ev.TrumpChosen(seat, suit, str() as card):
                lines.append(f"{names[seat]} turns up {card_label(card, deck)}: {suit_name(suit, deck, LANG)} is trump.")
            case ev.BidMade(seat, contract):
                lines.append(f"{names[seat]} bids {contract_name(contract)}.")
            case ev.Passed(seat, "auction"):
                lines.append(f"{names[seat]} passes.")
            case ev.Passed(seat, _):
                lines.append(f"{names[seat]} does not double.")
            case ev.AuctionWon(seat, contract):
                lines.append(f"{names[seat]} plays {contract_name(contract)}.")
            case ev.Doubled(seat, word, multiplier):
                lines.append(f"{names[seat]} says {word.capitalize()} (×{multiplier}).")
            case ev.CardPlayed(seat, card):
                lines.append(f"{names[seat]} plays {card_label(card, deck)}.")
            case ev.MarriageAnnounced(seat, suit, value, _):
                lines.append(f"{names[seat]} announces {value} in {suit_name(suit, deck, LANG)}.")
            case ev.TrickWon(seat, _, points, trick_no):
                lines.append(f"{names[seat]} wins trick {trick_no} ({points} points).")
            case ev.DealScored(winner, _, _, game_points, _):
                lines.append(f"{team_label(names, winner)} score {game_points} game point{'s' if game_points != 1 else ''}.")
            case _:
                pass
    return lines
