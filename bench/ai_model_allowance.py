"""What the bound on the bidder model's searches (``pimc.MODEL_FACTOR``) costs the trump and Kontra choices.

On the fixed deals (bench/data/deals.jsonl) the deal is played in self-play up to the first card with the
model unbounded; every trump and Kontra decision with more than one legal action is also taken with the
model bounded at ``--model-factor`` and, with ``--reference-factor``, unbounded at that many times the
budget. Reports per kind: decisions with fewer worlds, worlds before / after, equal choices, and the
agreement of each with the longer search.

    python -S bench/ai_model_allowance.py --deals 30 --model-factor 2 --reference-factor 10
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine.ai.pimc as pimc
from bench.deal_walk import deals_parser, walk_deal
from engine.actions import Action
from engine.ai.arena import load_deals
from engine.ruleset import STANDARD
from engine.state import DOUBLING, TRUMP, DealState
from engine.views import PlayerView

DEALS = Path(__file__).resolve().parent / "data" / "deals.jsonl"
UNBOUNDED = 10**6


def decide(view, key: int, budget_ms: int, factor: float):  # type: ignore[no-untyped-def]
    pimc.MODEL_FACTOR = factor  # type: ignore[assignment]
    evaluations = pimc.evaluate(view, STANDARD, key, budget_ms)
    return pimc.best_action(view, evaluations, STANDARD), evaluations[0].worlds


def main() -> int:
    parser = deals_parser(__doc__)
    parser.add_argument("--model-factor", type=float, default=2)
    parser.add_argument("--reference-factor", type=int, default=0)
    args = parser.parse_args()
    if not hasattr(pimc, "MODEL_FACTOR"):
        sys.exit(f"{pimc.__file__} has no MODEL_FACTOR (run with python -S in the tree to measure)")
    rows = []

    def choose(state: DealState, seat: int, view: PlayerView, key: int) -> Action:
        action, worlds = decide(view, key, args.budget_ms, UNBOUNDED)
        if state.phase in (TRUMP, DOUBLING):
            bounded, bounded_worlds = decide(view, key, args.budget_ms, args.model_factor)
            row = {"kind": "trump" if state.phase == TRUMP else "kontra", "unbounded": repr(action),
                   "bounded": repr(bounded), "worlds": worlds, "bounded_worlds": bounded_worlds}  # fmt: skip
            if args.reference_factor:
                reference_budget = args.budget_ms * args.reference_factor
                row["reference"] = repr(decide(view, key, reference_budget, UNBOUNDED)[0])
            rows.append(row)
        return action  # type: ignore[no-any-return]

    for seed, dealer, hands in load_deals(str(DEALS))[args.first_deal : args.first_deal + args.deals]:
        walk_deal(seed, dealer, hands, choose, until_play=True)
    report: dict[str, object] = {
        "deals": args.deals,
        "first_deal": args.first_deal,
        "model_factor": args.model_factor,
    }
    for kind in ("trump", "kontra"):
        chosen = [r for r in rows if r["kind"] == kind]
        if not chosen:
            continue
        cut = [r for r in chosen if r["bounded_worlds"] != r["worlds"]]
        summary: dict[str, object] = {
            "decisions": len(chosen),
            "fewer_worlds": len(cut),
            "worlds_mean": [
                round(statistics.mean(r[w] for r in chosen), 1) for w in ("worlds", "bounded_worlds")
            ],
            "cut_worlds_median": [statistics.median(r[w] for r in cut) for w in ("worlds", "bounded_worlds")]
            if cut
            else None,
            "same_choice": sum(r["bounded"] == r["unbounded"] for r in chosen),
            "differing": [r for r in chosen if r["bounded"] != r["unbounded"]],
        }
        if args.reference_factor:
            summary["agree_with_reference"] = {
                "unbounded": sum(r["unbounded"] == r["reference"] for r in chosen),
                "bounded": sum(r["bounded"] == r["reference"] for r in chosen),
            }
        report[kind] = summary
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
