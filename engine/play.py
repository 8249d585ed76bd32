"""Card play: legal cards (RULES.md section 5), trick winners, marriages (6.2) and the end of the hand (6.1)."""

from __future__ import annotations

from .actions import PLAY, PLAY_MARRIAGE, Action, PlayCard
from .cards import CARD_POINTS, NORMAL_ORDER, SEAT_NAMES, SUITS, TEAM_NAMES, ZEHNERLOCH_ORDER, team_of
from .contracts import (
    ALL_TRICKS_CONTRACTS,
    BEGGAR_CONTRACTS,
    MARRIAGE_CONTRACTS,
    SCHNAPSER_CONTRACTS,
    TRUMP_CONTRACTS,
    Contract,
)
from .events import (
    CardPlayed,
    ContractFailed,
    ContractMade,
    DealScored,
    Event,
    MarriageAnnounced,
    MarriageCounted,
    TrickWon,
)
from .state import FINISHED, DealResult, DealState, Marriage, Trick

C = Contract


def card_order(contract: Contract | None) -> dict[str, int]:
    return ZEHNERLOCH_ORDER if contract is C.ZEHNERLOCH else NORMAL_ORDER


def active_trump(state: DealState) -> str | None:
    return state.trump if state.contract in TRUMP_CONTRACTS else None


def beats(card: str, winning: str, trump: str | None, order: dict[str, int]) -> bool:
    if card[0] == winning[0]:
        return order[card] > order[winning]
    return card[0] == trump


def winning_play(
    plays: tuple[tuple[int, str], ...], trump: str | None, order: dict[str, int]
) -> tuple[int, str]:
    best = plays[0]
    for play in plays[1:]:
        if beats(play[1], best[1], trump, order):
            best = play
    return best


def legal_cards(state: DealState, hand: tuple[str, ...]) -> tuple[str, ...]:
    """The cards ``hand`` may add to the trick in progress (not for a lead): Farb-, Stich-, Trumpfzwang."""
    trick = state.trick
    order = card_order(state.contract)
    trump = active_trump(state)
    led = trick[0][1][0]
    winning = winning_play(trick, trump, order)[1]
    must_beat = state.contract in state.rules.stichzwang_contracts
    follow = tuple(c for c in hand if c[0] == led)
    if follow:
        if must_beat and winning[0] == led:
            higher = tuple(c for c in follow if order[c] > order[winning])
            if higher:
                return higher
        return follow
    if trump is not None:
        trumps = tuple(c for c in hand if c[0] == trump)
        if trumps:
            if not must_beat:
                return trumps
            if winning[0] == trump:
                over = tuple(c for c in trumps if order[c] > order[winning])
            else:
                over = trumps
            if over:
                return over
            return trumps if state.rules.undertrump_required else hand
    return hand


def marriage_options(state: DealState, seat: int) -> tuple[tuple[str, int], ...]:
    """(suit, value) pairs the leader ``seat`` may announce now."""
    contract = state.contract
    if contract not in MARRIAGE_CONTRACTS:
        return ()
    allow_40 = True
    if contract in SCHNAPSER_CONTRACTS:
        mode = state.rules.schnapser_marriages
        trick_no = len(state.tricks) + 1
        if mode == "none" or seat != state.declarer or trick_no not in (2, 3):
            return ()
        allow_40 = trick_no == 2 or mode == "additive"
    hand = state.hands[seat]
    options = []
    for suit in SUITS:
        if suit + "K" in hand and suit + "Q" in hand:
            value = 40 if suit == state.trump else 20
            if value == 20 or allow_40:
                options.append((suit, value))
    return tuple(options)


def play_actions(state: DealState) -> tuple[Action, ...]:
    seat = state.to_act
    assert seat is not None
    hand = state.hands[seat]
    if state.trick:
        return tuple(PLAY[c] for c in legal_cards(state, hand))
    plain = [PLAY[c] for c in hand]
    for suit, value in marriage_options(state, seat):
        plain += [PLAY_MARRIAGE[(c, value)] for c in hand if c[0] == suit and c[1] in "KQ"]
    return tuple(plain)


