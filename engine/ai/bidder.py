"""The bidder model: how likely a seat is to bid a contract with a given dealt hand.

A seat that bids a contract (or Kontra, or names a trump) tells the others something about its hand. The
model asks what a player like the AI would do with the hand: its *make rate* is the share of a few seeded
deals of the other fifteen cards in which the contract, played with every card visible, is made (the same
flattering view the AI's own bids rest on); the *bid probability* turns that rate into a smooth threshold
(``BID_RATE`` per contract family, spread ``BID_SPREAD``). Worlds in which the bidder's hand would seldom
bid are then drawn less often (``knowledge.Sampler`` accepts a world with the bid probability).

Everything is a pure function of its arguments (the deals are seeded by the hand), so decisions stay
reproducible; results are cached for the life of the process.
"""

from __future__ import annotations

import math
import random
from functools import lru_cache

from ..cards import NORMAL_ORDER, SUITS, ZEHNERLOCH_ORDER, partner_of
from ..contracts import BEGGAR_CONTRACTS, IMMEDIATE_CONTRACTS, NO_TRUMP_CONTRACTS, Contract
from ..ruleset import Ruleset
from .compact import ALL_CARDS, Position, Table, cards_of, shared_table
from .greedy import _run_from_top
from .solver import SearchAborted, Solver

C = Contract
SAMPLES = 10  # deals of the other cards per hand
# Every hand is solved in all SAMPLES deals. A screen that counted a hand failing its first three deals as
# never made saved half the nodes, but read 0 for hands the AI bids: at the thresholds below a hand making a
# contract 3 times in 10 fails its first three deals a third of the time (of 150 random Gang hands it turned
# down 7 of the 26 the full count accepts; the AI's own Gang and Schnapser bids on seeds 102600-103199 were
# accepted 86% and 88% of the time with it).
NODE_CAP = 20_000  # per hand; past it the rate counts the deals solved so far
# A player like the AI bids when its make rate clears about this much (the bid must beat the normal game by
# the caution the AI subtracts: v(2p - 1) - 0.2v > ~0 gives p > 0.6; its own evaluation is noisier than the
# model's, so it bids weaker hands too). The thresholds accept at least 90% of the hands the AI itself bid
# in self-play (bench/ai_calibration.py). Set on deals 600-1499 (the earlier thresholds, Bettler 0.3,
# Ass-Bettler 0.45, Schnapser and Gang 0.5, accepted only 85-90% there) and checked on deals 1500-1999:
# Bettler 90.9% / 91.1% (397 / 224 bids), Ass-Bettler 95.5% / 91.7% (66 / 36), Schnapser 91.0% / 95.2%
# (145 / 105), Gang 100% / 100% (54 / 39). Zehnerloch, at 0.4, accepted 94.7% of 76 and then 87.8% of 41,
# so it went down to 0.25 (96.1% / 97.6%). Rates are multiples of 0.1: a threshold between two steps
# accepts the upper one. A looser model costs the Kontra little: against the Bettler family no threshold
# made the defenders' edge tell winning Kontras from losing ones (docs/ai.md). The trump choice does not
# notice (``chosen_prospect`` only picks contracts made more often than not).
BID_RATE = {
    C.BETTLER: 0.15,
    C.ASS_BETTLER: 0.25,
    C.SCHNAPSER: 0.35,
    C.GANG: 0.25,
    C.ZEHNERLOCH: 0.25,
    C.BAUERNSCHNAPSER: 0.5,
    C.KONTRASCHNAPSER: 0.5,
    C.KONTRABAUERNSCHNAPSER: 0.5,
}
BID_SPREAD = 0.08


def contract_table(rules: Ruleset, contract: Contract, trump: str | None, declarer: int) -> Table:
    sitting_out = partner_of(declarer) if contract in rules.partner_sits_out else None
    return shared_table(rules, contract, trump, declarer, sitting_out)


class Meter:
    """The search nodes of the make rates one decision asked for, each hand and contract counted once, at
    the nodes its search took, also when the process remembered the rate: the count, and so a decision
    that stops on it, does not depend on what the process was asked before."""

    def __init__(self) -> None:
        self.nodes = 0
        self._counted: set[tuple[object, ...]] = set()

    def count(self, key: tuple[object, ...], nodes: int) -> None:
        if key not in self._counted:
            self._counted.add(key)
            self.nodes += nodes


def make_rate(
    rules: Ruleset, contract: Contract, trump: str | None, declarer: int, forehand: int, dealt: int,
    meter: Meter | None = None,
) -> float:  # fmt: skip
    """Share of seeded deals of the other cards in which ``declarer`` makes ``contract`` holding ``dealt``
    (a card mask), every card visible. A ``meter`` counts the nodes of the search."""
    if contract in IMMEDIATE_CONTRACTS:
        return 1.0
    if contract in NO_TRUMP_CONTRACTS:
        trump = None
    rate, nodes = _make_rate(rules, contract, trump, declarer, forehand, dealt)
    if meter is not None:
        meter.count((contract, trump, declarer, forehand, dealt), nodes)
    return rate


