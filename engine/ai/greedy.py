"""``greedy``: a rule-based player (a baseline, and the bot's fallback when a search overruns).

Card play, in order of preference:
1. Leading: announce a marriage (40 before 20; in a Schnapser only when the claim reaches 66); then cash a
   sure top card (the best card left in its suit, trumps first, most points first); else lead the cheapest
   card, preferring a non-trump.
2. Following, when the partner is winning safely (he plays last among the two sides, or his card is the best
   one left in its suit and trumping is not possible behind him): smear the card with the most points.
3. When last to play and able to win: win with the cheapest winning card. Not last: win with a sure top card.
4. Otherwise: the cheapest card (fewest points, then lowest rank).
Contract goals change the sign: a Bettler declarer keeps low and ducks with his highest losing card, and the
declarer's partner in a contract the declarer must make alone never tries to win a trick.
Trump: the suit of the first packet with the most cards, then the highest ranks; never Aufschlagen.
Auction: the highest-ranked legal contract whose hand-pattern test (``contract_fit``) passes. No Kontra/Re.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from ..actions import PASS, Action, Aufschlagen, Bid, ChooseTrump, Double, PlayCard
from ..cards import CARD_POINTS, NORMAL_ORDER, SUITS, ZEHNERLOCH_ORDER
from ..contracts import BEGGAR_CONTRACTS, IMMEDIATE_CONTRACTS, TRUMP_CONTRACTS, Contract
from ..ruleset import Ruleset
from ..state import AUCTION, DOUBLING, TRUMP
from ..views import PlayerView
from .compact import BIT, INDEX, Table, mask_of, trick_winner
from .knowledge import rules_of, table_of

C = Contract


def _ranked(order: dict[str, int]) -> list[list[int]]:
    """Per suit, the bits of its cards from the strongest down in ``order``."""
    return [
        [BIT[c] for c in sorted((c for c in order if c[0] == suit), key=lambda c: -order[c])]
        for suit in SUITS
    ]


# Per card order (by identity: the normal and the Zehnerloch order), per suit, its card bits strongest first.
_RANKED = {id(NORMAL_ORDER): _ranked(NORMAL_ORDER), id(ZEHNERLOCH_ORDER): _ranked(ZEHNERLOCH_ORDER)}
_ACES = mask_of(suit + "A" for suit in SUITS)
_TENS = mask_of(suit + "T" for suit in SUITS)
_KINGS = mask_of(suit + "K" for suit in SUITS)


def _top_run(held: int, ranked: list[int]) -> int:
    """How many of a suit's best cards (``ranked``, its bits strongest first) ``held`` has without a gap."""
    run = 0
    for bit in ranked:
        if not held & bit:
            break
        run += 1
    return run


def _run_from_top(cards: list[str], suit: str, order: dict[str, int]) -> int:
    """How many of the suit's best cards the hand holds without a gap (sure tricks in that suit)."""
    return _top_run(mask_of(cards), _RANKED[id(order)][SUITS.index(suit)])


def contract_fit(
    hand: list[str] | tuple[str, ...], contract: Contract, trump: str | None, strict: bool = True
) -> bool:
    """Does a five-card hand look like one that bids ``contract``? ``strict`` is greedy's own threshold;
    the looser form is what the search assumes of a bidder it cannot see."""
    return hand_fits(mask_of(hand), contract, trump, strict)


