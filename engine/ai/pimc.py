"""``pimc``: Perfect-Information Monte Carlo over worlds consistent with the seat's view.

Every decision samples the hidden cards (``knowledge.Sampler``; all worlds when few remain), solves each
world exactly (``solver.Solver``) for every legal action, and picks the best mean in game points for the
seat's team (the multiplier included). Trump, bids and Kontra/Re are decided the same way, by solving the
card play of each candidate contract from its first lead.

The budget is counted in search nodes (``NODES_PER_MS`` per millisecond, calibrated on the reference
machine) rather than in wall time, so a decision depends only on the view and the seed, never on the load
of the machine. The first world is always solved in full.
"""

from __future__ import annotations

import gc
import math
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, combinations, islice

from ..actions import Action, Aufschlagen, Bid, ChooseTrump, Double, PlayCard
from ..cards import DECK, NORMAL_ORDER, SUITS, team_of
from ..contracts import BEGGAR_CONTRACTS, IMMEDIATE_CONTRACTS, Contract
from ..ruleset import Ruleset
from ..state import AUCTION, DOUBLING, PLAY, TRUMP
from ..views import PlayerView
from . import bidder, greedy, opening, playmodel
from .compact import (
    ALL_TRICKS,
    BEGGAR,
    INDEX,
    KING_QUEEN,
    POINTS,
    SCHNAPSER,
    SUIT_OF,
    Position,
    Table,
    apply_move,
    cards_of,
    family_of,
    mask_of,
    trick_winner,
)
from .knowledge import Knowledge, Plausible, Sampler, Weight, gather, rules_of, table_of
from .solver import SearchAborted, Solver

