"""Calibration of the AI's contracts in self-play: predicted against actual made rates, Kontra accuracy and
how many of the AI's own bidding hands the bidder model accepts.

Plays the fixed deals (bench/data/deals.jsonl) with the same player in every seat. For every bid the AI
makes, the predicted made rate is read off its own evaluation of the bid (the value v(2p - 1) of a
contract worth v gives p, its risk margin added back, ``pimc.predicted_made_rate``); the actual result is
taken when that bid became the contract. Also reported per contract: Kontra said and right (the doubling side won the deal), and the share
of the AI's bidding hands to which the bidder model gives a bid probability of at least one half.

Every Kontra decision of a defender is recorded with its edge, (doubled mean - mean) / stake, the quantity
the AI compares with the Kontra margin (``pimc.doubling_margin``). When the first defender says Kontra the
second is not asked; the bench then also evaluates the second defender as if the first had passed, so each
deal has both defenders' edges. From these a sweep shows, per family, how many deals would see a Kontra at
each margin and in how many of them the defenders won. The sweep is post hoc: card play does not look at
the multiplier (it scales every outcome alike), but the Kontra and Re shift the decision seeds, so the play
after them is a different sample of the same player, not the same play.

    python bench/ai_calibration.py --deals 300 --budget-ms 150
    python bench/ai_calibration.py --from-raw a.jsonl b.jsonl   # summarize recorded runs
    python bench/ai_calibration.py --fresh-seed 102000 --deals 500   # deals outside the fixed file
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

from bench.deal_walk import deals_parser, walk_deal
from engine.actions import PASS, Action, Bid, Double
from engine.ai import bidder, evaluate_actions
from engine.ai.arena import fresh_deals, load_deals
from engine.ai.compact import mask_of
from engine.ai.pimc import doubling_margin, doubling_stake, predicted_made_rate
from engine.cards import team_of
from engine.contracts import IMMEDIATE_CONTRACTS
from engine.rules import apply_unchecked
from engine.ruleset import STANDARD
from engine.state import AUCTION, DOUBLING, DealState
from engine.views import PlayerView, view_for

DEALS = Path(__file__).resolve().parent / "data" / "deals.jsonl"


def _deal(task: tuple) -> dict:  # type: ignore[type-arg]
    (seed, dealer, hands), player, budget_ms = task
    bids = []  # (seat, contract id, predicted rate, model probability)
    doubles = []  # (seat, word, contract id)
    kontras: list[dict] = []  # type: ignore[type-arg]  # every defender's Kontra decision (see _kontra_edge)

    def choose(state: DealState, seat: int, view: PlayerView, key: int) -> Action:
        action, evaluations = evaluate_actions(view, player, key, budget_ms, STANDARD)
        if state.phase == AUCTION and isinstance(action, Bid) and action.contract not in IMMEDIATE_CONTRACTS:
            value = next(e.value for e in evaluations if e.action == action)
            predicted = predicted_made_rate(STANDARD, action.contract, value)
            dealt = mask_of(state.dealt[seat])
            model = bidder.hand_bids(STANDARD, action.contract, state.trump, seat, state.forehand, dealt)
            rate = bidder.make_rate(STANDARD, action.contract, state.trump, seat, state.forehand, dealt)
            if not bidder.could_bid(action.contract, state.trump, list(state.dealt[seat])):
                rate = 0.0  # the model rules the hand out without solving it
            bids.append((seat, action.contract.id, predicted, model, rate))
        if state.phase == DOUBLING and state.multiplier == 1:
            kontras.append(_kontra_edge(state, seat, evaluations, action, False))
            if isinstance(action, Double) and state.ask_queue:
                # The second defender is not asked after a Kontra: value his decision as if the first had
                # passed, so the sweep sees both defenders at every margin.
                passed, _ = apply_unchecked(state, seat, PASS)
                other = passed.to_act
                assert other is not None
                _, other_evaluations = evaluate_actions(
                    view_for(passed, other), player, key + 500, budget_ms, STANDARD
                )
                kontras.append(_kontra_edge(passed, other, other_evaluations, None, True))
        if state.phase == DOUBLING and isinstance(action, Double):
            doubles.append((seat, action.word, state.contract.id))
        return action

    state = walk_deal(seed, dealer, hands, choose)
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
        "kontra_decisions": [
            {**k, "made": bool(result.made), "defenders_won": team_of(k["seat"]) == result.winner}
            for k in kontras
        ],
    }


def _kontra_edge(state, seat: int, evaluations: list, action, counterfactual: bool) -> dict:  # type: ignore[no-untyped-def, type-arg]
    """A defender's Kontra decision: the contract, the edge (doubled mean - mean) / stake the AI compared
    with its margin, and whether he said Kontra (None when the decision was only evaluated)."""
    contract = state.contract
    assert contract is not None
    kontra = next(e.value for e in evaluations if isinstance(e.action, Double))
    passing = next(e.value for e in evaluations if e.action == PASS)
    margin = doubling_margin(contract, True)
    edge = (kontra - passing) / (state.multiplier * doubling_stake(STANDARD, contract)) + margin
    return {
        "seat": seat,
        "contract": contract.id,
        "edge": round(edge, 4),
        "margin": margin,
        "said": None if counterfactual else isinstance(action, Double),
    }


FAMILIES = {
    "normal": ("normal",),
    "bettler": ("bettler", "ass_bettler"),
    "schnapser": ("schnapser", "kontraschnapser"),
    "all_tricks": ("gang", "zehnerloch", "bauernschnapser", "kontrabauernschnapser"),
}
THRESHOLDS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)  # make rates at which the model's acceptance is also shown


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


# Kontra margins 0.3 .. 0.8, then coarser up to 2.0 for the families that must win outright (now 1.4).
SWEEP = (*(round(0.3 + 0.05 * i, 2) for i in range(11)), 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


def kontra_sweep(results: list[dict], margins: tuple[float, ...] = SWEEP) -> dict[str, object]:  # type: ignore[type-arg]
    """Per family (and per contract of the Bettler family) and margin: deals in which a defender's edge clears the margin (Kontra said) and how many
    of those the defenders won. Also the same at the margin the AI uses now."""
    # family -> (the best edge of its defenders, did they win, the margin the AI uses now), one per deal
    deals: dict[str, list[tuple[float, bool, float]]] = defaultdict(list)
    family_of = {c: family for family, members in FAMILIES.items() for c in members}
    for deal in results:
        decisions = deal.get("kontra_decisions", [])
        if decisions:
            first = decisions[0]
            best = max(d["edge"] for d in decisions)
            row = (best, first["defenders_won"], first["margin"])
            deals[family_of[first["contract"]]].append(row)
            if (
                first["contract"] in FAMILIES["bettler"]
            ):  # the family whose margin is being set: each contract
                deals[f"contract {first['contract']}"].append(row)
    sweep: dict[str, object] = {}
    for family, rows in sorted(deals.items()):
        table = {}
        for margin in (*margins, "now"):
            said = [won for best, won, current in rows if best > (current if margin == "now" else margin)]
            share = round(sum(said) / len(said), 3) if said else None
            table[str(margin)] = {"said": len(said), "right": sum(said), "share": share}
        sweep[family] = {
            "deals": len(rows),
            "defenders_won": sum(won for _, won, _ in rows),
            "by_margin": table,
        }
    return sweep


def main() -> int:
    parser = deals_parser(__doc__, deals=300)
    parser.add_argument("--player", default="pimc")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--raw",
        help="also write every deal's bids and doubles to this file, one JSON line per deal as it ends",
    )
    parser.add_argument(
        "--from-raw", nargs="+", metavar="FILE", help="summarize these --raw files, play nothing"
    )
    parser.add_argument(
        "--fresh-seed",
        type=int,
        metavar="SEED",
        help="deal --deals new deals from seeds SEED, SEED+1, ... (dealer seed %% 4, like the fixed file's "
        "seeds 100000-101999) instead of the fixed ones: figures on deals no threshold was ever set on",
    )
    args = parser.parse_args()
    if args.from_raw:
        results = [json.loads(line) for name in args.from_raw for line in Path(name).read_text().splitlines()]
    else:
        results = _play(args)
    report: dict[str, object] = {"player": args.player, "deals": len(results), "budget_ms": args.budget_ms}
    report.update(summarize(results))
    report["kontra_sweep"] = kontra_sweep(results)
    print(json.dumps(report, indent=2))
    return 0


def _play(args: argparse.Namespace) -> list[dict]:  # type: ignore[type-arg]
    if args.fresh_seed is not None:
        chosen = fresh_deals(args.fresh_seed, args.deals)
    else:
        chosen = load_deals(str(DEALS))[args.first_deal : args.first_deal + args.deals]
    tasks = [(d, args.player, args.budget_ms) for d in chosen]
    results = []
    raw = open(args.raw, "w") if args.raw else None  # noqa: SIM115 - written line by line as deals end
    try:
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            # In deal order, each written as soon as it is known, so a run cut short can still be summarized.
            for result in pool.map(_deal, tasks, chunksize=1):
                results.append(result)
                if raw:
                    raw.write(json.dumps(result) + "\n")
                    raw.flush()
    finally:
        if raw:
            raw.close()
    return results


if __name__ == "__main__":
    sys.exit(main())
