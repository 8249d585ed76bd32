"""Trump choice, the auction and Kontra/Re/Subkontra (RULES.md D6, D7, D12)."""

from __future__ import annotations

from .actions import (
    AUFSCHLAGEN,
    BID,
    CHOOSE_TRUMP,
    DOUBLE,
    PASS,
    Action,
    Aufschlagen,
    Bid,
    ChooseTrump,
    Double,
)
from .cards import SUITS, partner_of, team_of
from .contracts import (
    IMMEDIATE_CONTRACTS,
    NO_TRUMP_CONTRACTS,
    Contract,
)
from .events import (
    AuctionWon,
    BidMade,
    ContractMade,
    DealScored,
    Doubled,
    Event,
    Passed,
    PlayStarted,
    TrumpChosen,
)
from .ruleset import Ruleset
from .state import AUCTION, DOUBLING, FINISHED, PLAY, DealResult, DealState

C = Contract


# --- trump -------------------------------------------------------------------------------------------


def trump_actions(state: DealState) -> tuple[Action, ...]:
    first_packet = state.dealt[state.forehand][:3]
    held = [CHOOSE_TRUMP[suit] for suit in SUITS if any(card[0] == suit for card in first_packet)]
    return (*held, AUFSCHLAGEN)


def apply_trump(
    state: DealState, seat: int, action: ChooseTrump | Aufschlagen
) -> tuple[DealState, list[Event]]:
    if isinstance(action, Aufschlagen):
        card: str | None = state.dealt[seat][3]
        suit = card[0]  # type: ignore[index]
    else:
        card, suit = None, action.suit
    forehand = state.forehand
    rules = state.rules
    eligible = tuple(eligible_contracts(rules, suit, forehand, s, state.dealt[s]) for s in range(4))
    new = state._replace(trump=suit, aufschlag_card=card, phase=AUCTION, to_act=forehand, eligible=eligible)
    return new, [TrumpChosen(seat, suit, card)]


# --- auction -----------------------------------------------------------------------------------------


def highest_bid(state: DealState) -> tuple[int, Contract] | None:
    for seat, contract in reversed(state.auction):
        if contract is not None:
            return seat, contract  # bids strictly rise, so the last one is the highest
    return None


def eligibility_problem(state: DealState, seat: int, contract: Contract) -> str | None:
    """Why ``seat`` may not bid ``contract`` with its hand (None when it may). Rank is checked elsewhere."""
    hand = state.dealt[seat]
    forehand = state.forehand
    if contract is C.NORMAL:
        return "the normal game is not bid: it is what four passes give"
    if contract is C.ASS_BETTLER:
        if not state.rules.ass_bettler:
            return "these rules have no Ass-Bettler"
        if not any(card[1] == "A" for card in hand):
            return "an Ass-Bettler needs at least one ace in hand"
    elif contract in (C.SCHNAPSER, C.BAUERNSCHNAPSER):
        if team_of(seat) != team_of(forehand):
            return f"only the forehand or his partner may bid a {contract.id}"
    elif contract in (C.KONTRASCHNAPSER, C.KONTRABAUERNSCHNAPSER):
        if team_of(seat) == team_of(forehand):
            return f"only an opponent of the forehand may bid a {contract.id}"
    elif contract is C.FARBRINGERL:
        if not any(suit != state.trump and sum(c[0] == suit for c in hand) == 5 for suit in SUITS):
            return "a Farbringerl needs all five cards of a suit that is not trump"
    elif contract is C.TRUMPFFARBRINGERL and (
        seat != forehand or sum(card[0] == state.trump for card in hand) != 5
    ):
        return "a Trumpffarbringerl needs the forehand to hold all five trumps"
    return None


# The contracts every seat may bid whatever its cards, by side: the forehand's team, or his opponents.
_BY_SIDE = (
    (C.BETTLER, C.SCHNAPSER, C.GANG, C.ZEHNERLOCH, C.BAUERNSCHNAPSER),
    (C.BETTLER, C.GANG, C.ZEHNERLOCH, C.KONTRASCHNAPSER, C.KONTRABAUERNSCHNAPSER),
)


def eligible_contracts(
    rules: Ruleset, trump: str, forehand: int, seat: int, hand: tuple[str, ...]
) -> tuple[Contract, ...]:
    """The contracts ``seat`` may bid with ``hand`` once ``trump`` is known, in ladder order.

    The same rules as ``eligibility_problem`` (a property test holds them equal), computed in one pass
    because every deal needs it for all four seats.
    """
    contracts = list(_BY_SIDE[(seat - forehand) & 1])
    if rules.ass_bettler and any(card[1] == "A" for card in hand):
        contracts.append(C.ASS_BETTLER)
    suits = {card[0] for card in hand}
    if len(suits) == 1:
        if trump in suits:
            if seat == forehand:
                contracts.append(C.TRUMPFFARBRINGERL)
        else:
            contracts.append(C.FARBRINGERL)
    return tuple(sorted(contracts))