C = Contract
NODES_PER_MS = 120
ENUMERATE_LIMIT = 60  # solve every consistent world when there are at most this many
MAX_WORLDS = 200
# The first world may use this many times the budget (it must complete for the decision to have a value).
FIRST_WORLD_FACTOR = 5
# Card play in trick 1 gets this share of the budget (later tricks need far fewer nodes per world, and their
# choices change little with more worlds).
TRICK_ONE_PERCENT = 150
# Later tricks get this share. At 50 (with early stop) the normal game against b897e3b lost 2.10 game points
# per 100 deals (95% CI -3.96 .. -0.24, 2000 deals, commit 382fdfa) against -0.27 (-1.06 .. +0.51) at 100:
# the late tricks' budget pays.
LATER_TRICKS_PERCENT = 100
# Card play of the normal game gets this many times those shares: the compiled solver made a node six times
# cheaper, and three times the nodes, with the play model and the marriage silence below, gained 1.38
# game points per 100 deals (95% CI +0.56 .. +2.20) against 0042df6 over 11000 fresh deals, at a card p95
# of 33 ms CPU in trick 1 and 37 ms in trick 2 (issue 40, docs/ai-history.md). The other contracts keep
# their budget: with x3 there too the full game showed no gain (-4.67 over 300 deals, +0.90 over 1000).
NORMAL_PLAY_FACTOR = 3
# Trump, bid and Kontra decisions solve whole deals for several contracts per world: they get this many
# times the card-play budget.
WHOLE_DEAL_FACTOR = 3
# The trump decision gets more (a choice of five options, each solved in every world; its decision time
# was the lowest of the whole-deal decisions). It was 6 until the normal game's narrowing value range cut
# the nodes per world by about a third: 4 solves as many worlds as 6 did (median 42 over deals 0-29), and
# keeps the bidder model's searches, which are not counted in the budget, at the same number of hands.
TRUMP_FACTOR = 4
# The bidder model's searches (a Kontra decision weighs its worlds by how likely the declarer's hand bids;
# the trump decision values the contracts the forehand would bid) may use this many times the whole-deal
# budget (the trump's larger one buys worlds only), in nodes counted like the card play's
# (``bidder.Meter``); once spent, the decision stops with the worlds it has. Unbounded, they took up to
# 4.6 times the budget (deals 0-29 of bench/data), most of the time of the slowest Kontra and trump
# decisions; bounded, 16 of 64 Kontra and 7 of 30 trump decisions there solve fewer worlds, and none
# chooses differently (docs/ai.md).
MODEL_FACTOR = 2
# Solving with every card visible flatters the declarer of a contract he must make alone (he never guesses):
# the made rate his worlds show is higher than the rate he makes. ``OPTIMISM`` is that gap per contract
# family, measured in self-play (bench/ai_calibration.py): deals 0-499, predicted against actual made rate
# Bettler family 0.688 / 0.634, Schnapser family 0.826 / 0.750, all-tricks 0.842 / 0.841, which set 0.05,
# 0.08 and 0; with those, deals 1500-1999 and seeds 102000-103199 (1700 deals) gave Bettler family 0.626 /
# 0.627 (592 played), all-tricks 0.817 / 0.799 (254), but Schnapser family 0.733 / 0.670 (282): its gap is
# 0.08 + 0.063, about 0.13 over both samples (366 played), so 0.12. A bid's value is the contract played at
# the made rate less this gap, v(2(p - gap) - 1), so its value predicts what the bid earns. On top, a bid
# must beat the alternative by ``DECLARER_RISK`` of its value before the player risks it: what is left of
# the 0.2 of the contract value that set the bids before the calibration, never below 0 (the Schnapser's
# larger gap takes all of it and a little more, so the weakest Schnapser bids of before are no longer made).
OPTIMISM = {BEGGAR: 0.05, SCHNAPSER: 0.12, ALL_TRICKS: 0.0}
DECLARER_CAUTION = 0.2  # the whole margin of a bid, in contract values
DECLARER_RISK = {family: max(0.0, DECLARER_CAUTION - 2 * gap) for family, gap in OPTIMISM.items()}
# Kontra only when the team's mean result is at least this share of the contract value; Re (said after the
# defenders showed strength) needs more.
DOUBLE_MARGIN = 0.3
RE_MARGIN = 0.6
# Against a contract the declaring side must win outright (Gang, Zehnerloch, Bauernschnapser and their
# Kontra forms) the defenders' worlds flatter them: with every card visible a defender always keeps the one
# card that takes a trick. In self-play (bench/ai_calibration.py) Kontra against them was right 2 times in 6
# at a margin of 1.4 over deals 0-499, 600-1499 and 1500-1999, and less often at lower margins (1.2: 13
# doubles, 3 right): the defenders' edge does not find the contracts they beat, so they double only on an
# edge of 1.6, cleared twice in those 1900 deals (once right).
ALL_TRICKS_DOUBLE_MARGIN = 1.6
# Against the Schnapser (and Kontraschnapser) the defenders need a trick or 33 points, which perfect
# information flatters less: over deals 600-1499 a margin of 0.8 doubled 5 times and was right 5 times
# (4 of 5 with the bidder model of before), 0.6 6 times with 5 right, and over deals 1500-1999, never used
# to set it, 4 times with 4 right; 1.4, the margin it shared with the all-tricks family before, never
# doubled.
SCHNAPSER_DOUBLE_MARGIN = 0.8
# Against the Bettler family the same flattery works the other way round (the defenders, seeing every
# card, always find the lead that forces the declarer to take a trick), and the edge hardly tells a good
# Kontra from a bad one: over deals 600-1499 (342 Bettler-family contracts, defenders won 39%) Kontras at a
# margin of 0.3 were right 51% of the time (57 said), at 0.55 45% (20), at 0.8 2 of 4, and over deals
# 1500-1999 at 0.8 1 of 3; a bidder model fitted to the AI's bidding hands, weighing strong hands more, did
# no better. A Kontra right less than half of the time loses points, so only an edge of 1.0 doubles (3
# times in the 1900 deals, 2 right).
BEGGAR_DOUBLE_MARGIN = 1.0
AUFSCHLAGEN = Aufschlagen()
NEVER = -1000.0  # the value of a double the AI never says (finite, so the CLI's JSON stays valid)
# The make rate (bidder model) at which a declarer answers Kontra with Re: (2p - 1) >= RE_MARGIN.
RE_RATE = 0.8
# Share of the worlds a Re loses in which the defenders answer with Subkontra (where the rules allow it).
SUBKONTRA_REPLY = 0.5
# Soft inference from play: in card play of the normal game a world counts by how likely it makes the other
# seats' card choices so far, for a player who plays greedy's card this share of the time when it has a
# choice and any other card alike (pimc chose greedy's card in 75% of 296 decisions of normal games: 83%
# with two cards to choose from, 66-68% with four or five); a forced card says nothing. A seat that smeared
# no ten on its partner's safe trick probably had none. None turns the inference off.
GREEDY_AGREEMENT: float | None = 0.75
# A seat that leads a King or Ober of a suit without announcing the marriage while it may announce one
# (the normal game: any lead) did not hold the other card of the pair: the search never leads such a card
# plainly (announcing never hurts, ``Solver``), and a person seldom forgets 20 or 40 points. A world in which
# it held both counts this much (not 0: a person may forget). None turns this inference off.
MARRIAGE_SILENCE: float | None = 0.05
# With ``PLAY_MODEL``, a choice counts by the chance the fitted model of the AI's own play
# (``playmodel``) gives the card played, greedy's card one of its features, instead of the flat
# ``GREEDY_AGREEMENT`` (held-out log-likelihood per choice -0.634 against -0.691); judging a choice then
# costs ``PLAY_MODEL_NODES`` (about 40 us) instead of ``GREEDY_NODES``.
PLAY_MODEL = True
PLAY_MODEL_NODES = 20
# What judging one choice with greedy's rules costs, in search nodes of the budget (60-100 us, about 12
# nodes at ``NODES_PER_MS``): the inference buys its time from the worlds, so decisions keep their pace.
GREEDY_NODES = 12
# The forehand names trump from his first three cards, and the AI names the suit greedy's rule names (most
# cards of the suit, then the highest) nearly every time it names one: 80 of 86 named suits over deals
# 0-149 of bench/data (the other 64 turned a card up, which tells nothing). A named trump weighs each
# world's dealt hand of the forehand by how likely its first three cards (any three of its five) name that
# suit so. None turns this inference off.
TRUMP_AGREEMENT: float | None = 0.9
# What judging one dealt hand's trump costs, in search nodes (about 35 us), counted once per hand and
# decision like ``GREEDY_NODES``.
TRUMP_NODES = 4
RANK_ORDER = [NORMAL_ORDER[card] for card in DECK]
# An action whose value lies within this many standard errors of the best (where the evaluation measures
# them) is not told apart from it, and greedy's choice among those is taken. For the trump choice, the
# options' means often differ by less than their noise at the worlds the time allows; greedy's rule (the
# longest, strongest suit) is then the stable choice (bench/ai_trump.py).
TIE_Z = 1.64
# The same for card play in trick 1, whose moves carry their noise too (weighted worlds counted as their
# effective number) and see the fewest worlds. Over 409 trick-1 decisions of greedy-played normal games
# (deals 1025-1199; the setting was first looked at on 1040-1079), valued again by searches of 10 times
# the budget, the chosen card lost 0.041 game points per decision against the best at 0 (the best mean),
# 0.035 at 0.5, 0.030 at 1, 0.036 at 1.64 and 0.098 always taking greedy's card; in trick 2 (464
# decisions) no setting beat the best mean (0.019 at 0, 0.021 at 1), so later tricks take it.
TRICK_ONE_TIE_Z = 1.0
# Card play's inference weighs sampled worlds unevenly, and a world of little weight costs a whole search
# for little information: over trick 1 and 2 decisions of normal games the weighted worlds counted as
# 38-62% of their number on average (7% in one decision). So a drawn world is first weighed and then kept
# with the chance its weight bears to the highest weight drawn so far, and a kept world counts at that
# ceiling (rejection control: every draw contributes its weight in expectation); the kept worlds weigh
# nearly alike. Judging is cheap against a search: fewer worlds are solved, each counting fully, and the
# choices lost 0.0123 game points per decision against 0.0148 (docs/ai.md, "Rejection control").
# Enumerated worlds (few enough to solve all) keep their weights. At most this many draws per decision;
# None turns the rejection off.
REJECTION_DRAWS: int | None = 20 * MAX_WORLDS
# What drawing one world costs, in search nodes (about 20 us).
DRAW_NODES = 6
# This many draws are weighed before the first is kept or rejected, to start the ceiling near the top.
REJECTION_WARMUP = 8


@dataclass(frozen=True)
class Evaluation:
    action: Action
    value: float  # expected game points for the seat's team (multiplier included, caution subtracted)
    worlds: int
    # Standard error of (best value - this value) over the worlds, where measured (trump and card play),
    # else 0: an action within ``TIE_Z`` of these of the best is not told apart from it.
    noise: float = 0.0


def evaluate(
    view: PlayerView,
    rules: Ruleset | None = None,
    seed: int = 0,
    budget_ms: int = 150,
    book: bool = True,
    quick: bool = False,
) -> list[Evaluation]:
    """The value of every legal action of the seat to act, in ``view.legal`` order. With ``book``, the
    forehand's trump choice and first lead of a normal game come from the opening book (``opening``)
    where it applies. ``quick`` asks for the choice only: actions that cannot be the choice may go
    unvalued (``NEVER``; see ``_evaluate_auction``)."""
    if view.seat is None or not view.legal:
        raise ValueError("the view's seat has no legal action")
    with _without_cycle_collection():
        return _evaluate(view, rules, seed, budget_ms, book, quick)