@lru_cache(maxsize=100_000)
def _make_rate(
    rules: Ruleset, contract: Contract, trump: str | None, declarer: int, forehand: int, dealt: int
) -> tuple[float, int]:
    table = contract_table(rules, contract, trump, declarer)
    solver = Solver(table, NODE_CAP)
    rng = random.Random(f"{contract.id}:{trump}:{(declarer - forehand) % 4}:{dealt}")
    rest = [card for card in range(20) if not dealt >> card & 1]
    others = [seat for seat in range(4) if seat != declarer]
    sign = 1 if declarer % 2 == 0 else -1
    made = solved = 0
    leader = table.first_leader(forehand)
    for _ in range(SAMPLES):
        rng.shuffle(rest)
        hands = [0, 0, 0, 0]
        hands[declarer] = dealt
        for i, seat in enumerate(others):
            hands[seat] = sum(1 << card for card in rest[5 * i : 5 * i + 5])
        solver.cache.clear()
        try:
            value = solver.solve(Position(hands, leader, [], 1, [0, 0], [0, 0], [0, 0]))
        except SearchAborted:
            break
        solved += 1
        made += sign * value > 0
    return (made / solved if solved else 0.5), solver.nodes


def bid_probability(rate: float, contract: Contract) -> float:
    """How likely a player like the AI is to bid a contract whose make rate is ``rate``."""
    threshold = BID_RATE.get(contract, 0.5)
    return 1 / (1 + math.exp(-(rate - threshold) / BID_SPREAD))


def hand_bids(
    rules: Ruleset, contract: Contract, trump: str | None, declarer: int, forehand: int, dealt: int,
    meter: Meter | None = None,
) -> float:  # fmt: skip
    """Bid probability of ``declarer`` for ``contract`` with the dealt hand ``dealt``."""
    if contract is C.NORMAL or contract in IMMEDIATE_CONTRACTS:
        return 1.0
    if contract not in BEGGAR_CONTRACTS and trump is None and contract not in (C.GANG, C.ZEHNERLOCH):
        return 1.0
    assert dealt & ~ALL_CARDS == 0
    if not could_bid(contract, trump, cards_of(dealt)):
        return 0.0
    return bid_probability(make_rate(rules, contract, trump, declarer, forehand, dealt, meter), contract)


__all__ = [
    "BID_RATE",
    "Meter",
    "bid_probability",
    "chosen_contract",
    "chosen_prospect",
    "contract_table",
    "could_bid",
    "hand_bids",
    "make_rate",
]


def chosen_contract(
    rules: Ruleset, contracts: list[Contract], trump: str, declarer: int, forehand: int, dealt: int
) -> Contract | None:
    """The contract a player like the AI bids with this hand, judged on the hand alone: among the
    contracts it would bid (bid probability at least one half), the one of best expected value
    v * (2p - 1); None when it would bid none (the normal game)."""
    return chosen_prospect(rules, contracts, trump, declarer, forehand, dealt)[0]


def chosen_prospect(
    rules: Ruleset, contracts: list[Contract], trump: str, declarer: int, forehand: int, dealt: int,
    meter: Meter | None = None,
) -> tuple[Contract | None, float]:  # fmt: skip
    """``chosen_contract`` and its expected base v * (2p - 1) for the declaring side, p the make rate
    (0.0 with no contract; an immediate contract counts its full value)."""
    best, best_value = None, 0.0
    for contract in contracts:
        if contract in IMMEDIATE_CONTRACTS:
            return contract, float(rules.contract_value(contract))
        if not could_bid(contract, trump, cards_of(dealt)):
            continue
        rate = make_rate(rules, contract, trump, declarer, forehand, dealt, meter)
        if bid_probability(rate, contract) < 0.5:
            continue
        value = rules.contract_value(contract) * (2 * rate - 1)
        if value > best_value:
            best, best_value = contract, value
    return best, best_value


def _runs(cards: list[str], trump: str | None, order: dict[str, int]) -> tuple[int, int]:
    trump_run = _run_from_top(cards, trump, order) if trump else 0
    side = sum(_run_from_top(cards, suit, order) for suit in SUITS if suit != trump)
    return trump_run, side


def could_bid(contract: Contract, trump: str | None, cards: list[str]) -> bool:
    """A cheap necessary test: hands failing it (almost) never reach the bid rate, so they are not solved."""
    if contract in BEGGAR_CONTRACTS:
        aces = sum(card[1] == "A" for card in cards)
        tens = sum(card[1] == "T" for card in cards)
        if contract is C.ASS_BETTLER:
            return aces >= 1 and aces + tens <= 3
        return aces + tens <= 2
    if contract in (C.GANG, C.ZEHNERLOCH):
        order = ZEHNERLOCH_ORDER if contract is C.ZEHNERLOCH else NORMAL_ORDER
        return sum(_runs(cards, None, order)) >= 2
    trump_run, side = _runs(cards, trump, NORMAL_ORDER)
    if contract in (C.BAUERNSCHNAPSER, C.KONTRABAUERNSCHNAPSER):
        return trump_run >= 1 and trump_run + side >= 3
    return trump_run + side >= 1
