"""Property tests: random seeds, dealers, rule variants and steered random legal play reaching every contract.

At every decision: a legal action exists until the deal is over, ``is_legal`` agrees with ``legal_actions``
for every action of the phase's kinds, the notation round-trips, and no seat's view holds another seat's
hidden card. At the end: 120 card points, the record replays to an equal state, and an independent
referee (RULES.md 6.1, written separately from the engine) awards the same result.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    AUCTION,
    DECK,
    DOUBLING,
    PLAY,
    STANDARD,
    STARGAMES,
    TRUMP,
    Aufschlagen,
    Bid,
    ChooseTrump,
    Contract,
    DealState,
    Double,
    Pass,
    PlayCard,
    apply,
    deal_hands,
    format_action,
    is_legal,
    legal_actions,
    new_deal,
    parse_action,
    view_for,
)
from engine.bidding import eligibility_problem
from engine.cards import CARD_POINTS
from tests.engine.engine_builder import steered_choice

C = Contract
VARIANTS = [
    STANDARD,
    STARGAMES,
    dataclasses.replace(STANDARD, bidding_turns=1, schnapser_marriages="additive"),
    dataclasses.replace(
        STANDARD, schnapser_marriages="none", undertrump_required=False, show_all_tricks=True
    ),
    dataclasses.replace(
        STANDARD,
        partner_sits_out=frozenset({C.BETTLER, C.ASS_BETTLER, C.GANG, C.ZEHNERLOCH}),
        schnapser_leader="declarer",
        sitting_out_partner_may_double=False,
    ),
    dataclasses.replace(STANDARD, stichzwang_contracts=frozenset({C.SCHNAPSER, C.GANG}), max_multiplier=8),
]

CANDIDATES: dict[str, list[Any]] = {
    TRUMP: [ChooseTrump(s) for s in "HDCS"] + [Aufschlagen()],
    AUCTION: [Pass()] + [Bid(c) for c in Contract],
    DOUBLING: [Pass()] + [Double(w) for w in ("kontra", "re", "subkontra")],
    PLAY: [PlayCard(c) for c in DECK] + [PlayCard(c, v) for c in DECK if c[1] in "KQ" for v in (20, 40)],
}


def stacked_hands(rng: random.Random, dealer: int) -> tuple[tuple[str, ...], ...]:
    """A deal where one seat holds a whole suit, so Farbringerl and Trumpffarbringerl come up too."""
    suit = rng.choice("HDCS")
    full = [suit + r for r in "ATKQJ"]
    rest = [c for c in DECK if c[0] != suit]
    rng.shuffle(full)
    rng.shuffle(rest)
    lucky = rng.choice([(dealer + 1) % 4, rng.randrange(4)])
    hands = []
    for s in range(4):
        hands.append(tuple(full) if s == lucky else tuple(rest.pop() for _ in range(5)))
    return tuple(hands)


def hidden_cards(state: DealState, viewer: int) -> set[str]:
    """Cards the viewer must not see: other seats' held cards (but the public Aufschlag card) and, before
    trump, every second packet."""
    hidden = {c for s in range(4) if s != viewer for c in state.hands[s]} - {state.aufschlag_card}
    if state.phase == TRUMP:
        hidden |= {c for s in range(4) for c in state.dealt[s][3:]}
    return hidden


def strings_in(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, (tuple, list)):
        return set().union(*(strings_in(v) for v in value)) if value else set()
    if dataclasses.is_dataclass(value):
        return strings_in([getattr(value, f.name) for f in dataclasses.fields(value)])
    if hasattr(value, "_fields"):  # NamedTuple
        return strings_in(list(value))
    return set()


def check_views(state: DealState) -> None:
    for viewer in (0, 1, 2, 3, None):
        view = view_for(state, viewer)
        seen = strings_in(view) & set(DECK)
        leaked = seen & (hidden_cards(state, viewer) if viewer is not None else hidden_cards(state, -1))
        assert not leaked, f"seat {viewer} sees {leaked}"


# --- an independent referee for RULES.md 6.1 ----------------------------------------------------------------


# RULES.md D1, typed out again on purpose (the engine's table is what is being checked).
CONTRACT_VALUES = {
    C.NORMAL: 0,
    C.ASS_BETTLER: 5,
    C.SCHNAPSER: 6,
    C.GANG: 9,
    C.ZEHNERLOCH: 10,
    C.BAUERNSCHNAPSER: 12,
    C.KONTRASCHNAPSER: 12,
    C.FARBRINGERL: 18,
    C.KONTRABAUERNSCHNAPSER: 24,
    C.TRUMPFFARBRINGERL: 24,
}


def referee(state: DealState) -> tuple[int, int, int]:
    """(winning team, base, trick count at which the hand ended), recomputed from the tricks alone."""
    contract, d = state.contract, state.declarer
    side, rules = d % 2, state.rules
    value = {**CONTRACT_VALUES, C.BETTLER: rules.bettler_value}[contract]
    if contract in (C.FARBRINGERL, C.TRUMPFFARBRINGERL):
        return side, value, 0
    cards, won, married = [0, 0], [0, 0], [0, 0]

    def total(team: int) -> int:
        return cards[team] + (married[team] if won[team] else 0)

    def normal_win(team: int, n: int) -> tuple[int, int, int]:
        loser = 1 - team
        return team, 3 if not won[loser] else 2 if total(loser) < 33 else 1, n

    for n in range(1, 6):
        for m in (m for m in state.marriages if m.trick_no == n):
            married[m.seat % 2] += m.value
            if contract is C.NORMAL and won[m.seat % 2] and total(m.seat % 2) >= 66:
                return normal_win(m.seat % 2, n - 1)
            if contract in (C.SCHNAPSER, C.KONTRASCHNAPSER):
                if rules.schnapser_marriages == "claim":
                    return (side if cards[side] + m.value >= 66 else 1 - side), value, n - 1
                if total(side) >= 66:
                    return side, value, n - 1
        trick = state.tricks[n - 1]
        w = trick.winner
        cards[w % 2] += sum(CARD_POINTS[c] for c in trick.cards)
        won[w % 2] += 1
        if contract is C.NORMAL:
            if total(w % 2) >= 66:
                return normal_win(w % 2, n)
            if n == 5:
                return w % 2, 1, n
        elif contract in (C.BETTLER, C.ASS_BETTLER):
            if w == d:
                return 1 - side, value, n
            if n == 5:
                return side, value, n
        elif w != d:
            return 1 - side, value, n
        elif contract in (C.SCHNAPSER, C.KONTRASCHNAPSER):
            if total(side) >= 66:
                return side, value, n
            if n == 3:
                return 1 - side, value, n
        elif n == 5:
            return side, value, n
    raise AssertionError("the referee found no end of the hand")


def expected_trick_winner(state: DealState, plays: tuple[tuple[int, str], ...]) -> int:
    trumps = state.contract in (
        C.NORMAL,
        C.SCHNAPSER,
        C.BAUERNSCHNAPSER,
        C.KONTRASCHNAPSER,
        C.KONTRABAUERNSCHNAPSER,
    )
    order = "JQKTA" if state.contract is not C.ZEHNERLOCH else "AJQKT"
    best_seat, best = plays[0]
    for who, card in plays[1:]:
        if card[0] == best[0]:
            if order.index(card[1]) > order.index(best[1]):
                best_seat, best = who, card
        elif trumps and card[0] == state.trump:
            best_seat, best = who, card
    return best_seat


# --- the property --------------------------------------------------------------------------------------------


def play_checked_deal(seed: int, dealer: int, rules_index: int, stacked: bool, target: Contract) -> DealState:
    rng = random.Random(seed)
    rules = VARIANTS[rules_index]
    hands = stacked_hands(rng, dealer) if stacked else deal_hands(seed, dealer)
    state = new_deal(rules, dealer, hands)
    texts: list[str] = []
    while not state.finished:
        legal = legal_actions(state)
        assert legal, "a legal action must exist until the deal is over"
        seat = state.to_act
        for candidate in CANDIDATES[state.phase]:
            assert is_legal(state, seat, candidate) == (candidate in legal), candidate
        for other in range(4):
            if other != seat:
                assert not is_legal(state, other, legal[0])
        for action in legal:
            assert parse_action(format_action(seat, action)) == (seat, action)
        check_views(state)
        if state.phase == AUCTION:
            for who in range(4):
                for contract in Contract:
                    fast = contract in state.eligible[who]
                    assert fast == (eligibility_problem(state, who, contract) is None), (who, contract)
        action = steered_choice(rng, state, legal, target)
        texts.append(format_action(seat, action))
        before = state
        state, events = apply(state, seat, action)
        assert events
        if len(state.tricks) > len(before.tricks):
            trick = state.tricks[-1]
            assert trick.winner == expected_trick_winner(state, trick.plays)
    check_views(state)
    assert legal_actions(state) == ()

    played = sum(t.points for t in state.tricks)
    unplayed = sum(CARD_POINTS[c] for hand in state.hands for c in hand)
    assert played + unplayed == 120

    rebuilt = new_deal(rules, dealer, hands)
    for text in texts:
        rebuilt, _ = apply(rebuilt, *parse_action(text))
    assert rebuilt == state

    winner, base, tricks_played = referee(state)
    result = state.result
    assert (result.winner, result.base) == (winner, base), result
    assert result.game_points == base * state.multiplier
    assert result.made == (winner == state.declarer % 2)
    assert len(state.tricks) == tricks_played
    last = parse_action(texts[-1])  # the lead that ended the deal, if an announcement did: its card and all
    if isinstance(last[1], PlayCard) and last[1].marriage:
        assert state.final_lead is not None and (state.final_lead.seat, state.final_lead.card) == (last[0], last[1].card)
    else:
        assert state.final_lead is None
    return state


@settings(max_examples=160, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    dealer=st.integers(0, 3),
    rules_index=st.integers(0, len(VARIANTS) - 1),
    stacked=st.booleans(),
    target=st.sampled_from(list(Contract)),
)
def test_random_legal_play_keeps_every_invariant(
    seed: int, dealer: int, rules_index: int, stacked: bool, target: Contract
) -> None:
    play_checked_deal(seed, dealer, rules_index, stacked, target)


def test_steered_random_play_reaches_every_contract() -> None:
    """The same checks over a fixed spread of seeds, asserting that every contract actually occurred."""
    seen: Counter[Contract] = Counter()
    contracts = list(Contract)
    for i in range(160):
        state = play_checked_deal(i, i % 4, i % len(VARIANTS), i % 3 == 0, contracts[i % len(contracts)])
        seen[state.contract] += 1
    assert set(seen) == set(Contract), seen
