"""CPU time of "Review my play" per deal: median, p95 and max.

Plays seeded deals of the full game (the fixed list in bench/data/) with greedy in every seat, then reviews
one seat's decisions in each deal the way the bot's coach does (``engine.ai.analysis.review``: pimc values
of every legal action at each decision with a choice, the coach's seed and budget) and measures the CPU
time of the review in this process (``time.process_time``: what the coach's worker spends, whatever else
the machine runs).

    python bench/coach_bench.py --deals 40 --budget-ms 150 --seat forehand
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import STANDARD, DealRecord, GameRecord, apply, format_action, new_deal, view_for
from engine.ai import analysis, choose_action
from engine.ai.arena import load_deals

DEALS = Path(__file__).resolve().parent / "data" / "deals.jsonl"


def percentile(sorted_values: list[float], share: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(share * len(sorted_values)) - 1))
    return sorted_values[index]


def greedy_record(dealer: int, hands: tuple[tuple[str, ...], ...]) -> GameRecord:
    """One deal played to its end by greedy in every seat, as a record whose first dealer is ``dealer``."""
    state = new_deal(STANDARD, dealer, hands)
    actions = []
    while not state.finished:
        seat = state.to_act
        assert seat is not None
        action = choose_action(view_for(state, seat), "greedy")
        actions.append(format_action(seat, action))
        state, _ = apply(state, seat, action)
    return GameRecord(STANDARD, dealer, (DealRecord(hands, tuple(actions)),))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--budget-ms", type=int, default=150, help="the coach's budget (Settings.coach_budget_ms)")
    parser.add_argument(
        "--seat", choices=("forehand", "N"), default="forehand",
        help="whose play is reviewed: the forehand (trump, bid and cards: the most decisions) or North",
    )  # fmt: skip
    args = parser.parse_args()
    seconds: list[float] = []
    decisions: list[int] = []
    for _seed, dealer, hands in load_deals(str(DEALS))[: args.deals]:
        record = greedy_record(dealer, hands)
        seat = (dealer + 1) % 4 if args.seat == "forehand" else 0
        started = time.process_time()
        judged = analysis.review(record, 0, seat, seed=0, budget_ms=args.budget_ms)
        seconds.append(time.process_time() - started)
        decisions.append(len(judged))
    ordered = sorted(seconds)
    print(
        f"review CPU time per deal ({len(seconds)} deals, seat {args.seat}, budget {args.budget_ms} ms):"
        f" median {statistics.median(ordered):.2f} s, p95 {percentile(ordered, 0.95):.2f} s,"
        f" max {ordered[-1]:.2f} s; decisions judged per deal: median {statistics.median(decisions):g},"
        f" max {max(decisions)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
