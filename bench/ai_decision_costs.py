"""Where an AI decision's CPU time goes, per decision kind: the counted search (nodes of the budget), the
bidder model's searches (``bidder._make_rate``, the ones the process did not remember), and world sampling
(``Sampler.draw``/``draw_weighted``/``enumerate``, the model's searches excluded).

Plays the fixed deals (bench/data/deals.jsonl) in self-play in one process, as bench/ai_speed.py does, and
times each pimc decision by CPU time. ``--raw FILE`` writes one JSON line per decision (kind, times, nodes,
worlds, chosen action, values): two trees' files compare choice by choice (same deals, same seeds).

    python -S bench/ai_decision_costs.py --deals 30 --raw costs.jsonl

Run it with ``python -S`` (the engine needs no installed package) so that the engine of this tree is the
one imported, not an editable install of another tree; the script checks.
"""

from __future__ import annotations

import functools
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine.ai.bidder as bidder
import engine.ai.knowledge as knowledge
import engine.ai.pimc as pimc
from bench.deal_walk import deals_parser
from engine.ai.arena import load_deals, play_deal

ROOT = Path(__file__).resolve().parents[1]
DEALS = ROOT / "bench" / "data" / "deals.jsonl"
KIND = {"trump": "trump", "auction": "bid", "doubling": "kontra", "play": "card"}
clock = time.process_time
spent = {"model": 0.0, "sampling": 0.0}
budgets: list[object] = []


def _instrument() -> None:
    searched = bidder._make_rate.__wrapped__

    def make_rate_timed(*args):  # type: ignore[no-untyped-def]
        started = clock()
        try:
            return searched(*args)
        finally:
            spent["model"] += clock() - started

    bidder._make_rate = functools.lru_cache(maxsize=100_000)(make_rate_timed)  # type: ignore[assignment]
    for name in ("draw", "draw_weighted", "enumerate"):
        method = getattr(knowledge.Sampler, name)

        def timed(self, *args, _method=method):  # type: ignore[no-untyped-def]
            model_before, started = spent["model"], clock()
            try:
                return _method(self, *args)
            finally:
                spent["sampling"] += (clock() - started) - (spent["model"] - model_before)

        setattr(knowledge.Sampler, name, timed)
    budget_init = pimc._Budget.__init__

    def init(self, nodes, *args, **kwargs):  # type: ignore[no-untyped-def]
        budget_init(self, nodes, *args, **kwargs)
        self.granted = nodes
        budgets.append(self)

    pimc._Budget.__init__ = init  # type: ignore[method-assign]


def percentile(values: list[float], share: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(share * len(values)) - 1))]


def main() -> int:
    parser = deals_parser(__doc__)
    parser.add_argument("--raw", help="write one JSON line per decision here")
    args = parser.parse_args()
    if not Path(pimc.__file__).resolve().is_relative_to(ROOT):
        sys.exit(f"the engine comes from {pimc.__file__}, not from {ROOT}: run with python -S")
    _instrument()
    records = []
    evaluate = pimc.evaluate

    def measured(view, rules=None, seed=0, budget_ms=150, book=True, quick=False):  # type: ignore[no-untyped-def]
        spent["model"] = spent["sampling"] = 0.0
        budgets.clear()
        started = clock()
        evaluations = evaluate(view, rules, seed, budget_ms, book, quick)
        cpu = clock() - started
        records.append({
            "kind": KIND[view.phase],
            "cpu_ms": round(cpu * 1000, 2),
            "model_ms": round(spent["model"] * 1000, 2),
            "sampling_ms": round(spent["sampling"] * 1000, 2),
            "nodes": sum(b.granted - b.left for b in budgets),  # type: ignore[attr-defined]
            "budget": sum(b.granted for b in budgets),  # type: ignore[attr-defined]
            "model_nodes": sum(b.model.nodes for b in budgets if hasattr(b, "model")),  # type: ignore[attr-defined]
            "worlds": evaluations[0].worlds,
            "action": repr(pimc.best_action(view, evaluations, rules)),
            "values": [round(e.value, 6) for e in evaluations],
        })  # fmt: skip
        return evaluations

    pimc.evaluate = measured  # type: ignore[assignment]
    # As pimc.choose: a choice, not values (``quick``).
    pimc.choose = lambda view, rules=None, seed=0, budget_ms=150: pimc.best_action(  # type: ignore[assignment]
        view, measured(view, rules, seed, budget_ms, quick=True), rules
    )
    for seed, dealer, hands in load_deals(str(DEALS))[args.first_deal : args.first_deal + args.deals]:
        first = len(records)
        play_deal(hands, dealer, seed, ("pimc",) * 4, budget_ms=args.budget_ms)
        for record in records[first:]:
            record["deal"] = seed
    if args.raw:
        with open(args.raw, "w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(record) + "\n" for record in records)
    report: dict[str, object] = {
        "deals": args.deals,
        "first_deal": args.first_deal,
        "budget_ms": args.budget_ms,
    }
    for kind in ("card", "trump", "bid", "kontra"):
        chosen = [r for r in records if r["kind"] == kind]
        if not chosen:
            continue
        cpu = [r["cpu_ms"] for r in chosen]
        total = sum(cpu)
        report[kind] = {
            "decisions": len(chosen),
            "cpu_ms_p50_p95_max": [percentile(cpu, 0.5), percentile(cpu, 0.95), max(cpu)],
            "share_model": round(sum(r["model_ms"] for r in chosen) / total, 2),
            "share_sampling": round(sum(r["sampling_ms"] for r in chosen) / total, 2),
            "worlds_median": percentile([r["worlds"] for r in chosen], 0.5),
            "slowest": [
                {
                    k: r[k]
                    for k in ("deal", "cpu_ms", "model_ms", "sampling_ms", "nodes", "model_nodes", "worlds")
                }
                for r in sorted(chosen, key=lambda r: -r["cpu_ms"])[:3]
            ],
        }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
