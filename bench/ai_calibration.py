"""Calibration of the AI's contracts in self-play: predicted against actual made rates, Kontra accuracy and
how many of the AI's own bidding hands the bidder model accepts.

Plays the fixed deals (bench/data/deals.jsonl) with the same player in every seat. For every bid the AI
makes, the predicted made rate is read off its own evaluation of the bid (the value v(2p - 1) of a
contract worth v gives p, its risk margin added back, ``pimc.predicted_made_rate``); the actual result is
taken when that bid became the contract. Also reported per contract: Kontra said and right (the doubling side won the deal), and the share
of the AI's bidding hands to which the bidder model gives a bid probability of at least one half.

    python bench/ai_calibration.py --deals 300 --budget-ms 150
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.actions import Bid, Double
from engine.ai import bidder, evaluate_actions
from engine.ai.arena import load_deals
from engine.ai.compact import mask_of
from engine.ai.pimc import predicted_made_rate
from engine.cards import team_of
from engine.contracts import IMMEDIATE_CONTRACTS
from engine.deal import new_deal
from engine.rules import apply_unchecked, legal_actions
from engine.ruleset import STANDARD
from engine.state import AUCTION, DOUBLING

DEALS = Path(__file__).resolve().parent / "data" / "deals.jsonl"


def _deal(task: tuple) -> dict:  # type: ignore[type-arg]
    (seed, dealer, hands), player, budget_ms = task
    from engine.views import view_for

    state = new_deal(STANDARD, dealer, hands)
    bids = []  # (seat, contract id, predicted rate, model probability)
    doubles = []  # (seat, word, contract id)
    decision = 0
    while not state.finished:
        seat = state.to_act
        legal = legal_actions(state)
        if len(legal) == 1:
            action = legal[0]
        else:
            view = view_for(state, seat)
            action, evaluations = evaluate_actions(view, player, seed * 1000 + decision, budget_ms, STANDARD)
            if (
                state.phase == AUCTION
                and isinstance(action, Bid)
                and action.contract not in IMMEDIATE_CONTRACTS
            ):
                value = next(e.value for e in evaluations if e.action == action)
                predicted = predicted_made_rate(STANDARD, action.contract, value)
                dealt = mask_of(state.dealt[seat])
                model = bidder.hand_bids(STANDARD, action.contract, state.trump, seat, state.forehand, dealt)
                rate = bidder.make_rate(STANDARD, action.contract, state.trump, seat, state.forehand, dealt)
                if not bidder.could_bid(action.contract, state.trump, list(state.dealt[seat])):
                    rate = 0.0  # the model rules the hand out without solving it
                bids.append((seat, action.contract.id, predicted, model, rate))
            if state.phase == DOUBLING and isinstance(action, Double):
                doubles.append((seat, action.word, state.contract.id))
        decision += 1
        state, _ = apply_unchecked(state, seat, action)
    result = state.result
    assert result is not None
    final = None
    if state.declarer is not None and state.contract is not None:
        final = (state.declarer, state.contract.id, bool(result.made))
    return {
        "bids": [
            {
                "contract": c,
                "predicted": p,
                "model": m,
                "rate": r,
                "made": final[2] if final and final[:2] == (s, c) else None,
            }
            for s, c, p, m, r in bids
        ],
        "doubles": [{"word": w, "contract": c, "right": team_of(s) == result.winner} for s, w, c in doubles],
    }


FAMILIES = {
    "normal": ("normal",),
    "bettler": ("bettler", "ass_bettler"),
    "schnapser": ("schnapser", "kontraschnapser"),
    "all_tricks": ("gang", "zehnerloch", "bauernschnapser", "kontrabauernschnapser"),
}
THRESHOLDS = (0.4, 0.45, 0.5, 0.55, 0.6)  # make rates at which the model's acceptance is also shown


def _rate(values: list[float]) -> float:
    return round(sum(values) / len(values), 3)


def summarize(results: list[dict]) -> dict[str, object]:  # type: ignore[type-arg]
    """Per contract and per family: bids, model acceptance, predicted vs actual made rate, doubles right."""
    per: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for deal in results:
        for bid in deal["bids"]:
            entry = per[bid["contract"]]
            entry["model_accepts"].append(float(bid["model"] >= 0.5))
            entry["rate"].append(bid["rate"])
            if bid["made"] is not None:
                entry["predicted"].append(bid["predicted"])
                entry["made"].append(float(bid["made"]))
        for double in deal["doubles"]:
            per[double["contract"]][double["word"]].append(float(double["right"]))
    contracts = {}
    for contract, entry in sorted(per.items()):
        row: dict[str, object] = {}
        if entry["model_accepts"]:
            row["bids"] = len(entry["model_accepts"])
            row["model_accepts"] = _rate(entry["model_accepts"])
            row["model_accepts_at_rate"] = {
                str(t): _rate([float(r >= t) for r in entry["rate"]]) for t in THRESHOLDS
            }
        if entry["made"]:
            n = len(entry["made"])
            made = sum(entry["made"]) / n
            half = 1.96 * math.sqrt(max(made * (1 - made), 1e-9) / n)
            row["played"] = n
            row["predicted_made"] = _rate(entry["predicted"])
            row["actual_made"] = round(made, 3)
            row["actual_ci95"] = [round(made - half, 3), round(made + half, 3)]
        for word in ("kontra", "re", "subkontra"):
            if entry[word]:
                row[word] = {"said": len(entry[word]), "right": int(sum(entry[word]))}
        contracts[contract] = row
    families = {}
    for family, members in FAMILIES.items():
        row = {}
        predicted = [p for c in members for p in per[c]["predicted"]]
        made = [m for c in members for m in per[c]["made"]]
        if made:
            row["played"] = len(made)
            row["predicted_made"] = _rate(predicted)
            row["actual_made"] = _rate(made)
        for word in ("kontra", "re", "subkontra"):
            right = [r for c in members for r in per[c][word]]
            if right:
                row[word] = {"said": len(right), "right": int(sum(right)), "share": _rate(right)}
        if row:
            families[family] = row
    return {"contracts": contracts, "families": families}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--player", default="pimc")
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--first-deal", type=int, default=0)
    parser.add_argument("--budget-ms", type=int, default=150)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--raw", help="also write every deal's bids and doubles to this JSON file")
    args = parser.parse_args()
    chosen = load_deals(str(DEALS))[args.first_deal : args.first_deal + args.deals]
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        results = list(pool.map(_deal, [(d, args.player, args.budget_ms) for d in chosen], chunksize=2))
    if args.raw:
        Path(args.raw).write_text(json.dumps(results))
    report: dict[str, object] = {"player": args.player, "deals": len(results), "budget_ms": args.budget_ms}
    report.update(summarize(results))
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
