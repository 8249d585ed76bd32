"""Stability of the AI's trump and bid choices.

1. Trump with King and Ober: over the fixed deals (bench/data/deals.jsonl), every forehand whose first three
   cards hold the King and Ober of one suit; how often the player names that suit (and what else it chose).
2. Agreement with a longer search: on the first ``--reference-deals`` deals, the deal is played in
   self-play up to the first card (trump, auction, doubling); every trump and bid decision with more than
   one legal action is also taken with ``--factor`` times the budget, and the share of equal choices is
   reported (``--first-deal`` moves the reference deals, e.g. to deals not used to tune the trump rule).
   The longer search never reads pimc's opening book (``engine.ai.opening``): it searches each decision
   itself, while the player takes the trump choice from the book as it does in play.

    python bench/ai_trump.py --deals 2000 --reference-deals 30 --budget-ms 150
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.deal_walk import walk_deal
from engine.actions import Action, Aufschlagen, ChooseTrump, format_action
from engine.ai import choose_action, pimc
from engine.ai.arena import load_deals
from engine.deal import new_deal
from engine.ruleset import STANDARD
from engine.state import AUCTION, TRUMP, DealState
from engine.views import PlayerView, view_for

DEALS = Path(__file__).resolve().parent / "data" / "deals.jsonl"


def _name(action) -> str:  # type: ignore[no-untyped-def]
    if isinstance(action, ChooseTrump):
        return action.suit
    if isinstance(action, Aufschlagen):
        return "aufschlagen"
    return str(action)


def king_ober(deals, player: str, budget_ms: int) -> dict[str, object]:  # type: ignore[no-untyped-def]
    named = 0
    others: Counter[str] = Counter()
    cases = 0
    for seed, dealer, hands in deals:
        state = new_deal(STANDARD, dealer, hands)
        view = view_for(state, state.to_act)
        suits = [s for s in "HDSC" if f"{s}K" in view.hand and f"{s}Q" in view.hand]
        if not suits:
            continue
        cases += 1
        action = choose_action(view, player, seed * 1000, budget_ms, STANDARD)
        if isinstance(action, ChooseTrump) and action.suit in suits:
            named += 1
        else:
            others[f"{' '.join(view.hand)} -> {_name(action)}"] += 1
    return {
        "hands": cases,
        "named_that_suit": named,
        "share": round(named / cases, 3) if cases else None,
        "otherwise": dict(others.most_common(20)),
    }


def agreement(deals, player: str, budget_ms: int, factor: int) -> dict[str, object]:  # type: ignore[no-untyped-def]
    same: Counter[str] = Counter()
    total: Counter[str] = Counter()
    seconds: Counter[str] = Counter()
    differ = []

    def choose(state: DealState, seat: int, view: PlayerView, key: int) -> Action:
        action = choose_action(view, player, key, budget_ms, STANDARD)
        if state.phase in (TRUMP, AUCTION):
            kind = "trump" if state.phase == TRUMP else "bid"
            started = time.perf_counter()
            reference = (
                pimc.choose(view, STANDARD, key, budget_ms * factor, book=False)
                if player == "pimc"
                else choose_action(view, player, key, budget_ms * factor, STANDARD)
            )
            seconds[kind] += time.perf_counter() - started
            total[kind] += 1
            if reference == action:
                same[kind] += 1
            else:
                differ.append(
                    f"{kind} {' '.join(view.hand)}: {format_action(seat, action)} vs {format_action(seat, reference)}"
                )
        return action

    for seed, dealer, hands in deals:
        walk_deal(seed, dealer, hands, choose, until_play=True)
    return {
        kind: {"decisions": total[kind], "agree": same[kind], "share": round(same[kind] / total[kind], 3)}
        for kind in total
    } | {"differing": differ[:30], "reference_seconds": {k: round(v, 1) for k, v in seconds.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--player", default="pimc")
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--reference-deals", type=int, default=30)
    parser.add_argument("--first-deal", type=int, default=0, help="the reference deals start here")
    parser.add_argument("--factor", type=int, default=10)
    parser.add_argument("--budget-ms", type=int, default=150)
    args = parser.parse_args()
    deals = load_deals(str(DEALS))
    report: dict[str, object] = {"player": args.player, "budget_ms": args.budget_ms}
    report["king_ober"] = king_ober(deals[: args.deals], args.player, args.budget_ms)
    if args.reference_deals:
        chosen = deals[args.first_deal : args.first_deal + args.reference_deals]
        report["reference"] = {
            "deals": args.reference_deals,
            "first_deal": args.first_deal,
            "factor": args.factor,
        } | agreement(chosen, args.player, args.budget_ms, args.factor)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