def apply_play(state: DealState, seat: int, action: PlayCard) -> tuple[DealState, list[Event]]:
    events: list[Event] = []
    card = action.card
    trick_no = len(state.tricks) + 1
    if action.marriage:
        team = team_of(seat)
        marriage = Marriage(seat, card[0], action.marriage, trick_no, card)
        state = state._replace(marriages=(*state.marriages, marriage))
        events.append(MarriageAnnounced(seat, card[0], action.marriage, state.team_tricks[team] > 0))
        ended = _after_marriage(state, seat, action.marriage)
        if ended is not None:
            return _finish(state, ended, events)
    hand = state.hands[seat]
    at = hand.index(card)
    hands = (*state.hands[:seat], hand[:at] + hand[at + 1 :], *state.hands[seat + 1 :])
    trick = (*state.trick, (seat, card))
    events.append(CardPlayed(seat, card))
    if len(trick) < (3 if state.sitting_out is not None else 4):
        following = (seat + 1) % 4
        if following == state.sitting_out:
            following = (following + 1) % 4
        return state._replace(hands=hands, trick=trick, to_act=following), events
    winner = winning_play(trick, active_trump(state), card_order(state.contract))[0]
    trick_points = sum(CARD_POINTS[c] for _, c in trick)
    team = winner & 1
    first_trick_of_team = state.team_tricks[team] == 0
    (cards_ns, cards_ew), (tricks_ns, tricks_ew) = state.team_cards, state.team_tricks
    if team == 0:
        team_cards, team_tricks = (cards_ns + trick_points, cards_ew), (tricks_ns + 1, tricks_ew)
    else:
        team_cards, team_tricks = (cards_ns, cards_ew + trick_points), (tricks_ns, tricks_ew + 1)
    state = state._replace(
        hands=hands,
        trick=(),
        tricks=(*state.tricks, Trick(trick[0][0], trick, winner, trick_points)),
        team_cards=team_cards,
        team_tricks=team_tricks,
        to_act=winner,
    )
    events.append(TrickWon(winner, tuple(c for _, c in trick), trick_points, trick_no))
    if first_trick_of_team:
        events += [
            MarriageCounted(m.seat, m.suit, m.value) for m in state.marriages if team_of(m.seat) == team
        ]
    ended = _after_trick(state, winner, trick_no)
    if ended is not None:
        return _finish(state, ended, events)
    return state, events


# --- end of hand -------------------------------------------------------------------------------------


def _normal_win(state: DealState, team: int, why: str) -> tuple[int, int, str]:
    loser = 1 - team
    if state.team_tricks[loser] == 0:
        base = 3
    elif state.total(loser) < 33:
        base = 2
    else:
        base = 1
    return team, base, why


def _after_marriage(state: DealState, seat: int, value: int) -> tuple[int, int, str] | None:
    """(winning team, base, reason) when the announcement ends the hand."""
    team = team_of(seat)
    if state.contract is C.NORMAL:
        if state.team_tricks[team] and state.total(team) >= 66:
            return _normal_win(state, team, f"{TEAM_NAMES[team]} reached {state.total(team)} with a {value}")
        return None
    value_of_contract = state.rules.contract_value(state.contract)  # type: ignore[arg-type]
    points = state.team_cards[team] + value
    if state.rules.schnapser_marriages == "claim":
        if points >= 66:
            return team, value_of_contract, f"the declarer claimed {points} with a {value}"
        return 1 - team, value_of_contract, f"the declarer claimed only {points} with a {value}"
    if state.total(team) >= 66:  # additive: a short announcement just adds up
        return team, value_of_contract, f"the declarer reached {state.total(team)} with a {value}"
    return None


def _after_trick(state: DealState, winner: int, trick_no: int) -> tuple[int, int, str] | None:
    contract, declarer = state.contract, state.declarer
    assert contract is not None and declarer is not None
    side = team_of(declarer)
    value = state.rules.contract_value(contract)
    who = SEAT_NAMES[winner]
    if contract is C.NORMAL:
        team = team_of(winner)
        if state.total(team) >= 66:
            return _normal_win(
                state, team, f"{TEAM_NAMES[team]} reached {state.total(team)} after trick {trick_no}"
            )
        if trick_no == 5:
            return team, 1, f"nobody reached 66; {TEAM_NAMES[team]} won the last trick"
        return None
    if contract in BEGGAR_CONTRACTS:
        if winner == declarer:
            return 1 - side, value, f"the declarer {who} won trick {trick_no}"
        if trick_no == 5:
            return side, value, "the declarer took no trick"
        return None
    if winner != declarer:
        return 1 - side, value, f"{who} won trick {trick_no}, not the declarer"
    if contract in SCHNAPSER_CONTRACTS:
        points = state.total(side)
        if points >= 66:
            return side, value, f"the declarer reached {points} after trick {trick_no}"
        if trick_no == 3:
            return 1 - side, value, f"the declarer had only {points} after three tricks"
        return None
    assert contract in ALL_TRICKS_CONTRACTS
    if trick_no == 5:
        return side, value, "the declarer won all five tricks"
    return None


def _finish(
    state: DealState, ended: tuple[int, int, str], events: list[Event]
) -> tuple[DealState, list[Event]]:
    winner, base, reason = ended
    declarer, contract = state.declarer, state.contract
    assert declarer is not None and contract is not None
    made = winner == team_of(declarer)
    result = DealResult(winner, base, state.multiplier, base * state.multiplier, reason, made)
    events.append(ContractMade(declarer, contract) if made else ContractFailed(declarer, contract))
    events.append(DealScored(winner, base, state.multiplier, result.game_points, reason))
    return state._replace(phase=FINISHED, to_act=None, result=result), events