def auction_actions(state: DealState) -> tuple[Action, ...]:
    top = highest_bid(state)
    floor = top[1] if top else C.NORMAL
    return (PASS, *[BID[c] for c in state.eligible[state.to_act] if c > floor])  # type: ignore[index]


def _auction_over(rules: Ruleset, auction: tuple[tuple[int, Contract | None], ...]) -> bool:
    """The three ends of D7 (four passes, three passes after the last bid, the eighth turn)."""
    turns = len(auction)
    if turns < 4:
        return False
    if turns == 8 or rules.bidding_turns == 1:
        return True
    # Four or more turns: over when the last three are passes (a bid among them keeps it open).
    return auction[-1][1] is None and auction[-2][1] is None and auction[-3][1] is None


def apply_auction(state: DealState, seat: int, action: Bid | object) -> tuple[DealState, list[Event]]:
    contract = action.contract if isinstance(action, Bid) else None
    auction = (*state.auction, (seat, contract))
    events: list[Event] = [BidMade(seat, contract) if contract is not None else Passed(seat, AUCTION)]
    state = state._replace(auction=auction, to_act=(seat + 1) % 4)
    if not _auction_over(state.rules, auction):
        return state, events
    top = highest_bid(state)
    declarer, won = top if top else (state.forehand, C.NORMAL)
    events.append(AuctionWon(declarer, won))
    sitting_out = partner_of(declarer) if won in state.rules.partner_sits_out else None
    state = state._replace(contract=won, declarer=declarer, sitting_out=sitting_out)
    if won in IMMEDIATE_CONTRACTS:
        value = state.rules.contract_value(won)
        result = DealResult(team_of(declarer), value, 1, value, f"{won.id} is won at once", True)
        events += [ContractMade(declarer, won), DealScored(result.winner, value, 1, value, result.reason)]
        return state._replace(phase=FINISHED, to_act=None, result=result), events
    if won in state.rules.kontra_forbidden:
        return start_play(state, events)
    defenders = ((declarer + 1) % 4, (declarer + 3) % 4)
    return state._replace(phase=DOUBLING, ask_queue=defenders[1:], to_act=defenders[0]), events


# --- doubling ----------------------------------------------------------------------------------------

_WORD_FOR_MULTIPLIER = {1: "kontra", 2: "re", 4: "subkontra"}


def doubling_actions(state: DealState) -> tuple[Action, ...]:
    return (PASS, DOUBLE[_WORD_FOR_MULTIPLIER[state.multiplier]])


def _next_askers(state: DealState, multiplier: int) -> tuple[int, ...]:
    """Who is asked after a double to ``multiplier``; empty when nobody may double further."""
    declarer = state.declarer
    assert declarer is not None and state.contract is not None
    rules = state.rules
    if multiplier >= rules.max_multiplier or state.contract in rules.re_forbidden:
        return ()
    if multiplier == 2:
        askers: tuple[int, ...] = (declarer, partner_of(declarer))
        if state.sitting_out is not None and not rules.sitting_out_partner_may_double:
            askers = (declarer,)
        return askers
    return ((declarer + 1) % 4, (declarer + 3) % 4)


def apply_doubling(state: DealState, seat: int, action: Double | object) -> tuple[DealState, list[Event]]:
    doubling = (*state.doubling, (seat, action.word if isinstance(action, Double) else "pass"))
    state = state._replace(doubling=doubling)
    if isinstance(action, Double):
        multiplier = state.multiplier * 2
        events: list[Event] = [Doubled(seat, action.word, multiplier)]
        queue = _next_askers(state, multiplier)
        state = state._replace(multiplier=multiplier)
    else:
        events = [Passed(seat, DOUBLING)]
        queue = state.ask_queue
    if not queue:
        return start_play(state._replace(ask_queue=()), events)
    return state._replace(ask_queue=queue[1:], to_act=queue[0]), events


def start_play(state: DealState, events: list[Event]) -> tuple[DealState, list[Event]]:
    contract, declarer = state.contract, state.declarer
    assert contract is not None and declarer is not None
    if contract in NO_TRUMP_CONTRACTS or (
        contract in (C.SCHNAPSER, C.BAUERNSCHNAPSER) and state.rules.schnapser_leader == "declarer"
    ):
        leader = declarer
    else:
        leader = state.forehand
    if leader == state.sitting_out:  # only reachable with unusual settings
        leader = (leader + 1) % 4
    events.append(PlayStarted(leader, state.sitting_out))
    return state._replace(phase=PLAY, to_act=leader), events
