"""AI CPU time per decision and per deal with three AI seats: this tree against an older commit, one run.

Every deal of the fixed list (bench/data/deals.jsonl) is played twice, once with this tree's ``pimc`` at three
seats and once with the ``pimc`` of ``--opponent-ref`` there (served by bench/ai_ref_server.py from a
temporary worktree, as bench/ai_match.py does). The fourth seat, the person of a one-person table, plays
greedy and rotates with the deal (deal i: seat i % 4), so every seat, the forehand's trump choice included,
is an AI seat in three deals of four. Both trees answer from server processes of their own (one per tree
and worker, bench/ai_ref_server.py), which time each decision by the process CPU time
(``time.process_time``) of ``choose_action``, so the load of the machine hardly moves the figures and both
trees are timed alike; a lone legal action is not a decision. Prints per tree and kind (trump, bid,
Kontra/Re, card by trick) the decisions and their CPU p50/p95, the CPU per deal (its three AI seats) mean
and p95, and the ratio of the means (this tree / reference).

    python bench/ai_cost.py --deals 200 --opponent-ref b897e3b --budget-ms 150
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench.ai_match as match
from engine.ai.arena import Hands, load_deals, play_deal

KINDS = ("trump", "auction", "doubling", "card1", "card2", "card3", "card4")
LABEL = {"auction": "bid", "doubling": "kontra/re"}


_servers: dict[str, subprocess.Popen[str]] = {}


def _start_servers(roots: dict[str, str]) -> None:
    """Worker initializer: per worker one server process per tree (bench/ai_ref_server.py), so both trees'
    decisions are timed alike, each in a process of its own that does nothing else."""
    for name, root in roots.items():
        _servers[name] = match.start_server(root)


def person_seat(index: int) -> int:
    return index % 4


def _played(
    tree: str, seed: int, dealer: int, hands: Hands, person: int, budget_ms: int
) -> list[tuple[str, float]]:
    """One deal with ``tree``'s pimc at the three AI seats: (kind, CPU ms) per AI decision."""
    replies: list[dict[str, Any]] = []
    players = cast(
        tuple[str, str, str, str], tuple("greedy" if seat == person else "ai" for seat in range(4))
    )
    chooser = match._ref_choose("pimc", replies, _servers[tree])
    play_deal(hands, dealer, seed, players, budget_ms=budget_ms, choosers={"ai": chooser})
    return [(reply["kind"], reply["cpu_ms"]) for reply in replies]


def _one(
    task: tuple[int, tuple[int, int, Hands], int],
) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    index, (seed, dealer, hands), budget_ms = task
    person = person_seat(index)
    return (
        _played("this", seed, dealer, hands, person, budget_ms),
        _played("ref", seed, dealer, hands, person, budget_ms),
    )


def percentile(values: list[float], share: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(share * len(values)) - 1))] if values else 0.0


def summary(per_deal: list[list[tuple[str, float]]]) -> dict[str, object]:
    by_kind: dict[str, list[float]] = defaultdict(list)
    for costs in per_deal:
        for kind, cpu in costs:
            by_kind[kind].append(cpu)
    totals = [sum(cpu for _, cpu in costs) for costs in per_deal]
    out: dict[str, object] = {
        LABEL.get(kind, kind): {
            "decisions": len(by_kind[kind]),
            "cpu_ms_p50": round(percentile(by_kind[kind], 0.5), 1),
            "cpu_ms_p95": round(percentile(by_kind[kind], 0.95), 1),
            "cpu_ms_mean": round(sum(by_kind[kind]) / len(by_kind[kind]), 1),
        }
        for kind in KINDS
        if by_kind[kind]
    }
    out["per_deal_3_ai_seats_ms"] = {
        "mean": round(sum(totals) / len(totals), 1),
        "p50": round(percentile(totals, 0.5), 1),
        "p95": round(percentile(totals, 0.95), 1),
    }
    out["per_decision_ms_mean"] = round(sum(totals) / max(1, sum(len(c) for c in per_deal)), 1)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--first-deal", type=int, default=0)
    parser.add_argument("--budget-ms", type=int, default=150)
    parser.add_argument("--opponent-ref", metavar="GITREF", default="b897e3b")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--raw", help="write one JSON line per deal (both trees' decisions) here")
    args = parser.parse_args()
    deals = load_deals(str(match.DEALS))[args.first_deal : args.first_deal + args.deals]
    tasks = [(args.first_deal + i, deal, args.budget_ms) for i, deal in enumerate(deals)]
    root = match._worktree(args.opponent_ref)
    started = time.perf_counter()
    try:
        roots = {"this": str(match.ROOT), "ref": root}
        with ProcessPoolExecutor(args.workers, initializer=_start_servers, initargs=(roots,)) as pool:
            results = []
            for result in pool.map(_one, tasks):
                results.append(result)
                match.report_progress(len(results), started)
    finally:
        match._remove_worktree(root)
    if args.raw:
        with open(args.raw, "w", encoding="utf-8") as handle:
            for (_, (seed, _, _), _), (mine, theirs) in zip(tasks, results, strict=True):
                handle.write(json.dumps({"deal": seed, "this": mine, "ref": theirs}) + "\n")
    this = summary([mine for mine, _ in results])
    ref = summary([theirs for _, theirs in results])
    mean_this = this["per_deal_3_ai_seats_ms"]["mean"]  # type: ignore[index]
    mean_ref = ref["per_deal_3_ai_seats_ms"]["mean"]  # type: ignore[index]
    report = {
        "deals": len(results),
        "first_deal": args.first_deal,
        "budget_ms": args.budget_ms,
        "person_seat": "greedy, seat deal % 4",
        "this_tree": this,
        f"ref_{args.opponent_ref}": ref,
        "ratio_per_deal": round(mean_this / mean_ref, 3) if mean_ref else None,
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