@contextmanager
def _without_cycle_collection() -> Iterator[None]:
    """No cyclic garbage collection during a decision: its searches allocate millions of small objects
    (transposition keys, move lists) and free them by reference counting, but the allocations alone set off
    collections that walked the process's heap again and again (a tenth of the AI's CPU in a profile of
    40 deals). Little cyclic garbage is made meanwhile; it is collected after the decision as usual."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _evaluate(
    view: PlayerView, rules: Ruleset | None, seed: int, budget_ms: int, book: bool, quick: bool
) -> list[Evaluation]:
    assert view.seat is not None
    rules = rules_of(view, rules)
    if len(view.legal) == 1:
        return [Evaluation(view.legal[0], 0.0, 0)]
    booked = opening.lookup(view, rules) if book else None
    if booked is not None:
        worlds, values = booked
        return [
            Evaluation(action, value, worlds, noise)
            for action, (value, noise) in zip(view.legal, values, strict=True)
        ]
    rng = random.Random(decision_key(view, seed))
    budget = max(1, budget_ms) * NODES_PER_MS
    if view.phase != PLAY:
        budget *= WHOLE_DEAL_FACTOR
    if view.phase == PLAY:
        if not view.witnessed:  # trick 1: the choice that changes most with more worlds
            budget = budget * TRICK_ONE_PERCENT // 100
        else:
            budget = budget * LATER_TRICKS_PERCENT // 100
        if view.contract is C.NORMAL:
            budget *= NORMAL_PLAY_FACTOR
        return _evaluate_play(view, rules, rng, budget)
    if view.phase == DOUBLING:
        return _evaluate_doubling(view, rules, rng, budget)
    if view.phase == AUCTION:
        return _evaluate_auction(view, rules, rng, budget * AUCTION_PERCENT // 100, quick)
    if view.phase == TRUMP:
        return _evaluate_trump(view, rules, rng, budget)
    raise ValueError(f"no decision in phase {view.phase}")


def decision_key(view: PlayerView, seed: int) -> str:
    """Seeds a decision's random stream: the seed plus where in the deal the decision is."""
    moments = (len(view.auction), len(view.doubling), len(view.witnessed), len(view.trick))
    return f"{seed}:{view.seat}:{view.phase}:{moments}"


def choose(
    view: PlayerView, rules: Ruleset | None = None, seed: int = 0, budget_ms: int = 150, book: bool = True
) -> Action:
    evaluations = evaluate(view, rules, seed, budget_ms, book, quick=True)
    return best_action(view, evaluations, rules)


def best_action(view: PlayerView, evaluations: list[Evaluation], rules: Ruleset | None = None) -> Action:
    """The best mean; among near-equal actions, the one greedy would pick (it keeps points and high cards
    that the exact solver, which counts only game points, sees no reason to keep). In the trump choice and
    trick 1, actions the worlds cannot tell apart from the best (within ``TIE_Z`` or ``TRICK_ONE_TIE_Z``
    standard errors) count as near-equal. With no world solved every value is 0, so this is greedy's
    choice."""
    if len(evaluations) == 1:
        return evaluations[0].action
    top = max(e.value for e in evaluations)
    z = TIE_Z if view.phase != PLAY else TRICK_ONE_TIE_Z if not view.witnessed else 0.0
    tied = [e.action for e in evaluations if e.value >= top - 1e-6 - z * e.noise]
    if len(tied) == 1:
        return tied[0]
    preferred = _stable_trump(view) if view.phase == TRUMP else greedy.choose(view, rules)
    return preferred if preferred in tied else tied[0]


def _stable_trump(view: PlayerView) -> Action:
    """The trump choice when the worlds cannot tell the options apart: greedy's longest, strongest suit
    when a suit is held twice (King and Ober among them), else Aufschlagen, which searches of 10 times the
    budget preferred for three cards of three suits (bench/ai_trump.py, deals 0-19: 4 of 5 such hands)."""
    if (
        any(sum(card[0] == suit for card in view.hand) >= 2 for suit in SUITS)
        or AUFSCHLAGEN not in view.legal
    ):
        return greedy.choose(view)
    return AUFSCHLAGEN


# --- early stop ----------------------------------------------------------------------------------------

# A decision stops solving an action once it is clearly worse than the best, and stops drawing worlds once
# the best is clear beyond the noise: after at least ``STOP_MIN_WORLDS`` worlds, an action that trails the
# best by more than ``STOP_Z`` standard errors of their paired difference over the worlds (the worlds are
# common to both, and the error is never taken below 1/n after n worlds) is dropped (successive
# elimination); the decision stops when one action is left. The budget stays the ceiling for the close
# choices, where more worlds pay. The test is repeated after every world (a sequential test), so ``STOP_Z``
# is set above the usual 1.96. With the floor, at 2.5, the normal game against b897e3b gave +0.25 per 100
# deals (95% CI -0.74 .. +1.24, 2000 deals, commit 6763554); without it, where actions equal in every world
# so far counted as settled (and the later tricks at half the budget), -3.28 (CI -5.22 .. -1.33).
STOP_Z = 2.5
STOP_MIN_WORLDS = 12
# Bids get half the whole-deal budget, stop after at least 12 worlds, and their values carry no noise, as
# before early stop (with noise, ``best_action`` gave near-equal bids up for greedy's choice: the full game
# against b897e3b lost 31 game points per 100 deals, the Bettler bid 34 times against 55, commit 28985dd;
# with a ceiling of 20% and a stop after 6 worlds too, 44, commit 0401aa8). In a choice (``quick``) the
# bids ``bidder.could_bid`` rules out are not solved (``BID_SCREEN``). So set, the full game against
# b897e3b passed its SPRT (-25/0, H1, commit 6763554).
AUCTION_PERCENT = 50
AUCTION_MIN_WORLDS = 12
AUCTION_EARLY_STOP = True
BID_SCREEN = True
# Off for reference searches that must solve every world they may (tools/build_opening_book.py).
EARLY_STOP = True


