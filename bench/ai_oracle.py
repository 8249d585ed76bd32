"""How far the AI's card play is from playing with every card in view, and where it loses (issue 40).

Run from the repository root:

    python bench/ai_oracle.py --deals 600 --fresh-seed 2001000          # the ceiling: the oracle against pimc
    python bench/ai_oracle.py --deals 400 --fresh-seed 2100000 --where  # where pimc's choices lose
    python bench/ai_oracle.py --deals 200 --fresh-seed 2200000 --first-lead  # the first lead, played out
    python bench/ai_oracle.py --deals 400 --fresh-seed 3100000 --seer partner --at leads  # what knowing is worth
    python bench/ai_oracle.py --deals 600 --fresh-seed 3800000 --played-out-leads  # leads by real replies
    python bench/ai_oracle.py --deals 600 --fresh-seed 6000000 --reader  # leads with the plays read exactly

The oracle sees every hand and plays, at each of its turns, a card of the best value solved with open cards
in the true deal (the compiled solver, as pimc solves one world). In a duplicate match of the normal game
(``--mode normal`` of bench/ai_match.py: trump by greedy's rule, every bid and double passed) against the
shipped pimc, its margin is the most any method could gain by knowing more: a ceiling for issue 40's target.

``--where`` plays the normal game with pimc at every seat and values each card choice that has more than one
card with open cards in the true deal: the loss of a choice is the value of the best card less the value of
the card pimc chose (game points, times the multiplier). Its sum per deal, split by trick and by place in the
trick (0: the lead), says which decisions the missing knowledge costs; a loss that no method could avoid is
part of it, as the cards unseen may lie either way.

``--first-lead`` plays each legal first lead of a normal game out with pimc at every seat (the AI's real play,
not open cards): the opening book's lead against the lead best in hindsight (an upper bound, which one
play-out per lead flatters) and against simple rules.

``--seer WHAT`` plays a match of pimc that knows more than it sees against the shipped pimc (both seats of its
team), at the decisions ``--at`` names (every one, leads, follows, tricks 1-2, tricks 3-5, the first lead of
the deal or the leads after it; pimc as usual at the others). ``partner``, ``left`` and ``opponents`` put
those seats' hands among the cards everybody knows (the view's ``known_cards``, which the sampler deals as
they are; the opening book then does not apply and the first lead is searched). ``partner-aces``,
``partner-suits``, ``partner-trumps``, ``partner-trump-ace`` tell one fact of the partner's hand instead
(which Aces he holds, how many cards of each suit, how many trumps, whether the trump Ace), by keeping only
worlds that agree with it: the fact's check stands in for pimc's world filter (``pimc._declarer_plausible``,
which the normal game does not use), so it acts on sampled worlds (the sampler drops it after 40 failed draws)
and not on enumerated ones (at most 60 worlds, late in the deal); the first lead is then searched too, and
``none`` (a fact every world agrees with) measures what searching it costs. How much each fact is worth says
which knowledge of the others' cards an inference or a convention would have to deliver.

``--played-out-leads`` values the leads of tricks 2 and 3 not with open cards but by playing each out with pimc
at every seat (each seat choosing from what it sees, as in play) in ``--worlds`` worlds drawn as pimc draws them
(its inferences weighing them, rejection control keeping them): recursive Monte Carlo, one level deep. The lead
of the best mean is played where it beats pimc's own choice by more than one standard error of their paired
difference over the worlds, else pimc's; against the shipped pimc. A decision costs about two seconds, far
beyond a card decision's budget: this asks whether valuing leads by the others' real replies pays at all.

``--reader`` reads the plays perfectly at its leads of tricks 2 and 3: the worlds pimc draws count fully where
every other seat's earlier card choice is the one its pimc (the same search with the same seed) makes with that
world's cards, and barely (``UNREAD``) elsewhere, in place of pimc's play model. Every seat of the match plays
with its hand in deck order, so that a world reproduces a seat's choice where it gives the seat its real cards.
A lead decision costs about a second and a half (a pimc decision per earlier choice and hand a world gives):
this asks what the best reading of the plays could be worth, where the players read are the AI itself.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections import defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from itertools import islice
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.actions import Action, PlayCard
from engine.ai import choose_action, pimc
from engine.ai.arena import Hands, duplicate_pair, fixed_normal, fresh_deals, play_normal
from engine.ai.compact import BIT, INDEX, SUIT_MASK, apply_move, cards_of, mask_of
from engine.ai.knowledge import Sampler, gather, table_of
from engine.ai.pimc import position_of
from engine.ai.solver import Solver
from engine.cards import SUITS, team_of
from engine.deal import new_deal
from engine.rules import apply_unchecked, legal_actions
from engine.ruleset import STANDARD
from engine.state import PLAY, DealState
from engine.views import PlayerView, view_for

BUDGET_MS = 150


def open_card_values(state: DealState, seat: int) -> dict[Action, int]:
    """Each legal card of ``seat`` valued with every hand in view: the deal's exact value for its team after
    that card, all four seats playing perfectly on (game points times the multiplier)."""
    view = view_for(state, seat)
    table = table_of(view, STANDARD)
    assert table is not None
    hands = [mask_of(state.hands[s]) for s in range(4)]
    sign = (1 if team_of(seat) == 0 else -1) * view.multiplier
    solver = Solver(table)
    values: dict[Action, int] = {}
    for action in view.legal:
        assert isinstance(action, PlayCard)
        position = position_of(view, table, list(hands))
        ended = apply_move(table, position, INDEX[action.card], action.marriage or 0)
        values[action] = sign * (ended if ended is not None else solver.solve(position))
    return values


def replay(dealer: int, hands: Hands, history: list[tuple[int, Action]]) -> DealState:
    state = new_deal(STANDARD, dealer, hands)
    for seat, action in history:
        state, _ = apply_unchecked(state, seat, action)
    return state


def oracle(dealer: int, hands: Hands, history: list[tuple[int, Action]], seat: int, seed: int, budget_ms: int) -> Action:
    values = open_card_values(replay(dealer, hands, history), seat)
    return max(values, key=values.__getitem__)


def oracle_margin(deal: tuple[int, int, Hands]) -> float:
    seed, dealer, hands = deal
    margin, _ = duplicate_pair(hands, dealer, seed, "oracle", "pimc", True, BUDGET_MS, choosers={"oracle": oracle})
    return margin


def pimc_losses(deal: tuple[int, int, Hands]) -> list[tuple[int, int, int]]:
    """(trick, place in the trick, loss) of each of pimc's card choices with more than one card."""
    seed, dealer, hands = deal
    losses = []

    def valued(state: DealState, seat: int, decision: int) -> Action:
        view = view_for(state, seat)
        values = open_card_values(state, seat)
        action = choose_action(view, "pimc", seed * 1000 + decision, BUDGET_MS, STANDARD)
        losses.append((len(view.witnessed) // 4 + 1, len(view.trick), max(values.values()) - values[action]))
        return action

    play_normal(new_deal(STANDARD, dealer, hands), valued)
    return losses


def pimc_card(seed: int) -> Callable[[DealState, int, int], Action]:
    """pimc's card for a seat, seeded by the deal and the decision, as the matches seed it."""

    def card(state: DealState, seat: int, decision: int) -> Action:
        return choose_action(view_for(state, seat), "pimc", seed * 1000 + decision, BUDGET_MS, STANDARD)

    return card


def played_out(state: DealState, seed: int, decision: int) -> int:
    """The deal played to its end by pimc at every seat: game points for team 0 (N and S)."""
    result = play_normal(state, pimc_card(seed), decision).result
    assert result is not None
    return result.game_points if result.winner == 0 else -result.game_points


def first_lead_state(dealer: int, hands: Hands) -> tuple[DealState, int]:
    """The normal game's state at the first lead (trump by greedy's rule, every bid passed) and the number
    of decisions before it."""
    state, decision = new_deal(STANDARD, dealer, hands), 0
    while state.phase != PLAY:
        seat = state.to_act
        assert seat is not None
        state, _ = apply_unchecked(state, seat, fixed_normal(state, seat))
        decision += 1
    return state, decision


def lead_result(state: DealState, lead: Action, seed: int, decision: int) -> int:
    """The result for the leader's team of ``lead`` at ``state``, played out by pimc at every seat."""
    leader = state.to_act
    assert leader is not None
    after, _ = apply_unchecked(state, leader, lead)
    return (1 if team_of(leader) == 0 else -1) * played_out(after, seed, decision + 1)


def first_leads(deal: tuple[int, int, Hands]) -> tuple[Action, dict[Action, int], str]:
    """The opening book's first lead, each legal first lead's result for the leader's team, and trump."""
    seed, dealer, hands = deal
    state, decision = first_lead_state(dealer, hands)
    leader = state.to_act
    assert leader is not None and state.trump is not None
    book = choose_action(view_for(state, leader), "pimc", seed * 1000 + decision, BUDGET_MS, STANDARD)
    results = {lead: lead_result(state, lead, seed, decision) for lead in legal_actions(state)}
    return book, results, state.trump


SEEN_SEATS = {"partner": (2,), "left": (1,), "opponents": (1, 3)}  # seats seen, counted from the seer's
FACTS: dict[str, Callable[[int, int], object]] = {  # a fact of a hand (a mask) with trump (a suit's index)
    "none": lambda hand, trump: None,
    "partner-aces": lambda hand, trump: tuple(bool(hand & BIT[suit + "A"]) for suit in SUITS),
    "partner-suits": lambda hand, trump: tuple((hand & SUIT_MASK[suit]).bit_count() for suit in range(4)),
    "partner-trumps": lambda hand, trump: (hand & SUIT_MASK[trump]).bit_count(),
    "partner-trump-ace": lambda hand, trump: bool(hand & BIT[SUITS[trump] + "A"]),
}
MOMENTS: dict[str, Callable[[int, bool], bool]] = {  # (trick number, leading) -> does the seer know more?
    "all": lambda trick_no, leading: True,
    "leads": lambda trick_no, leading: leading,
    "follows": lambda trick_no, leading: not leading,
    "early": lambda trick_no, leading: trick_no <= 2,
    "late": lambda trick_no, leading: trick_no >= 3,
    "first-lead": lambda trick_no, leading: leading and trick_no == 1,
    "later-leads": lambda trick_no, leading: leading and trick_no >= 2,
}


def seer(what: str, at: str) -> Callable[[int, Hands, list[tuple[int, Action]], int, int, int], Action]:
    """pimc that also knows ``what`` (``--seer``) at the decisions ``at`` names."""

    def choose(dealer: int, hands: Hands, history: list[tuple[int, Action]], seat: int, seed: int, budget_ms: int) -> Action:
        state = replay(dealer, hands, history)
        view = view_for(state, seat)
        if not MOMENTS[at](len(view.witnessed) // 4 + 1, not view.trick):
            return choose_action(view, "pimc", seed, budget_ms, STANDARD)
        if what in SEEN_SEATS:
            known = list(view.known_cards)
            for offset in SEEN_SEATS[what]:
                known[(seat + offset) % 4] = tuple(state.hands[(seat + offset) % 4])
            return pimc.choose(replace(view, known_cards=tuple(known)), STANDARD, seed, budget_ms)
        fact, partner = FACTS[what], (seat + 2) % 4
        assert view.trump is not None
        trump = SUITS.index(view.trump)
        truth = fact(mask_of(state.hands[partner]), trump)
        def agreeing(*_: object) -> Callable[[list[int]], bool]:  # stands in for pimc's world filter
            return lambda world: fact(world[partner], trump) == truth

        with mock.patch.object(pimc, "_declarer_plausible", agreeing):
            return pimc.choose(view, STANDARD, seed, budget_ms, book=False)

    return choose


def seer_margin(task: tuple[tuple[int, int, Hands], str, str]) -> float:
    (seed, dealer, hands), what, at = task
    margin, _ = duplicate_pair(hands, dealer, seed, "seer", "pimc", True, BUDGET_MS, choosers={"seer": seer(what, at)})
    return margin


PLAYED_OUT_TRICKS = (2, 3)


def has_choice(view: PlayerView) -> bool:
    """Does the seat choose between two cards or more (a marriage announced or not is the same card)?"""
    return len({a.card for a in view.legal if isinstance(a, PlayCard)}) > 1


def lead_with_choice(view: PlayerView, tricks: tuple[int, ...]) -> bool:
    """Is this a lead of one of ``tricks`` with a choice?"""
    return not view.trick and len(view.witnessed) // 4 + 1 in tricks and has_choice(view)


def played_out_leads(worlds: int) -> Callable[[int, Hands, list[tuple[int, Action]], int, int, int], Action]:
    """pimc whose leads of ``PLAYED_OUT_TRICKS`` are valued by play-outs (``--played-out-leads``)."""

    def choose(dealer: int, hands: Hands, history: list[tuple[int, Action]], seat: int, seed: int, budget_ms: int) -> Action:
        state = replay(dealer, hands, history)
        view = view_for(state, seat)
        own = choose_action(view, "pimc", seed, budget_ms, STANDARD)
        if not lead_with_choice(view, PLAYED_OUT_TRICKS):
            return own
        table = table_of(view, STANDARD)
        assert table is not None
        knowledge = gather(view, STANDARD)
        rng = random.Random(seed)
        sampler = Sampler(knowledge, rng, None)
        likelihood = pimc._play_likelihood(view, STANDARD, table)
        named = pimc._trump_likelihood(view, knowledge)

        def weighed() -> Iterator[tuple[list[int], float]]:
            for _ in range(pimc.REJECTION_DRAWS or pimc.MAX_WORLDS):
                world = sampler.draw()
                weight = likelihood(world)[0] if likelihood is not None else 1.0
                yield world, weight * (named(world)[0] if named is not None else 1.0)

        played: list[tuple[str, ...]] = [(), (), (), ()]
        for who, card in view.witnessed:
            played[who] += (card,)
        results: dict[Action, list[int]] = {lead: [] for lead in view.legal}
        for number, (world, _) in enumerate(islice(pimc._rejection_control(weighed(), rng), worlds)):
            held = [tuple(state.hands[s]) if s == seat else tuple(cards_of(world[s])) for s in range(4)]
            imagined = state._replace(hands=tuple(held), dealt=tuple(played[s] + held[s] for s in range(4)))
            for lead in view.legal:
                results[lead].append(lead_result(imagined, lead, seed * 7 + number, 40 + number))
        if len(results[own]) < 4:
            return own
        best = max(view.legal, key=lambda lead: sum(results[lead]))
        gain, spread = interval([float(a - b) for a, b in zip(results[best], results[own], strict=True)])
        return best if gain > spread / 1.96 and gain > 0 else own

    return choose


def played_out_margin(task: tuple[tuple[int, int, Hands], int]) -> float:
    (seed, dealer, hands), worlds = task
    chooser = played_out_leads(worlds)
    margin, _ = duplicate_pair(hands, dealer, seed, "played-out", "pimc", True, BUDGET_MS, choosers={"played-out": chooser})
    return margin


READ_TRICKS = (2, 3)
UNREAD = 0.001  # the weight of a world in which a seat's pimc would not have played what it played


def in_deck_order(state: DealState) -> DealState:
    """``state`` with every hand in deck order. pimc's choice can depend on the order of the cards in hand (a
    tie goes to the first); the reader's match plays every seat in deck order, so that the cards a world gives
    a seat (in deck order too) reproduce its choice exactly where they are its real cards."""
    return state._replace(hands=tuple(tuple(sorted(hand, key=INDEX.__getitem__)) for hand in state.hands))


def pimc_in_deck_order(dealer: int, hands: Hands, history: list[tuple[int, Action]], seat: int, seed: int, budget_ms: int) -> Action:
    return choose_action(view_for(in_deck_order(replay(dealer, hands, history)), seat), "pimc", seed, budget_ms, STANDARD)


def exact_reading(
    dealer: int, dealt: Hands, history: list[tuple[int, Action]], me: int, first_seed: int, budget_ms: int
) -> Callable[..., Callable[[list[int]], tuple[float, int]] | None]:
    """A stand-in for ``pimc._play_likelihood`` that reads the other seats' card choices exactly: a world
    counts fully where every one of them is what pimc (their player here, with the seed it had) chooses with
    that world's cards, else at ``UNREAD``. The partner's leads of ``READ_TRICKS`` were the reader's own
    and are not read. Nothing is charged to the budget: this asks what perfect reading is worth."""
    choices = []  # (decision number, seat, action, the state then, the cards the seat played from then on)
    state = new_deal(STANDARD, dealer, dealt)
    for number, (seat, action) in enumerate(history):
        if isinstance(action, PlayCard):
            readers_lead = seat == (me + 2) % 4 and not state.trick and state.trick_no in READ_TRICKS
            if seat != me and not readers_lead:
                since = mask_of([a.card for s, a in history[number:] if s == seat and isinstance(a, PlayCard)])
                choices.append((number, seat, action, in_deck_order(state), since))
        state, _ = apply_unchecked(state, seat, action)
    verdicts: dict[tuple[int, int], bool] = {}
    shipped = pimc._play_likelihood  # the others read as pimc reads, not as this reader

    def chosen_alike(number: int, seat: int, action: Action, then: DealState, held: int) -> bool:
        key = (number, held)
        if key not in verdicts:
            hands = list(then.hands)
            hands[seat] = tuple(cards_of(held))
            view = view_for(then._replace(hands=tuple(hands)), seat)
            if not has_choice(view):
                verdicts[key] = True  # a forced card says nothing
            else:
                with mock.patch.object(pimc, "_play_likelihood", shipped):
                    verdicts[key] = choose_action(view, "pimc", first_seed + number, budget_ms, STANDARD) == action
        return verdicts[key]

    def stand_in(*_: object) -> Callable[[list[int]], tuple[float, int]] | None:
        def likelihood(hands: list[int]) -> tuple[float, int]:
            for number, seat, action, then, since in choices:
                if not chosen_alike(number, seat, action, then, hands[seat] | since):
                    return UNREAD, 0
            return 1.0, 0

        return likelihood if choices else None

    return stand_in


def reader(dealer: int, hands: Hands, history: list[tuple[int, Action]], seat: int, seed: int, budget_ms: int) -> Action:
    """pimc reading the other seats' plays exactly at its leads of ``READ_TRICKS`` (``--reader``)."""
    view = view_for(in_deck_order(replay(dealer, hands, history)), seat)
    if not lead_with_choice(view, READ_TRICKS):
        return choose_action(view, "pimc", seed, budget_ms, STANDARD)
    reading = exact_reading(dealer, hands, history, seat, seed - len(history), budget_ms)
    with mock.patch.object(pimc, "_play_likelihood", reading):
        return pimc.choose(view, STANDARD, seed, budget_ms)


def reader_margin(deal: tuple[int, int, Hands]) -> float:
    seed, dealer, hands = deal
    choosers = {"reader": reader, "pimc in deck order": pimc_in_deck_order}
    margin, _ = duplicate_pair(hands, dealer, seed, "reader", "pimc in deck order", True, BUDGET_MS, choosers=choosers)
    return margin


def interval(values: list[float]) -> tuple[float, float]:
    """The mean of ``values`` and the half-width of its 95% interval (normal approximation)."""
    mean = sum(values) / len(values)
    return mean, 1.96 * math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1) / len(values))


def report_match(player: str, margins: list[float], first_seed: int) -> None:
    """A duplicate match's result against pimc: ``player``'s margin per deal, game points per 100 deals."""
    mean, spread = interval(margins)
    print(
        f"{player} against pimc, normal game, {len(margins)} duplicate deals (seeds {first_seed}-"
        f"{first_seed + len(margins) - 1}): {100 * mean:+.2f} game points per 100 deals (95% CI "
        f"{100 * (mean - spread):+.2f} … {100 * (mean + spread):+.2f})"
    )


def report_first_leads(rows: list[tuple[Action, dict[Action, int], str]]) -> None:
    def card(action: Action) -> str:
        assert isinstance(action, PlayCard)
        return action.card

    rules = {
        "the opening book": lambda book, leads, trump: book,
        "the highest trump": lambda book, leads, trump: min(
            (lead for lead in leads if card(lead)[0] == trump), key=lambda lead: "ATKQJ".index(card(lead)[1]),
            default=book,
        ),
        "an Ace of a plain suit": lambda book, leads, trump: next(
            (lead for lead in leads if card(lead)[1] == "A" and card(lead)[0] != trump), book
        ),
        "a marriage announced": lambda book, leads, trump: next(
            (lead for lead in leads if isinstance(lead, PlayCard) and lead.marriage), book
        ),
    }
    book_results = [leads[book] for book, leads, _ in rows]
    best = sum(max(leads.values()) for _, leads, _ in rows) / len(rows)
    print(f"first leads played out by pimc, normal game, {len(rows)} deals: game points per deal for the leader's team")
    print(f"the lead best in hindsight: {best:+.3f}; the mean of all legal leads: "
          f"{sum(sum(leads.values()) / len(leads) for _, leads, _ in rows) / len(rows):+.3f}")
    for name, rule in rules.items():
        mean, spread = interval([leads[rule(book, leads, trump)] - leads[book] for book, leads, trump in rows])
        print(f"{name}: {sum(book_results) / len(rows) + mean:+.3f} (against the book {mean:+.3f} ± {spread:.3f})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=600)
    parser.add_argument("--fresh-seed", type=int, default=2001000, help="play deals from seeds SEED, SEED+1, ...")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--where", action="store_true", help="where pimc's choices lose, instead of the match")
    parser.add_argument("--first-lead", action="store_true", help="each first lead played out, instead")
    parser.add_argument("--seer", choices=(*SEEN_SEATS, *FACTS), help="pimc knowing more against pimc, instead")
    parser.add_argument("--at", choices=tuple(MOMENTS), default="all", help="where the seer knows more")
    parser.add_argument("--played-out-leads", action="store_true", help="leads valued by play-outs against pimc")
    parser.add_argument("--worlds", type=int, default=16, help="worlds per lead decision of --played-out-leads")
    parser.add_argument("--reader", action="store_true", help="leads with the others' plays read exactly, against pimc")
    args = parser.parse_args()
    deals = fresh_deals(args.fresh_seed, args.deals)
    with ProcessPoolExecutor(args.workers) as pool:
        if args.played_out_leads:
            margins = list(pool.map(played_out_margin, [(deal, args.worlds) for deal in deals], chunksize=2))
            report_match(f"leads of tricks 2-3 played out in {args.worlds} worlds", margins, args.fresh_seed)
            return 0
        if args.reader:
            margins = list(pool.map(reader_margin, deals, chunksize=2))
            report_match("pimc reading the plays exactly at its leads of tricks 2-3", margins, args.fresh_seed)
            return 0
        if args.seer:
            margins = list(pool.map(seer_margin, [(deal, args.seer, args.at) for deal in deals], chunksize=4))
            report_match(f"pimc knowing {args.seer} at {args.at} decisions", margins, args.fresh_seed)
            return 0
        if args.first_lead:
            report_first_leads(list(pool.map(first_leads, deals, chunksize=4)))
            return 0
        if not args.where:
            report_match("the open-card oracle", list(pool.map(oracle_margin, deals, chunksize=4)), args.fresh_seed)
            return 0
        rows = [row for losses in pool.map(pimc_losses, deals, chunksize=4) for row in losses]
    totals: defaultdict[tuple[str, int], list[float]] = defaultdict(lambda: [0, 0.0, 0])
    for trick, place, loss in rows:
        for key in (("trick", trick), ("place", place), ("all", 0)):
            total = totals[key]
            total[0] += 1
            total[1] += loss
            total[2] += loss > 0
    print(f"pimc's card choices valued with open cards, normal game, {args.deals} deals, {len(rows)} choices")
    print("| choices | count | loss per deal | loss per choice | choices that lose |")
    print("|---|---|---|---|---|")
    for kind, number in sorted(totals):
        count, lost, losing = totals[(kind, number)]
        name = "all" if kind == "all" else f"trick {number}" if kind == "trick" else f"place {number} in the trick"
        print(f"| {name} | {count:.0f} | {lost / args.deals:.3f} | {lost / count:.3f} | {losing / count:.1%} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