def hand_fits(held: int, contract: Contract, trump: str | None, strict: bool = True) -> bool:
    """``contract_fit`` of the hand given as a card mask (the search asks it of thousands of sampled hands
    per decision, so it counts bits rather than cards)."""
    slack = 0 if strict else 1
    if contract in IMMEDIATE_CONTRACTS:
        return True
    if contract in BEGGAR_CONTRACTS:
        aces = (held & _ACES).bit_count()
        tens = (held & _TENS).bit_count()
        kings = (held & _KINGS).bit_count()
        if contract is C.ASS_BETTLER:
            return aces >= 1 and aces + tens <= 1 + slack and kings <= slack
        return aces + tens <= slack and kings <= 1 + slack
    if contract in (C.GANG, C.ZEHNERLOCH):
        ranked = _RANKED[id(ZEHNERLOCH_ORDER if contract is C.ZEHNERLOCH else NORMAL_ORDER)]
        sure = sum(_top_run(held, suit) for suit in ranked)
        return sure >= 5 - slack
    if trump is None:
        return False
    ranked = _RANKED[id(NORMAL_ORDER)]
    trump_index = SUITS.index(trump)
    runs = [_top_run(held, suit) for suit in ranked]
    trump_run = runs[trump_index]
    side_runs = sum(runs) - trump_run
    if contract in (C.BAUERNSCHNAPSER, C.KONTRABAUERNSCHNAPSER):
        return trump_run >= 2 and trump_run + side_runs >= 5 - slack
    # Schnapser and Kontraschnapser: three sure tricks worth 66, trumps to stop the ruffs (the ace of a suit
    # is sure when its run is one card long, the ten when it is two).
    sure_points = sum(11 * (run >= 1) + 10 * (run >= 2) for run in runs)
    sure = trump_run + side_runs
    return trump_run >= 1 and sure >= 3 - slack and sure_points >= 40 - 10 * slack


def choose(view: PlayerView, rules: Ruleset | None = None) -> Action:
    legal = view.legal
    if not legal:
        raise ValueError("the seat has no legal action")
    if len(legal) == 1:
        return legal[0]
    rules = rules_of(view, rules)
    if view.phase == TRUMP:
        return _trump(view)
    if view.phase == AUCTION:
        return _bid(view)
    if view.phase == DOUBLING:
        return PASS if PASS in legal else next(a for a in legal if not isinstance(a, Double))
    return _play(view, rules)


def _trump(view: PlayerView) -> Action:
    options = [a for a in view.legal if isinstance(a, ChooseTrump)]
    if not options:
        return next(a for a in view.legal if isinstance(a, Aufschlagen))

    return max(options, key=lambda action: trump_strength(view.hand, action.suit))


def trump_strength(cards: Iterable[str], suit: str) -> tuple[int, int]:
    """How strongly ``cards`` call for ``suit`` as trump: its number of cards, then their rank."""
    held = [card for card in cards if card[0] == suit]
    return len(held), sum(NORMAL_ORDER[card] for card in held)


def _bid(view: PlayerView) -> Action:
    bids = [a for a in view.legal if isinstance(a, Bid)]
    for action in sorted(bids, key=lambda a: -a.contract):
        if contract_fit(view.hand, action.contract, view.trump):
            return action
    return PASS


def _cheapest(cards: list[str], order: dict[str, int], trump: str | None) -> str:
    return min(cards, key=lambda c: (c[0] == trump, CARD_POINTS[c], order[c]))


def _best_left(card: str, view: Moment, order: dict[str, int]) -> bool:
    """Is ``card`` the strongest card of its suit that nobody else may still hold?"""
    gone = {c for _, c in view.witnessed} | {c for _, c in view.trick} | set(view.hand)
    return all(other in gone for other in order if other[0] == card[0] and order[other] > order[card])


class Moment(Protocol):
    """What greedy's card play reads of a view (with the table given): the seat's moment of play."""

    @property
    def seat(self) -> int | None: ...
    @property
    def trump(self) -> str | None: ...
    @property
    def hand(self) -> tuple[str, ...]: ...
    @property
    def trick(self) -> tuple[tuple[int, str], ...]: ...
    @property
    def witnessed(self) -> tuple[tuple[int, str], ...]: ...
    @property
    def legal(self) -> tuple[Action, ...]: ...


def play(moment: Moment, rules: Ruleset, table: Table) -> Action:
    """The card greedy plays at ``moment`` of a deal played at ``table`` (``knowledge.table_of``)."""
    return _play(moment, rules, table)


