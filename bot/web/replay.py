"""A stored deal as the replay page shows it, step by step (pure: the record in, plain data out).

Every step is the deal after one more action (the first: as dealt): the four hands still held, the trump, the
auction and doubling so far, the trick on the table (a trick just completed stays there with its winner, as on
the table), tricks and points per team, and at the end the result. The page's script only shows these steps;
it computes nothing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import engine
from engine import DealState, Ruleset
from engine.contracts import TRUMP_CONTRACTS

from .words import SEATS, TEAMS, card_label, contract_name, event_lines, suit_label, team_label


@dataclass(frozen=True, slots=True)
class ReplayDeal:
    """What the replay page needs of one finished deal."""

    rules: Ruleset
    dealer: int
    hands: tuple[tuple[str, ...], ...]
    actions: tuple[str, ...]
    names: tuple[str, str, str, str]
    deck: str


def replay_data(deal: ReplayDeal) -> dict[str, Any]:
    """The steps, the tricks with the points after each, the result and the card names (for alt texts)."""
    record = engine.GameRecord(deal.rules, deal.dealer, (engine.DealRecord(deal.hands, deal.actions),))
    steps: list[dict[str, Any]] = []
    final: DealState | None = None
    for step in engine.replay_steps(record):
        final = step.state
        lines = event_lines(step.events, deal.names, deal.deck) if step.action is not None else ["The cards are dealt."]
        steps.append(_step(step.state, lines, deal.names, deal.deck))
    assert final is not None
    cards = {card: card_label(card, deal.deck) for card in engine.DECK}
    return {
        "deck": deal.deck,
        "names": list(deal.names),
        "seats": list(SEATS),
        "teams": [team_label(deal.names, team) for team in (0, 1)],
        "team_sides": list(TEAMS),
        "cards": cards,
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


def _step(state: DealState, lines: Sequence[str], names: Sequence[str], deck: str) -> dict[str, Any]:
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
        "trump_name": suit_label(shown_trump, deck),
        "aufschlag": state.aufschlag_card,
        "auction": [
            f"{names[seat]}: {'pass' if bid is None else contract_name(bid)}" for seat, bid in state.auction
        ],
        "doubling": [f"{names[seat]}: {word}" for seat, word in state.doubling],
        "contract": contract_name(contract),
        "declarer": state.declarer,
        "multiplier": state.multiplier,
        "sitting_out": state.sitting_out,
        "trick": trick,
        "trick_winner": winner,
        "done": len(state.tricks),
        "team_tricks": list(state.team_tricks),
        "points": [state.total(0), state.total(1)],
        "marriages": [
            f"{names[m.seat]}: {m.value} in {suit_label(m.suit, deck)}" for m in state.marriages
        ],
        "result": None
        if result is None
        else {
            "winner": result.winner,
            "game_points": result.game_points,
            "multiplier": result.multiplier,
            "made": result.made,
            "reason": result.reason,
        },
    }

