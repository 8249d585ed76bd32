"""Hand-built positions for engine tests: explicit hands plus the action strings that lead to the position.

>>> state = position(FARBRINGERL_HANDS, dealer="W", actions=FARBRINGERL_AUCTION)
>>> state.phase, state.contract.id, SEAT_NAMES[state.declarer]  # a Farbringerl is settled at once
('finished', 'farbringerl', 'E')
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping

from engine import (
    AUCTION,
    DOUBLING,
    PLAY,
    STANDARD,
    Contract,
    DealState,
    PlayCard,
    Ruleset,
    apply,
    deal_hands,
    format_action,
    legal_actions,
    new_deal,
    parse_action,
)
from engine.cards import SEAT_NAMES


def parse_hands(hands: Mapping[str, str]) -> tuple[tuple[str, ...], ...]:
    """``{"N": "HA HK CQ / DT SJ", ...}`` (first packet / second packet) to hands in seat order."""
    return tuple(tuple(hands[seat].replace("/", " ").split()) for seat in SEAT_NAMES)


# East holds all five Schellen (not trump) and bids a Farbringerl after the forehand passes.
FARBRINGERL_HANDS = {
    "N": "HA HT SK / CA SJ",
    "E": "DA DT DK / DQ DJ",
    "S": "HK HQ CT / CK CQ",
    "W": "HJ SA ST / SQ CJ",
}
FARBRINGERL_AUCTION = ["N trump H", "N pass", "E bid farbringerl", "S pass", "W pass", "N pass"]


def position(
    hands: Mapping[str, str],
    dealer: str = "W",
    actions: Iterable[str] = (),
    rules: Ruleset = STANDARD,
) -> DealState:
    """The deal after replaying ``actions`` (each checked by ``apply``)."""
    state = new_deal(rules, SEAT_NAMES.index(dealer), parse_hands(hands))
    for text in actions:
        seat, action = parse_action(text)
        state, _ = apply(state, seat, action)
    return state


def play(state: DealState, *texts: str) -> DealState:
    for text in texts:
        seat, action = parse_action(text)
        state, _ = apply(state, seat, action)
    return state


def legal_strings(state: DealState) -> set[str]:
    """Every legal action of the seat to act, in record notation."""
    assert state.to_act is not None
    return {format_action(state.to_act, action) for action in legal_actions(state)}


def legal_cards(state: DealState) -> set[str]:
    """The cards the seat to act may play (marriage announcements folded into their card)."""
    assert state.phase == PLAY
    return {action.card for action in legal_actions(state) if isinstance(action, PlayCard)}


def seat(name: str) -> int:
    return SEAT_NAMES.index(name)


def mid_trick(
    contract: Contract,
    trump: str | None,
    trick: str,
    hand: str,
    *,
    declarer: str = "N",
    rules: Ruleset = STANDARD,
) -> DealState:
    """A card-play position built directly: ``trick`` ("N:DJ E:DK") is on the table and the next seat
    (skipping a sitting-out partner) holds ``hand``. Only that seat's cards matter for its legal set."""
    declarer_seat = seat(declarer)
    sitting_out = (declarer_seat + 2) % 4 if contract in rules.partner_sits_out else None
    plays = tuple((seat(who), card) for who, card in (item.split(":") for item in trick.split()))
    to_act = (plays[-1][0] + 1) % 4 if plays else declarer_seat
    if to_act == sitting_out:
        to_act = (to_act + 1) % 4
    hands = tuple(tuple(hand.split()) if s == to_act else () for s in range(4))
    base = new_deal(rules, 3, parse_hands(_FILLER))
    return base._replace(
        hands=hands,
        phase=PLAY,
        to_act=to_act,
        trump=trump,
        contract=contract,
        declarer=declarer_seat,
        sitting_out=sitting_out,
        trick=plays,
    )


# Any valid deal; ``mid_trick`` replaces what matters.
_FILLER = {
    "N": "HA HT HK HQ HJ",
    "E": "DA DT DK DQ DJ",
    "S": "CA CT CK CQ CJ",
    "W": "SA ST SK SQ SJ",
}


def steered_choice(rng: random.Random, state: DealState, actions: tuple, target: Contract) -> object:
    """A random legal action, steered so that every contract turns up: in the auction each seat bids
    ``target`` when it may and otherwise mostly passes (uniform choice alone nearly always ends in a
    Kontrabauernschnapser); doubling is declined more often than not."""
    if state.phase == AUCTION:
        wanted = [a for a in actions if getattr(a, "contract", None) is target]
        if wanted:
            return wanted[0]
        return actions[0] if rng.random() < 0.85 else rng.choice(actions)
    if state.phase == DOUBLING and rng.random() < 0.6:
        return actions[0]
    return rng.choice(actions)


def random_deal(
    rng: random.Random, rules: Ruleset = STANDARD, dealer: int = 3, hands=None, target: Contract | None = None
) -> tuple[DealState, list[str]]:
    """Plays one deal to its end by steered random legal choices; returns the final state and the actions."""
    if hands is None:
        hands = deal_hands(rng.randrange(2**32), dealer)
    if target is None:
        target = rng.choice(list(Contract))
    state = new_deal(rules, dealer, hands)
    record: list[str] = []
    while state.to_act is not None:
        action = steered_choice(rng, state, legal_actions(state), target)
        record.append(format_action(state.to_act, action))
        state, _ = apply(state, state.to_act, action)
    return state, record