def _play(view: Moment, rules: Ruleset, table: Table | None = None) -> Action:
    if table is None:
        assert isinstance(view, PlayerView)
        table = table_of(view, rules)
    assert table is not None and view.seat is not None
    me = view.seat
    contract = table.contract
    order = ZEHNERLOCH_ORDER if contract is C.ZEHNERLOCH else NORMAL_ORDER
    trump = view.trump if contract in TRUMP_CONTRACTS else None
    cards: list[str] = []
    for action in view.legal:
        if isinstance(action, PlayCard) and action.card not in cards:
            cards.append(action.card)
    declarer_alone = contract is not C.NORMAL and contract not in BEGGAR_CONTRACTS
    beggar_declarer = contract in BEGGAR_CONTRACTS and me == table.declarer
    quiet_partner = declarer_alone and me == (table.declarer + 2) % 4

    if not view.trick:
        marriages = [a for a in view.legal if isinstance(a, PlayCard) and a.marriage]
        if marriages:
            best = max(marriages, key=lambda a: a.marriage or 0)
            if contract is C.NORMAL or _claim_reaches(view, best.marriage or 0, table):
                return best
        if beggar_declarer or quiet_partner:
            return _play_card(min(cards, key=lambda c: order[c]))
        if contract in BEGGAR_CONTRACTS:  # a defender: make the declarer beat a low card
            return _play_card(min(cards, key=lambda c: order[c]))
        sure = [c for c in cards if _best_left(c, view, order)]
        if sure:
            return _play_card(max(sure, key=lambda c: (c[0] == trump, CARD_POINTS[c])))
        return _play_card(_cheapest(cards, order, trump))

    plays = [(seat, INDEX[card]) for seat, card in view.trick]
    win_seat, win_index = trick_winner(table, plays)
    winners = [c for c in cards if table.beats[win_index] >> INDEX[c] & 1]
    losers = [c for c in cards if c not in winners]
    last = len(view.trick) == table.players - 1
    if beggar_declarer:
        if losers:
            return _play_card(max(losers, key=lambda c: order[c]))
        return _play_card(min(winners, key=lambda c: order[c]))
    if quiet_partner:
        pool = losers or cards
        return _play_card(min(pool, key=lambda c: order[c]))
    partner_wins = win_seat == (me + 2) % 4 and contract not in BEGGAR_CONTRACTS
    if partner_wins and (last or _safe(view, table, win_index, order)):
        pool = losers or cards
        return _play_card(max(pool, key=lambda c: (CARD_POINTS[c], -order[c])))
    if winners:
        if last:
            return _play_card(min(winners, key=lambda c: (c[0] == trump, CARD_POINTS[c], order[c])))
        sure = [
            c
            for c in winners
            if _best_left(c, view, order) and (trump is None or c[0] == trump or not _void_risk(view))
        ]
        if sure:
            return _play_card(max(sure, key=lambda c: CARD_POINTS[c]))
        if losers:
            return _play_card(_cheapest(losers, order, trump))
        return _play_card(min(winners, key=lambda c: (CARD_POINTS[c], order[c])))
    return _play_card(_cheapest(cards, order, trump))


def _void_risk(view: Moment) -> bool:
    return len(view.witnessed) >= 4


def _safe(view: Moment, table: Table, win_index: int, order: dict[str, int]) -> bool:
    from ..cards import DECK

    card = DECK[win_index]
    if not _best_left(card, view, order):
        return False
    return table.trump_suit < 0 or card[0] == SUITS[table.trump_suit] or len(view.witnessed) < 4


def _claim_reaches(view: Moment, value: int, table: Table) -> bool:
    team = (view.seat or 0) & 1
    points = _team_points(view, table)[team]
    return points + value >= 66


def _team_points(view: Moment, table: Table) -> list[int]:
    points = [0, 0]
    plays = list(view.witnessed)
    size = table.players
    for start in range(0, len(plays), size):
        trick = [(seat, INDEX[card]) for seat, card in plays[start : start + size]]
        winner, _ = trick_winner(table, trick)
        points[winner & 1] += sum(CARD_POINTS[card] for _, card in plays[start : start + size])
    return points


def _play_card(card: str) -> PlayCard:
    return PlayCard(card)