class _Tally:
    """Per action, running weighted sums of its value per world and of the products of the values of the
    actions still in play, so that the paired standard error of two actions' difference is known after
    every world at a cost of a few multiplications per pair. ``offsets`` are constants added to each
    action's mean (a bid's caution). An action is solved in a world only while ``alive``; a dropped one
    keeps its mean and noise of the moment it was dropped."""

    def __init__(self, actions: int, offsets: list[float] | None = None) -> None:
        self.actions = actions
        self.offsets = offsets or [0.0] * actions
        self.worlds = 0
        self.weight = 0.0
        self.weight_squares = 0.0
        self.sums = [0.0] * actions
        self.products = [[0.0] * actions for _ in range(actions)]
        self.alive = [True] * actions
        # per dropped action: (its mean with offset, the noise of its difference from the best, its worlds)
        self.dropped: dict[int, tuple[float, float, int]] = {}

    def add(self, values: list[float], weight: float = 1.0) -> None:
        """One world's values (any number for a dropped action: it is not read)."""
        self.worlds += 1
        self.weight += weight
        self.weight_squares += weight * weight
        sums, products, alive = self.sums, self.products, self.alive
        for i in range(self.actions):
            if not alive[i]:
                continue
            weighted = weight * values[i]
            sums[i] += weighted
            row = products[i]
            for j in range(i, self.actions):
                if alive[j]:
                    row[j] += weighted * values[j]

    def _effective(self) -> float:
        return self.weight * self.weight / self.weight_squares if self.weight_squares > 0 else 0.0

    def _means(self) -> list[float]:
        return [self.sums[i] / self.weight + self.offsets[i] for i in range(self.actions)]

    def _best(self, means: list[float]) -> int:
        return max((i for i in range(self.actions) if self.alive[i]), key=means.__getitem__)

    def _spread(self, best: int, i: int) -> tuple[float, float]:
        """The gap best - i (offsets included) and its standard error."""
        total = self.weight
        effective = self._effective()
        products = self.products
        low, high = min(i, best), max(i, best)
        # Weighted mean of the squared difference per world, less the squared mean difference: the
        # weighted variance of the difference (offsets do not vary).
        square = (products[best][best] - 2 * products[low][high] + products[i][i]) / total
        raw = (self.sums[best] - self.sums[i]) / total
        variance = max(0.0, square - raw * raw)
        if effective <= 1 + 1e-9:
            return raw + self.offsets[best] - self.offsets[i], 0.0
        variance *= effective / (effective - 1)
        return raw + self.offsets[best] - self.offsets[i], math.sqrt(variance / effective)

    def settled(self, z: float = STOP_Z, min_worlds: int = STOP_MIN_WORLDS) -> bool:
        """Drop the actions clearly worse than the best; is the best clear (see ``STOP_Z``)?"""
        if not EARLY_STOP or self.worlds < min_worlds or self.weight <= 0 or self._effective() <= 1 + 1e-9:
            return False
        means = self._means()
        best = self._best(means)
        clear = True
        for i in range(self.actions):
            if i == best or not self.alive[i]:
                continue
            gap, noise = self._spread(best, i)
            # Values move in whole game points: two actions equal in every world so far may still differ
            # in one world of n, so the noise is never taken below 1/n (a difference no world showed yet).
            if gap > z * max(noise, 1 / self.worlds):
                self._drop(i, means[i], noise)
            else:
                clear = False
        return clear

    def _drop(self, i: int, mean: float, noise: float) -> None:
        self.alive[i] = False
        self.dropped[i] = (mean, noise, self.worlds)

    def evaluations(self, actions: list[Action], with_noise: bool = True) -> list[Evaluation]:
        """Each action's mean (offset included), worlds and the standard error of its difference from the
        best still in play (0 without ``with_noise``: ``best_action`` then takes the best mean outright)."""
        if not with_noise:
            return [Evaluation(e.action, e.value, e.worlds) for e in self.evaluations(actions)]
        if self.worlds == 0 or self.weight <= 0:
            return [Evaluation(action, self.dropped.get(i, (0.0,))[0], 0) for i, action in enumerate(actions)]
        means = self._means()
        best = self._best(means)
        out = []
        for i, action in enumerate(actions):
            if i in self.dropped:
                mean, noise, worlds = self.dropped[i]
                out.append(Evaluation(action, mean, worlds, noise))
            else:
                noise = 0.0 if i == best else self._spread(best, i)[1]
                out.append(Evaluation(action, means[i], self.worlds, noise))
        return out


# --- worlds --------------------------------------------------------------------------------------------


class _Budget:
    """Search nodes left for one decision, shared by all the solvers it uses."""

    def __init__(self, nodes: int, model_base: int | None = None) -> None:
        self.left = nodes
        self.first_world = FIRST_WORLD_FACTOR * nodes
        self.model = bidder.Meter()
        self.model_allowance = MODEL_FACTOR * (nodes if model_base is None else model_base)

    def model_spent(self) -> bool:
        return self.model.nodes >= self.model_allowance

    def solve(self, solver: Solver, pos: Position, first: bool, guess: int | None = None) -> int:
        """Solve within the budget; the first world may overrun it up to ``FIRST_WORLD_FACTOR`` times.
        With a ``guess``, by null-window searches converging from it (``Solver.solve_mtd``)."""
        before = solver.nodes
        allowed = self.left + self.first_world if first else self.left
        solver.node_limit = before + max(0, allowed)
        try:
            return solver.solve(pos) if guess is None else solver.solve_mtd(pos, guess)
        finally:
            self.left -= solver.nodes - before


def _worlds(sampler: Sampler, limit: int = ENUMERATE_LIMIT):  # type: ignore[no-untyped-def]
    """All consistent worlds when few remain, else an endless stream of samples."""
    if sampler.weight is not None:
        for _ in range(MAX_WORLDS):
            hands = sampler.draw_weighted()
            if hands is None:
                return
            yield hands
        return
    exact = sampler.enumerate(limit)
    if exact is not None:
        yield from exact
        return
    for _ in range(MAX_WORLDS):
        yield sampler.draw()


def _declarer_plausible(
    knowledge: Knowledge, declarer: int | None, contract: Contract | None, trump: str | None
) -> Plausible | None:
    """A check that the declarer's dealt hand in a world looks like one that bids his contract."""
    if declarer is None or contract is None or contract is C.NORMAL or declarer == knowledge.seat:
        return None

    # Samples of a decision often deal him the same hand: each hand is judged once.
    judged: dict[int, bool] = {}

    def plausible(hands: list[int]) -> bool:
        dealt = knowledge.dealt_mask(declarer, hands[declarer])
        fits = judged.get(dealt)
        if fits is None:
            fits = judged[dealt] = greedy.hand_fits(dealt, contract, trump, strict=False)
        return fits

    return plausible


# --- card play -----------------------------------------------------------------------------------------


