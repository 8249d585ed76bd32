"""The action API: ``legal_actions``, ``check``, ``is_legal`` and ``apply``, dispatched on the phase."""

from __future__ import annotations

from .actions import Action, Aufschlagen, Bid, ChooseTrump, Double, Pass, PlayCard
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
from .cards import SEAT_NAMES, SUITS
from .contracts import Contract
from .errors import IllegalAction, MalformedInput, NotYourTurn, RulesError, WrongPhase
from .events import Event
from .play import active_trump, apply_play, marriage_options, play_actions
from .state import AUCTION, DOUBLING, FINISHED, PLAY, TRUMP, DealState

_ACTIONS_OF_PHASE: dict[str, tuple[type, ...]] = {
    TRUMP: (ChooseTrump, Aufschlagen),
    AUCTION: (Pass, Bid),
    DOUBLING: (Pass, Double),
    PLAY: (PlayCard,),
}
_LEGAL = {TRUMP: trump_actions, AUCTION: auction_actions, DOUBLING: doubling_actions, PLAY: play_actions}
_APPLY = {TRUMP: apply_trump, AUCTION: apply_auction, DOUBLING: apply_doubling, PLAY: apply_play}
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
    """Raise a RulesError (with a stable code) unless ``seat`` may take ``action`` now."""
    if state.phase == FINISHED:
        raise WrongPhase("deal_finished", "This deal is already over.")
    if seat != state.to_act:
        who = SEAT_NAMES[state.to_act] if state.to_act is not None else "nobody"
        raise NotYourTurn("not_your_turn", f"It is not your turn: {who} is to act.")
    kinds = _ACTIONS_OF_PHASE[state.phase]
    if not isinstance(action, kinds):
        if not isinstance(action, (ChooseTrump, Aufschlagen, Pass, Bid, Double, PlayCard)):
            raise MalformedInput("bad_action", f"{action!r} is not an action")
        raise WrongPhase("wrong_phase", f"That is not possible during {_PHASE_WORDS[state.phase]}.")
    if action in legal_actions(state):
        return
    raise _explain(state, seat, action)


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
        if action.suit not in SUITS:
            return MalformedInput("bad_action", f"{action.suit!r} is not a suit")
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
