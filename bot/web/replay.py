"""A stored deal as the replay page shows it, step by step (pure: the record in, plain data out).

Every step is the deal after one more action (the first: as dealt): the four hands still held, the trump, the
auction and doubling so far, the trick on the table (a trick just completed stays there with its winner, as on
the table), tricks and points per team, and at the end the result. The page's script only shows these steps;
it computes nothing. Every word is in the viewer's language, as the table messages say it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import engine
from bot.db import SeatRow, TableRow
from bot.game.table import TableSnapshot, rules_of, seats_by_number
from bot.schnapsen.texts import seat_name
from engine import DealState
from engine.contracts import TRUMP_CONTRACTS

from .words import (
    auction_lines,
    card_label,
    contract_name,
    dealt_line,
    doubling_lines,
    event_lines,
    marriage_lines,
    result_text,
    seat_label,
    side_label,
    suit_label,
    team_label,
)


@dataclass(frozen=True, slots=True)
class ReplayDeal:
    """What the replay page needs of one finished deal: the table's row and seats (names, deck, rules) and
    the deal as stored."""

    row: TableRow
    seats: tuple[SeatRow, ...]
    dealer: int
    hands: tuple[tuple[str, ...], ...]
    actions: tuple[str, ...]


def replay_data(deal: ReplayDeal, lang: str) -> dict[str, Any]:
    """The steps, the tricks with the points after each, the result and the card names (for alt texts)."""
    rules = rules_of(deal.row)
    record = engine.GameRecord(rules, deal.dealer, (engine.DealRecord(deal.hands, deal.actions),))
    match = engine.new_match(rules, deal.dealer)
    seats = seats_by_number(deal.seats)
    deck = deal.row.deck
    steps: list[dict[str, Any]] = []
    final: DealState | None = None
    for step in engine.replay_steps(record):
        final = step.state
        table = TableSnapshot(deal.row, seats, rules, match, step.state)  # the table with this deal on it
        names = [seat_name(table, seat) for seat in range(4)]
        if step.action is None:
            lines = [dealt_line(table, deal.dealer, lang)]
        else:
            lines = event_lines(table, step.events, lang)
        steps.append(_step(table, lines, names, lang))
    assert final is not None
    names = [seat_name(TableSnapshot(deal.row, seats, rules, match), seat) for seat in range(4)]
    return {
        "deck": deck,
        "names": names,
        "seats": [seat_label(lang, seat) for seat in range(4)],
        "teams": [team_label(names, team, lang) for team in (0, 1)],
        "team_sides": [side_label(lang, team) for team in (0, 1)],
        "cards": {card: card_label(card, deck, lang) for card in engine.DECK},
        "tricks": tricks_table(final),
        "steps": steps,
    }


def tricks_table(state: DealState) -> list[dict[str, Any]]:
    """Each completed trick with the card points of each team after it (marriages aside)."""
    rows: list[dict[str, Any]] = []
    totals = [0, 0]
    for number, trick in enumerate(state.tricks, start=1):
        totals[trick.winner & 1] += trick.points
        rows.append(
            {
                "number": number,
                "plays": [[seat, card] for seat, card in trick.plays],
                "winner": trick.winner,
                "points": trick.points,
                "totals": list(totals),
            }
        )
    return rows


def _step(table: TableSnapshot, lines: list[str], names: list[str], lang: str) -> dict[str, Any]:
    state = table.deal
    assert state is not None
    deck = table.deck
    contract = state.contract
    shown_trump = state.trump if contract is None or contract in TRUMP_CONTRACTS else None
    if state.trick:
        trick, winner = [[seat, card] for seat, card in state.trick], None
    elif state.tricks:  # the trick just completed lies on the table until the next lead
        last = state.tricks[-1]
        trick, winner = [[seat, card] for seat, card in last.plays], last.winner
    else:
        trick, winner = [], None
    result = state.result
    return {
        "text": " ".join(lines),
        "phase": state.phase,
        "to_act": state.to_act,
        "hands": [list(engine.display_order(hand, state.trump, contract)) for hand in state.hands],
        "trump": shown_trump,
        "trump_name": suit_label(shown_trump, deck, lang),
        "aufschlag": state.aufschlag_card,
        "auction": auction_lines(state.auction, names, lang),
        "doubling": doubling_lines(state.doubling, names, lang),
        "contract": contract_name(lang, contract),
        "declarer": state.declarer,
        "multiplier": state.multiplier,
        "sitting_out": state.sitting_out,
        "trick": trick,
        "trick_winner": winner,
        "done": len(state.tricks),
        "team_tricks": list(state.team_tricks),
        "points": [state.total(0), state.total(1)],
        "marriages": marriage_lines(state.marriages, names, deck, lang),
        "result": None if result is None else {"winner": result.winner, "text": result_text(table, lang)},
    }