def position_of(view: PlayerView, table: Table, hands: list[int]) -> Position:
    """The view's moment of play in a world with the given hands."""
    points, tricks, marriages = [0, 0], [0, 0], [0, 0]
    plays = list(view.witnessed)
    size = table.players
    for start in range(0, len(plays), size):
        trick = [(seat, INDEX[card]) for seat, card in plays[start : start + size]]
        winner, _ = trick_winner(table, trick)
        points[winner & 1] += sum(POINTS[card] for _, card in trick)
        tricks[winner & 1] += 1
    for marriage in view.marriages:
        marriages[marriage.seat & 1] += marriage.value
    trick_now = [(seat, INDEX[card]) for seat, card in view.trick]
    assert view.to_act is not None
    return Position(list(hands), view.to_act, trick_now, len(plays) // size + 1, points, tricks, marriages)


def _evaluate_play(
    view: PlayerView, rules: Ruleset, rng: random.Random, budget_nodes: int
) -> list[Evaluation]:
    table = table_of(view, rules)
    assert table is not None and view.seat is not None
    knowledge = gather(view, rules)
    plausible = _declarer_plausible(knowledge, table.declarer, table.contract, view.trump)
    sampler = Sampler(knowledge, rng, plausible)
    likelihood = (
        _play_likelihood(view, rules, table) if table.contract is C.NORMAL and GREEDY_AGREEMENT else None
    )
    named = _trump_likelihood(view, knowledge) if table.contract is C.NORMAL and TRUMP_AGREEMENT else None
    sign = (1 if team_of(view.seat) == 0 else -1) * view.multiplier
    moves = [(INDEX[a.card], a.marriage or 0) for a in view.legal if isinstance(a, PlayCard)]
    budget = _Budget(budget_nodes)
    solver = Solver(table)
    guess = 1
    exact = sampler.enumerate(ENUMERATE_LIMIT)
    weighing = likelihood is not None or named is not None
    rejecting = exact is None and REJECTION_DRAWS is not None and weighing
    draws = (REJECTION_DRAWS or MAX_WORLDS) if rejecting else MAX_WORLDS

    def weighed() -> Iterator[tuple[list[int], float]]:
        for hands in exact if exact is not None else (sampler.draw() for _ in range(draws)):
            weight = 1.0
            if rejecting:
                budget.left -= DRAW_NODES
            if likelihood is not None:
                weight, judged = likelihood(hands)
                budget.left -= (PLAY_MODEL_NODES if PLAY_MODEL else GREEDY_NODES) * judged
            if named is not None:
                named_weight, new_hand = named(hands)
                weight *= named_weight
                budget.left -= TRUMP_NODES * new_hand
            yield hands, weight

    stream = _rejection_control(weighed(), rng, budget) if rejecting else weighed()
    tally = _Tally(len(moves))
    worlds = 0
    # A move changes only the public state and the hand of the seat to act, which every world shares: each
    # move is played once, on the tricks so far, and a world only brings the other seats' hands (the
    # solver copies the hands it is given and changes nothing else of a position).
    me = view.seat
    after: list[
        tuple[int | None, Position, int]
    ] = []  # per move: the hand ends with this value, or the position after it (its hands per world)
    for card, marriage in moves:
        moved = position_of(view, table, [0, 0, 0, 0])
        moved.hands[me] = mask_of(view.hand)
        ended = apply_move(table, moved, card, marriage)
        after.append((ended, moved, moved.hands[me]))
    for hands, weight in stream:
        last, first_value = guess, None
        world = list(hands)
        try:
            values: list[float] = []
            for alive, (ended, pos, held) in zip(tally.alive, after, strict=True):
                if not alive:
                    values.append(0.0)  # dropped: not read
                    continue
                if ended is None:
                    world[me] = held
                    pos.hands = world
                    # Null-window searches from the last value found: a world's moves mostly share it.
                    ended = budget.solve(solver, pos, worlds == 0, last)
                last = ended
                first_value = ended if first_value is None else first_value
                values.append(sign * ended)
        except SearchAborted:
            break
        guess = first_value if first_value is not None else guess
        worlds += 1
        tally.add(values, weight)
        if budget.left <= 0 or worlds >= MAX_WORLDS or tally.settled():
            break
    return tally.evaluations(list(view.legal))


def _rejection_control(
    weighed: Iterator[tuple[list[int], float]], rng: random.Random, budget: _Budget | None = None
) -> Iterator[tuple[list[int], float]]:
    """The weighed worlds kept (``REJECTION_DRAWS``), each with the weight it then counts at: a world is
    kept with the chance its weight bears to the highest weight drawn so far, and counts at that ceiling.
    The first ``REJECTION_WARMUP`` draws set the ceiling before any is kept. Stops at the draws' end or
    when the ``budget`` is spent."""
    head = list(islice(weighed, REJECTION_WARMUP))
    ceiling = max((weight for _, weight in head), default=0.0)
    for hands, weight in chain(head, weighed):
        ceiling = max(ceiling, weight)
        if weight >= ceiling * rng.random():
            yield hands, ceiling
        elif budget is not None and budget.left <= 0:
            return


# Greedy's card and the cards it chose from (None when forced) per deal, seat, its cards and the public
# moment (``_play_likelihood``), kept for the decisions that follow, up to this many (then forgotten at once).
JUDGEMENTS_KEPT = 50_000
_judgements: dict[tuple[object, ...], tuple[str, int] | dict[str, float] | None] = {}


@dataclass(frozen=True, slots=True)
class _Moment:
    """A seat's moment of play as greedy reads it (``greedy.Moment``)."""

    seat: int
    trump: str | None
    hand: tuple[str, ...]
    trick: tuple[tuple[int, str], ...]
    witnessed: tuple[tuple[int, str], ...]
    legal: tuple[Action, ...]


def _play_likelihood(
    view: PlayerView, rules: Ruleset, table: Table
) -> Callable[[list[int]], tuple[float, int]] | None:
    """How likely a world makes the other seats' card choices so far (``GREEDY_AGREEMENT``), with each seat's
    cards then: those it holds in the world and those it played since; also how many choices had to be
    judged anew for it."""
    me = view.seat
    plays = [*view.witnessed, *view.trick]
    size = table.players
    # Per choice of another seat: its play number, seat, card, the cards it played from that one on, and the
    # public moment it chose in (the trick so far and the tricks before), the same in every world.
    choices = []
    played_since = [0, 0, 0, 0]
    announced = {(m.seat, m.suit, m.trick_no) for m in view.marriages}
    for number in range(len(plays) - 1, -1, -1):
        seat, card = plays[number]
        played_since[seat] |= 1 << INDEX[card]
        if seat != me:
            start = number - number % size
            trick, witnessed = tuple(plays[start:number]), tuple(plays[:start])
            # A King or Ober led without its marriage: the suit whose pair the seat did not hold.
            silent = (
                SUITS.index(card[0])
                if MARRIAGE_SILENCE is not None
                and not trick
                and card[1] in "KQ"
                and (seat, card[0], number // size + 1) not in announced
                else -1
            )
            choices.append((number, seat, card, played_since[seat], trick, witnessed, silent))
    if not choices:
        return None
    silence = MARRIAGE_SILENCE if MARRIAGE_SILENCE is not None else 1.0
    agreement = GREEDY_AGREEMENT or 1.0
    # (play number, the seat's cards then) -> greedy's card and the cards to choose from, or (with
    # ``PLAY_MODEL``) the chance of each card (None when forced)
    chosen: dict[tuple[int, int], tuple[str, int] | dict[str, float] | None] = {}
    modelled = PLAY_MODEL
    deal_key = (rules, table.contract, table.trump, table.declarer, table.sitting_out, modelled)

    def greedy_card(
        seat: int, held: int, trick: tuple[tuple[int, str], ...], witnessed: tuple[tuple[int, str], ...]
    ) -> tuple[str, int] | dict[str, float] | None:
        # The later decisions of a deal judge the same choices with the same cards again: the process
        # remembers the judgements (a function of the key alone) for the decisions after this one.
        key = (deal_key, seat, held, trick, witnessed)
        try:
            return _judgements[key]
        except KeyError:
            if len(_judgements) >= JUDGEMENTS_KEPT:
                _judgements.clear()
            judgement = _judgements[key] = judge(seat, held, trick, witnessed)
            return judgement

    def judge(
        seat: int, held: int, trick: tuple[tuple[int, str], ...], witnessed: tuple[tuple[int, str], ...]
    ) -> tuple[str, int] | dict[str, float] | None:
        if trick:
            led = INDEX[trick[0][1]]
            winning = trick_winner(table, [(s, INDEX[c]) for s, c in trick])[1]
            legal = [PlayCard(c) for c in cards_of(table.legal_mask(held, SUIT_OF[led], winning))]
        else:
            legal = [PlayCard(c) for c in cards_of(held)]
            for suit, value in table.marriage_options(seat, held, len(witnessed) // size + 1):
                legal += [PlayCard(c, value) for c in cards_of(held & KING_QUEEN[suit])]
        options = len({action.card for action in legal})
        if options == 1:
            return None  # a forced card says nothing
        then = _Moment(seat, view.trump, tuple(cards_of(held)), trick, witnessed, tuple(legal))
        action = greedy.play(then, rules, table)
        assert isinstance(action, PlayCard)
        if modelled:
            return playmodel.probabilities(playmodel.features(then, table, action.card))
        return action.card, options

    def likelihood(hands: list[int]) -> tuple[float, int]:
        weight = 1.0
        judged = 0
        for number, seat, card, since, trick, witnessed, silent in choices:
            held = hands[seat] | since
            if (
                silent >= 0
                and held & KING_QUEEN[silent] == KING_QUEEN[silent]
                and any(suit == silent for suit, _ in table.marriage_options(seat, held, number // size + 1))
            ):
                weight *= silence
            key = (number, held)
            if key not in chosen:
                chosen[key] = greedy_card(seat, held, trick, witnessed)
                judged += 1
            judgement = chosen[key]
            if isinstance(judgement, dict):
                weight *= judgement[card]
            elif judgement is not None:
                greedys, options = judgement
                weight *= agreement if greedys == card else (1 - agreement) / (options - 1)
        return weight, judged

    return likelihood


def _trump_likelihood(
    view: PlayerView, knowledge: Knowledge
) -> Callable[[list[int]], tuple[float, bool]] | None:
    """How likely a world's dealt hand of the forehand names the trump he named (``TRUMP_AGREEMENT``), and
    whether this decision judges that hand for the first time; None when nothing is to be learnt (no trump,
    a turned-up card, or the forehand is the seat itself)."""
    forehand = view.forehand
    if view.trump is None or view.aufschlag_card is not None or forehand is None or forehand == view.seat:
        return None
    suit = SUITS.index(view.trump)
    agreement = TRUMP_AGREEMENT or 1.0

    judged: set[int] = set()

    def likelihood(hands: list[int]) -> tuple[float, bool]:
        dealt = knowledge.dealt_mask(forehand, hands[forehand])
        new = dealt not in judged
        judged.add(dealt)
        return naming_probability(dealt, suit, agreement), new

    return likelihood


@lru_cache(maxsize=50_000)
def naming_probability(dealt: int, suit: int, agreement: float) -> float:
    """Chance that a forehand dealt ``dealt`` (five cards, any three of them his first) names ``suit`` as
    trump, naming greedy's suit with probability ``agreement`` and any other suit among the three alike.
    Greedy's rule (``greedy.trump_strength``) is counted here on card indices: the same order, three times
    faster in the card play's hot loop (a test holds the two together)."""
    cards = [card for card in range(20) if dealt >> card & 1]
    total = 0.0
    firsts = list(combinations(cards, 3))
    for first in firsts:
        strength: dict[int, tuple[int, int]] = {}
        for card in first:
            count, order = strength.get(SUIT_OF[card], (0, 0))
            strength[SUIT_OF[card]] = (count + 1, order + RANK_ORDER[card])
        if suit not in strength:
            continue  # a named trump is one of the first three cards' suits
        if len(strength) == 1:
            total += 1.0
            continue
        best = max(strength.values())
        tied = [s for s, value in strength.items() if value == best]
        other = (1 - agreement) / (len(strength) - 1)
        greedys = 1 / len(tied) if suit in tied else 0.0
        total += greedys * agreement + (1 - greedys) * other
    return total / len(firsts) if firsts else 1.0


# --- contracts from the first lead -----------------------------------------------------------------------


def play_out(rules: Ruleset, contract: Contract, trump: str, declarer: int, forehand: int,
             hands: list[int], solvers: dict[tuple[Contract, str, int], Solver], budget: _Budget,
             first: bool) -> int:  # fmt: skip
    """Signed base (NS positive) of ``contract`` played with every card visible, from the first lead."""
    if contract in IMMEDIATE_CONTRACTS:
        value = rules.contract_value(contract)
        return value if team_of(declarer) == 0 else -value
    key = (contract, trump, declarer)
    solver = solvers.get(key)
    if solver is None:
        solver = solvers[key] = Solver(bidder.contract_table(rules, contract, trump, declarer))
    pos = Position(list(hands), solver.table.first_leader(forehand), [], 1, [0, 0], [0, 0], [0, 0])
    return budget.solve(solver, pos, first)


def _evaluate_auction(
    view: PlayerView, rules: Ruleset, rng: random.Random, budget_nodes: int, quick: bool = False
) -> list[Evaluation]:
    """Each bid is worth its contract solved from the first lead in each world, less its caution; passing
    is worth the standing contract (the normal game when none stands). ``quick`` (a choice, not values): a
    bid the hand cannot make (``bidder.could_bid``, the bidder model's cheap necessary test, which the AI's
    own bids pass) is not solved and counts as ``NEVER``."""
    assert view.seat is not None and view.trump is not None
    me = view.seat
    knowledge = gather(view, rules)
    standing = next(((s, c) for s, c in reversed(view.auction) if c is not None), None)
    declarer, contract = standing or (None, None)
    tally = _Tally(len(view.legal), [-_caution(rules, action) for action in view.legal])
    if quick and BID_SCREEN:
        hand = list(view.hand)
        for i, action in enumerate(view.legal):
            if (
                isinstance(action, Bid)
                and action.contract not in IMMEDIATE_CONTRACTS
                and not bidder.could_bid(action.contract, view.trump, hand)
            ):
                tally._drop(i, NEVER, 0.0)
        if sum(tally.alive) == 1:
            return tally.evaluations(list(view.legal))
    plausible = _declarer_plausible(knowledge, declarer, contract, view.trump)
    sampler = Sampler(knowledge, rng, plausible)
    sign = 1 if team_of(me) == 0 else -1
    budget = _Budget(budget_nodes)
    solvers: dict[tuple[Contract, str, int], Solver] = {}
    for hands in _worlds(sampler):
        try:
            values: list[float] = []
            for alive, action in zip(tally.alive, view.legal, strict=True):
                if not alive:
                    values.append(0.0)  # dropped: not read
                    continue
                if isinstance(action, Bid):
                    contract, declarer = action.contract, me
                elif standing is not None:
                    declarer, contract = standing
                else:
                    contract, declarer = C.NORMAL, view.forehand
                first = tally.worlds == 0
                solved = play_out(
                    rules, contract, view.trump, declarer, view.forehand, hands, solvers, budget, first
                )
                values.append(sign * solved)
        except SearchAborted:
            break
        tally.add(values)
        if budget.left <= 0 or (AUCTION_EARLY_STOP and tally.settled(min_worlds=AUCTION_MIN_WORLDS)):
            break
    # Without noise, as before early stop: a bid is taken when its mean beats passing's, never given up
    # for greedy's choice among the near-equal (``best_action``; its caution is the bid's margin).
    return tally.evaluations(list(view.legal), with_noise=False)


def _caution(rules: Ruleset, action: Action) -> float:
    """What a bid's solved mean loses before it counts: the family's optimism and risk margin."""
    if isinstance(action, Bid) and action.contract not in IMMEDIATE_CONTRACTS:
        family = family_of(action.contract)
        share = 2 * OPTIMISM.get(family, 0.0) + DECLARER_RISK.get(family, DECLARER_CAUTION)
        return share * rules.contract_value(action.contract)
    return 0.0


def predicted_made_rate(rules: Ruleset, contract: Contract, value: float) -> float:
    """The made rate a bid's evaluation ``value`` (for the declaring side) predicts: the risk margin added
    back, the family's optimism not."""
    worth = rules.contract_value(contract)
    risk = DECLARER_RISK.get(family_of(contract), DECLARER_CAUTION)
    return min(1.0, max(0.0, ((value / worth + risk) + 1) / 2))


def _bidder_weight(
    rules: Ruleset, knowledge: Knowledge, declarer: int, contract: Contract, trump: str | None, forehand: int,
    meter: bidder.Meter | None = None,
) -> Weight:  # fmt: skip
    """The bidder model as a sampler weight: how likely the declarer's dealt hand in a world bids."""

    def weight(hands: list[int]) -> float:
        dealt = knowledge.dealt_mask(declarer, hands[declarer])
        return bidder.hand_bids(rules, contract, trump, declarer, forehand, dealt, meter)

    return weight


def _reply_probability(rate: float) -> float:
    """How likely a declarer with make rate ``rate`` answers a Kontra with Re (the AI's own Re rule)."""
    return 1 / (1 + math.exp(-(rate - RE_RATE) / bidder.BID_SPREAD))


def doubling_stake(rules: Ruleset, contract: Contract) -> float:
    """The contract value a doubling margin is a share of (the normal game counts as 3)."""
    return 3 if contract is C.NORMAL else rules.contract_value(contract)


def doubling_margin(contract: Contract, defending: bool) -> float:
    """The share of ``doubling_stake`` by which doubling must beat passing: a double is said when
    (doubled mean - mean) / stake > this margin, per unit of the multiplier already standing."""
    # The declaring side answers a Kontra knowing that the defenders expect to beat the contract, so its
    # margin is larger.
    if not defending:
        return RE_MARGIN
    if contract is C.NORMAL:
        return DOUBLE_MARGIN
    if contract in BEGGAR_CONTRACTS:
        return BEGGAR_DOUBLE_MARGIN
    if family_of(contract) == SCHNAPSER:
        return SCHNAPSER_DOUBLE_MARGIN
    return ALL_TRICKS_DOUBLE_MARGIN


def _evaluate_doubling(
    view: PlayerView, rules: Ruleset, rng: random.Random, budget_nodes: int
) -> list[Evaluation]:
    """Kontra, Re or Subkontra against passing, valued with the reply the double invites: a Kontra
    against a bid contract is answered by Re in the worlds where the declarer's hand is strong (``Re`` at
    ``RE_RATE``), so those worlds count at four times the stake. Worlds come from the bidder model.

    Against a bid contract the bidder model's searches cost most of the decision, and most Kontras are not
    said: a screen first values the double on worlds drawn without the model (the declarer's hand only
    plausible, so weaker than the bid says: the defenders' results flatter them) and without the declarer's
    Re (which a strong hand says, in the worlds the defenders lose). When passing is clearly better even
    so (``_Tally.settled``), the screen's values are the answer; else the model's worlds decide."""
    assert view.seat is not None and view.contract is not None and view.declarer is not None
    assert view.trump is not None
    me, contract, declarer = view.seat, view.contract, view.declarer
    knowledge = gather(view, rules)
    defending = team_of(me) != team_of(declarer)
    modelled = contract is not C.NORMAL and declarer != me and defending
    if modelled:
        screen_nodes = budget_nodes * DOUBLING_SCREEN_PERCENT // 100
        sampler = Sampler(knowledge, rng, _declarer_plausible(knowledge, declarer, contract, view.trump))
        screened, settled = _doubling_worlds(view, rules, knowledge, sampler, _Budget(screen_nodes), True)
        passing = next((e.value for e in screened if not isinstance(e.action, Double)), None)
        if settled and passing is not None and all(e.value <= passing for e in screened):
            return screened
        budget = _Budget(budget_nodes - screen_nodes)
        weight = _bidder_weight(rules, knowledge, declarer, contract, view.trump, view.forehand, budget.model)
        sampler = Sampler(knowledge, rng, weight=weight, exhausted=budget.model_spent)
    else:
        budget = _Budget(budget_nodes)
        sampler = Sampler(knowledge, rng, _declarer_plausible(knowledge, declarer, contract, view.trump))
    return _doubling_worlds(view, rules, knowledge, sampler, budget)[0]


# The share of a Kontra decision's budget (against a bid contract) its screen without the model may use.
DOUBLING_SCREEN_PERCENT = 40


def _doubling_worlds(
    view: PlayerView, rules: Ruleset, knowledge: Knowledge, sampler: Sampler, budget: _Budget,
    flattering: bool = False,
) -> tuple[list[Evaluation], bool]:  # fmt: skip
    """The doubling decision's values over the sampler's worlds, and whether the best was clear before the
    budget ran out. ``flattering``: the declarer never answers with Re."""
    assert view.seat is not None and view.contract is not None and view.declarer is not None
    assert view.trump is not None
    me, contract, declarer = view.seat, view.contract, view.declarer
    defending = team_of(me) != team_of(declarer)
    modelled = contract is not C.NORMAL and declarer != me and defending
    sign = 1 if team_of(me) == 0 else -1
    multiplier = view.multiplier
    can_reply = multiplier * 4 <= rules.max_multiplier and (
        not defending or contract not in rules.re_forbidden
    )
    margin = doubling_margin(contract, defending)
    # A Kontra against the normal game is a strong hand speaking (right 12 times in 14 in self-play,
    # bench/ai_calibration.py, 300 deals): the side of the forehand never answers it with Re.
    never = not defending and contract is C.NORMAL
    doubles = [isinstance(action, Double) for action in view.legal]
    tally = _Tally(len(view.legal), [-multiplier * margin * doubling_stake(rules, contract) if d else 0.0
                                     for d in doubles])  # fmt: skip
    total = doubled_total = 0.0
    worlds = 0
    settled = False
    solvers: dict[tuple[Contract, str, int], Solver] = {}
    for hands in _worlds(sampler):
        try:
            value = sign * play_out(
                rules, contract, view.trump, declarer, view.forehand, hands, solvers, budget, worlds == 0
            )
        except SearchAborted:
            break
        reply = 0.0
        if flattering:
            pass  # no Re: a Re comes from a strong hand, in the worlds where the defenders lose
        elif can_reply and defending and modelled:
            dealt = knowledge.dealt_mask(declarer, hands[declarer])
            # The hand was weighed for this world, with the same search: the meter counts it once.
            rate = bidder.make_rate(rules, contract, view.trump, declarer, view.forehand, dealt, budget.model)
            reply = _reply_probability(rate)
        elif can_reply and not defending and value < 0:
            reply = SUBKONTRA_REPLY
        total += value
        doubled_total += 2 * value * (1 + reply)
        worlds += 1
        if not never:
            tally.add([multiplier * (2 * value * (1 + reply) if d else value) for d in doubles])
        settled = never or tally.settled()
        if budget.left <= 0 or (settled and worlds >= STOP_MIN_WORLDS):
            break
    mean = total / max(1, worlds)
    doubled_mean = doubled_total / max(1, worlds)
    doubled = NEVER if never else multiplier * (doubled_mean - margin * doubling_stake(rules, contract))
    evaluations = [
        Evaluation(action, doubled if d else multiplier * mean, worlds)
        for action, d in zip(view.legal, doubles, strict=True)
    ]
    return evaluations, settled


def _eligible_for_forehand(rules: Ruleset, dealt: list[str], trump: str) -> list[Contract]:
    """Contracts the forehand may bid with this hand and trump (mirrors engine.bidding.eligibility_problem)."""
    out = [C.BETTLER, C.SCHNAPSER, C.GANG, C.ZEHNERLOCH, C.BAUERNSCHNAPSER]
    if rules.ass_bettler and any(card[1] == "A" for card in dealt):
        out.append(C.ASS_BETTLER)
    if sum(card[0] == trump for card in dealt) == 5:
        out.append(C.TRUMPFFARBRINGERL)
    return out


def _evaluate_trump(
    view: PlayerView, rules: Ruleset, rng: random.Random, budget_nodes: int
) -> list[Evaluation]:
    """Each trump option is worth its mean over the worlds of the deal that follows: the normal game,
    solved in the world, or the contract the forehand would bid with that world's five cards. The contract
    is chosen from his own hand alone (``bidder.chosen_prospect``), never from the other hands of the world
    (no strategy fusion), and it is worth its expected value given that hand (v(2p - 1) from the bidder
    model's make rate, caution subtracted) rather than its result in this one world: the decision turns on
    differences of a fraction of a game point, and a contract's all-or-nothing result in one world is the
    noisiest term of the sum. Aufschlagen is worth the mean over the two cards it may turn, both solved in
    every world."""
    assert view.seat is not None
    me = view.seat
    knowledge = gather(view, rules)
    sampler = Sampler(knowledge, rng)
    sign = 1 if team_of(me) == 0 else -1
    per_world: list[list[float]] = []  # per world, the value of each option
    budget = _Budget(budget_nodes * TRUMP_FACTOR // WHOLE_DEAL_FACTOR, model_base=budget_nodes)
    solvers: dict[tuple[Contract, str, int], Solver] = {}
    seen = mask_of(view.hand)
    for hands in _trump_worlds(sampler, me, rng):
        held = hands[me]
        first = not per_world
        dealt = cards_of(held)
        named = {action.suit for action in view.legal if isinstance(action, ChooseTrump)}
        trumps = sorted(named | {card[0] for card in cards_of(held & ~seen)})  # sorted: reproducible
        try:
            by_trump = {
                trump: _trump_value(rules, trump, me, dealt, held, hands, solvers, budget, first)
                for trump in trumps
            }
        except SearchAborted:
            break
        values = []
        for action in view.legal:
            if isinstance(action, ChooseTrump):
                values.append(sign * by_trump[action.suit])
            else:  # either unseen card is turned, equally likely
                cards = cards_of(held & ~seen)
                values.append(sign * sum(by_trump[card[0]] for card in cards) / len(cards))
        per_world.append(values)
        if budget.left <= 0 or budget.model_spent():
            break
    return _with_noise(view, per_world)


def _trump_worlds(sampler: Sampler, me: int, rng: random.Random):  # type: ignore[no-untyped-def]
    """The worlds of a trump decision, in pairs that share the forehand's hand: the second deals the other
    fifteen cards afresh (nothing is known about them yet). The bidder model's make rates depend on his
    hand alone and cost more than the normal game's solve, so each is used for two worlds."""
    for hands in _worlds(sampler):
        yield hands
        others = [seat for seat in range(4) if seat != me]
        rest = [card for seat in others for card in range(20) if hands[seat] >> card & 1]
        rng.shuffle(rest)
        twin = list(hands)
        for i, seat in enumerate(others):
            twin[seat] = sum(1 << card for card in rest[5 * i : 5 * i + 5])
        yield twin


def _with_noise(
    view: PlayerView, per_world: list[list[float]], weights: list[float] | None = None
) -> list[Evaluation]:
    """Means over the worlds (weighted, where given), each with the standard error of its difference from
    the best (paired by world: the worlds are common to all options; weighted worlds count as their
    effective number)."""
    worlds = len(per_world)
    if weights is None:
        weights = [1.0] * worlds
    total = sum(weights)
    if total <= 0:
        return [Evaluation(action, 0.0, worlds) for action in view.legal]
    effective = total * total / sum(w * w for w in weights)
    weighted = list(zip(weights, per_world, strict=True))
    means = [sum(w * world[i] for w, world in weighted) / total for i in range(len(view.legal))]
    best = max(range(len(means)), key=means.__getitem__)
    evaluations = []
    for i, action in enumerate(view.legal):
        noise = 0.0
        if effective > 1 + 1e-9 and i != best:
            mean_gap = means[best] - means[i]
            spread = sum(w * (world[best] - world[i] - mean_gap) ** 2 for w, world in weighted)
            variance = spread / total * effective / (effective - 1)
            noise = math.sqrt(variance / effective)
        evaluations.append(Evaluation(action, means[i], worlds, noise))
    return evaluations


def _trump_value(rules: Ruleset, trump: str, me: int, dealt: list[str], held: int, hands: list[int],
                 solvers: dict[tuple[Contract, str, int], Solver], budget: _Budget, first: bool) -> float:  # fmt: skip
    """Signed base (NS positive) of the deal the forehand ``me`` plays with ``trump`` in this world."""
    eligible = _eligible_for_forehand(rules, dealt, trump)
    contract, expected = bidder.chosen_prospect(rules, eligible, trump, me, me, held, budget.model)
    if contract is None:
        return play_out(rules, C.NORMAL, trump, me, me, hands, solvers, budget, first)
    expected -= _caution(rules, Bid(contract))
    return expected if team_of(me) == 0 else -expected


__all__ = ["Evaluation", "best_action", "choose", "evaluate"]
