"""Build the opening book: the forehand's trump choice and first lead searched far longer than in play.

Run from anywhere:  python tools/build_opening_book.py [--part trumps|leads|both] [--workers N] [--out FILE]

For each of the forehand's 95 first packets of three cards (up to renaming suits) it builds the trump
choice's view, and for each of his 2526 hands with a named trump (up to renaming the other three suits;
``engine.ai.opening``) the first lead's view of a normal game, under the standard rules. It runs pimc's
search on each, without the book, with seed ``opening_book.SEED``: the first lead with
``opening_book.LEAD_WORLDS`` worlds, the trump choice with a budget of ``opening_book.TRUMP_BUDGET_MS``
(up to twice as many worlds). It writes every action's value and noise, and the worlds behind them, to
engine/ai/opening_book.py; ``--part`` rebuilds one part and keeps the other from the present book. The
leads took 26 minutes on 2 cores, the trump choices 5 (each with the other running beside it). Re-run it
after a change to pimc's search, its sampler or the solver (the trump choice also after a change to the
bidder model); tests/engine/ai/test_opening.py checks that a few entries are what the search gives now.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from itertools import combinations
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.actions import Aufschlagen, ChooseTrump, Pass  # noqa: E402  (needs ROOT on the path when run as a script)
from engine.ai import opening, opening_book, pimc  # noqa: E402
from engine.cards import DECK, SUITS  # noqa: E402
from engine.deal import new_deal  # noqa: E402
from engine.rules import apply_unchecked, legal_actions  # noqa: E402
from engine.ruleset import STANDARD, Ruleset  # noqa: E402
from engine.state import PLAY, DealState  # noqa: E402
from engine.views import PlayerView, view_for  # noqa: E402

BOOK_FILE = ROOT / "engine" / "ai" / "opening_book.py"
DEALER, FOREHAND = 0, 1
# Large enough that the cap on worlds, not the node budget, ends every first lead's search.
LEAD_BUDGET_MS = 100_000


def _in_deck_order(hands: set[str]) -> list[str]:
    return sorted(hands, key=lambda hand: [DECK.index(card) for card in hand.split()])


def lead_hands() -> list[str]:
    """Every first-lead hand the book holds, in the book's suits, sorted."""
    hands = set()
    for hand in combinations(DECK, 5):
        for trump in {card[0] for card in hand}:
            hands.add(opening.book_hand(hand, opening.canonical_suits(hand, trump)))
    return _in_deck_order(hands)


def trump_hands() -> list[str]:
    """Every first packet the book holds a trump choice for, in the book's suits, sorted."""
    return _in_deck_order(
        {opening.book_hand(hand, opening.canonical_trump_suits(hand)) for hand in combinations(DECK, 3)}
    )


def _deal(forehand_cards: tuple[str, ...], rules: Ruleset) -> DealState:
    """A deal in which the forehand holds these cards first; the others' cards in deck order (no view of
    the forehand shows them)."""
    rest = [card for card in DECK if card not in forehand_cards]
    forehand_hand = (*forehand_cards, *rest[15 : 15 + 5 - len(forehand_cards)])
    hands = [tuple(rest[0:5]), forehand_hand, tuple(rest[5:10]), tuple(rest[10:15])]
    return new_deal(rules, DEALER, tuple(hands))


def trump_view(hand: str, rules: Ruleset = STANDARD) -> PlayerView:
    """The forehand's trump choice with this first packet (space-separated cards)."""
    return view_for(_deal(tuple(hand.split()), rules), FOREHAND)


def first_lead_view(hand: str, trump: str | None = opening.BOOK_TRUMP, rules: Ruleset = STANDARD) -> PlayerView:
    """The forehand's first lead of a normal game with ``hand`` (space-separated cards, in the order dealt):
    he names ``trump`` (None: turns his fourth card up), everybody passes."""
    state = _deal(tuple(hand.split()), rules)
    choice = Aufschlagen() if trump is None else ChooseTrump(trump)
    while state.phase != PLAY:
        legal = legal_actions(state)
        action = choice if choice in legal else next(a for a in legal if isinstance(a, Pass))
        assert state.to_act is not None
        state, _ = apply_unchecked(state, state.to_act, action)
    return view_for(state, FOREHAND)


def _line(hand: str, evaluations: list[pimc.Evaluation]) -> str:
    same = {suit: suit for suit in SUITS}  # the view is in the book's suits already
    worlds = max(e.worlds for e in evaluations)
    return opening.format_line(
        hand, worlds, [(opening.book_action(e.action, same), e.value, e.noise) for e in evaluations]
    )


def lead_line(hand: str) -> str:
    """The book's line for a first lead: pimc's search with ``LEAD_WORLDS`` worlds, without the book."""
    view = first_lead_view(hand)
    assert opening.applies(view, STANDARD), hand
    evaluations = pimc.evaluate(view, STANDARD, opening_book.SEED, LEAD_BUDGET_MS, book=False)
    assert all(e.worlds == opening_book.LEAD_WORLDS for e in evaluations), hand
    return _line(hand, evaluations)


def trump_line(hand: str) -> str:
    """The book's line for a trump choice: pimc's search with ``TRUMP_BUDGET_MS`` (within the raised cap on
    worlds), without the book."""
    view = trump_view(hand)
    assert opening.applies_trump(view, STANDARD), hand
    return _line(hand, pimc.evaluate(view, STANDARD, opening_book.SEED, opening_book.TRUMP_BUDGET_MS, book=False))


def use_book_worlds() -> None:
    """Raise the search's cap on worlds (``pimc.MAX_WORLDS``) to the book's: a first lead solves that many;
    a trump choice, whose worlds come in pairs, up to twice as many within its budget. No early stop: the
    book is a reference search."""
    pimc.MAX_WORLDS = opening_book.LEAD_WORLDS
    pimc.EARLY_STOP = False


def lines(search: Callable[[str], str], hands: list[str], workers: int) -> Iterator[str]:
    with Pool(workers, initializer=use_book_worlds) as pool:
        for done, line in enumerate(pool.imap(search, hands, chunksize=2), 1):
            if done % 100 == 0:
                print(f"{done} of {len(hands)}", file=sys.stderr, flush=True)
            yield line


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--part", choices=("trumps", "leads", "both"), default="both")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, default=BOOK_FILE)
    args = parser.parse_args()
    trumps, leads = opening_book.TRUMPS, opening_book.LEADS
    if args.part in ("trumps", "both"):
        trumps = "".join(line + "\n" for line in lines(trump_line, trump_hands(), args.workers))
    if args.part in ("leads", "both"):
        leads = "".join(line + "\n" for line in lines(lead_line, lead_hands(), args.workers))
    args.out.write_text(
        '"""Generated by tools/build_opening_book.py; do not edit (see engine/ai/opening.py).\n\n'
        "Each line: a hand in the book's suits (``opening.canonical_trump_suits`` for a trump choice,\n"
        "``opening.canonical_suits`` with trump H for a first lead), the worlds its search solved, and per\n"
        "legal action its value and the standard error of its difference from the best, in thousandths of\n"
        'a game point for the forehand\'s team."""\n\n'
        f"LEAD_WORLDS = {opening_book.LEAD_WORLDS}\n"
        f"TRUMP_BUDGET_MS = {opening_book.TRUMP_BUDGET_MS}\n"
        f"SEED = {opening_book.SEED}\n"
        f'TRUMPS = """\\\n{trumps}"""\n'
        f'LEADS = """\\\n{leads}"""\n'
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
