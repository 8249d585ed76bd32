"""The action API: ``legal_actions``, ``check``, ``is_legal`` and ``apply``, dispatched on the phase."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .actions import (
    INTERNED_IDS,
    Action,
    Aufschlagen,
    Bid,
    ChooseTrump,
    Double,
    Pass,
    PlayCard,
    action_problem,
    shown,
)
from .bidding import (
    apply_auction,
    apply_doubling,
    apply_trump,
    auction_actions,
    doubling_actions,
    eligibility_problem,
    highest_bid,
    trump_actions,
)
from .cards import SEAT_NAMES
from .contracts import Contract
from .errors import IllegalAction, MalformedInput, NotYourTurn, RulesError, WrongPhase
from .events import Event
from .play import active_trump, apply_play, marriage_options, play_actions
from .state import AUCTION, DOUBLING, FINISHED, PLAY, TRUMP, DealState, Phase

_ACTIONS_OF_PHASE: dict[Phase, tuple[type, ...]] = {
    TRUMP: (ChooseTrump, Aufschlagen),
    AUCTION: (Pass, Bid),
    DOUBLING: (Pass, Double),
    PLAY: (PlayCard,),
}
_LEGAL: dict[Phase, Callable[[DealState], tuple[Action, ...]]] = {
    TRUMP: trump_actions,
    AUCTION: auction_actions,
    DOUBLING: doubling_actions,
    PLAY: play_actions,
}
# Each phase's apply takes only that phase's actions (Any here): callers check or know the action is legal.
_APPLY: dict[Phase, Callable[[DealState, int, Any], tuple[DealState, list[Event]]]] = {
    TRUMP: apply_trump,
    AUCTION: apply_auction,
    DOUBLING: apply_doubling,
    PLAY: apply_play,
}
_PHASE_WORDS = {
    TRUMP: "choosing trump",
    AUCTION: "the auction",
    DOUBLING: "Kontra and Re",
    PLAY: "card play",
    FINISHED: "the end of the deal",
}


# The last position asked about and its answer: ``apply`` checks the action a caller just picked from
# ``legal_actions`` of the same state object, so this saves computing the list twice. States are immutable,
# so an identity match is always a correct hit.
_last_answer: tuple[DealState | None, tuple[Action, ...]] = (None, ())


def legal_actions(state: DealState) -> tuple[Action, ...]:
    """Every legal action of the seat to act (``state.to_act``); empty once the deal is finished."""
    global _last_answer
    cached_state, cached = _last_answer
    if cached_state is state:
        return cached
    actions = () if state.phase == FINISHED else _LEGAL[state.phase](state)
    _last_answer = (state, actions)
    return actions


def check(state: DealState, seat: int, action: Action) -> None:
    """Raise a RulesError (with a stable code) unless ``seat`` may take ``action`` now.

    A seat that is not an int 0 to 3, or an action that is not well-formed (see ``action_problem``), is a
    MalformedInput whatever the position: ``unknown_seat``, ``bad_action``, ``unknown_contract`` or
    ``unknown_card``."""
    if state.phase == FINISHED:
        raise _malformed(seat, action) or WrongPhase("deal_finished", "This deal is already over.")
    # The hot path costs two identity tests: the seat is the very int object ``to_act`` (CPython shares the
    # ints 0 to 3) and the action one of the engine's own instances, all that ``legal_actions`` hands out,
    # so neither the seat's type nor the action's fields and kind need a look. Anything else is checked in
    # full; identity is only ever a shortcut, never what makes an action legal.
    if seat is not state.to_act:
        problem = _malformed(seat, action)
        if problem is not None:
            raise problem
        if seat != state.to_act:
            who = SEAT_NAMES[state.to_act] if state.to_act is not None else "nobody"
            raise NotYourTurn("not_your_turn", f"It is not your turn: {who} is to act.")
    elif id(action) in INTERNED_IDS:
        if action in legal_actions(state):
            return
    else:
        problem = action_problem(action)
        if problem is not None:
            raise problem
    if not isinstance(action, _ACTIONS_OF_PHASE[state.phase]):
        raise WrongPhase("wrong_phase", f"That is not possible during {_PHASE_WORDS[state.phase]}.")
    if action in legal_actions(state):
        return
    raise _explain(state, seat, action)


def _malformed(seat: object, action: object) -> MalformedInput | None:
    return _seat_problem(seat) or action_problem(action)


def _seat_problem(seat: object) -> MalformedInput | None:
    if type(seat) is int and 0 <= seat <= 3:
        return None
    return MalformedInput("unknown_seat", f"{shown(seat)} is not a seat (0 to 3 for N, E, S, W)")


def is_legal(state: DealState, seat: int, action: Action) -> bool:
    try:
        check(state, seat, action)
    except RulesError:
        return False
    return True


def apply(state: DealState, seat: int, action: Action) -> tuple[DealState, tuple[Event, ...]]:
    """Check the action, then return the new state and the events it caused."""
    check(state, seat, action)
    new_state, events = _APPLY[state.phase](state, seat, action)
    return new_state, tuple(events)


def apply_unchecked(state: DealState, seat: int, action: Action) -> tuple[DealState, list[Event]]:
    """``apply`` for an action known to be one of ``legal_actions(state)`` (search and simulations)."""
    return _APPLY[state.phase](state, seat, action)


def _explain(state: DealState, seat: int, action: Action) -> RulesError:
    """Why an action of the right kind is illegal here, as a typed error with a stable code."""
    if isinstance(action, ChooseTrump):
        return IllegalAction(
            "suit_not_held", "You can only name a suit you hold among your first three cards."
        )
    if isinstance(action, Bid):
        top = highest_bid(state)
        if action.contract is Contract.NORMAL:
            return IllegalAction("not_biddable", "The normal game cannot be bid.")
        if top and action.contract <= top[1]:
            return IllegalAction("bid_too_low", f"A bid must rank above the {top[1].id} already bid.")
        problem = eligibility_problem(state, seat, action.contract)
        return IllegalAction("not_eligible", (problem or "You may not bid that.").capitalize() + ".")
    if isinstance(action, Double):
        return IllegalAction("cannot_double", f"A {action.word} is not possible now.")
    assert isinstance(action, PlayCard)
    return _explain_card(state, seat, action)


def _explain_card(state: DealState, seat: int, action: PlayCard) -> RulesError:
    hand = state.hands[seat]
    card = action.card
    if card not in hand:
        return IllegalAction("card_not_in_hand", f"You do not hold {card}.")
    if action.marriage is not None:
        if state.trick:
            return IllegalAction("marriage_not_leading", "A marriage can only be announced when you lead.")
        options = marriage_options(state, seat)
        if card[1] not in "KQ" or (card[0], action.marriage) not in options:
            return IllegalAction(
                "marriage_not_allowed", f"You cannot announce a {action.marriage} with {card} now."
            )
    trick = state.trick
    led = trick[0][1][0]
    trump = active_trump(state)
    if card[0] != led and any(c[0] == led for c in hand):
        return IllegalAction("must_follow_suit", "You must follow suit.")
    if card[0] == led:
        return IllegalAction("must_beat", "You must beat the card that is winning the trick if you can.")
    if trump is not None and card[0] != trump and any(c[0] == trump for c in hand):
        return IllegalAction("must_trump", "You have no card of the led suit, so you must play a trump.")
    return IllegalAction(
        "must_overtrump", "You must play a trump higher than the trump already in the trick."
    )
