"""Duplicate match between two AI players over the fixed deal list (bench/data/deals.jsonl).

Each deal is played twice with the teams swapped; the score is half the difference of game points, so the
luck of the cards cancels. Prints game points per 100 deals for the first player with a 95% confidence
interval, per-contract bid and success counts, and Kontra counts. Exits 1 if the first player loses (the
mean is below zero), so CI can run it.

    python bench/ai_match.py --players pimc greedy --deals 2000 --mode normal --budget-ms 150

Regression against an older version of the AI: ``--opponent-ref GITREF`` checks GITREF out in a temporary
``git worktree`` and plays the second player (``pimc`` by default) from that tree, in its own process per
worker (bench/ai_ref_server.py), against the first player of the current tree. ``--sprt H0 H1`` (game
points per 100 deals) stops as soon as a sequential probability ratio test (alpha = beta = 0.05, normal
approximation with the sample variance, checked from the 30th deal on) accepts H1 ("the current AI gains
at least H1") or H0 ("it gains at most H0"); ``--deals`` is then the most it plays.

    python bench/ai_match.py --opponent-ref 8dd0e58 --sprt 0 50 --deals 400 --mode full --budget-ms 150

``--fresh-seed SEED`` plays new deals from seeds SEED, SEED+1, ... instead of the fixed list (whose seeds are
100000-101999): a second sample no setting was tuned on.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.actions import Action, format_action, parse_action
from engine.ai.arena import Hands, duplicate_pair, fresh_deals, load_deals

ROOT = Path(__file__).resolve().parents[1]
DEALS = Path(__file__).resolve().parent / "data" / "deals.jsonl"
REF_PREFIX = "ref:"  # a player name served by the older tree
SPRT_ALPHA = SPRT_BETA = 0.05
SPRT_MIN_DEALS = 30

_ref_server: subprocess.Popen[str] | None = None


def start_server(root: str) -> subprocess.Popen[str]:
    """A server process (bench/ai_ref_server.py) answering with the AI of the source tree at ``root``."""
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "ai_ref_server.py"), root],
        cwd=root,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    hello = json.loads(server.stdout.readline())
    if not hello["engine"].startswith(root):
        raise RuntimeError(f"the reference server imported {hello['engine']}, not the tree at {root}")
    return server


def _start_ref(root: str | None) -> None:
    """Worker initializer: one server process of the older tree per worker (it ends with the worker)."""
    global _ref_server
    if root is not None:
        _ref_server = start_server(root)


def _ref_choose(player: str, replies: list[dict] | None = None, server: subprocess.Popen[str] | None = None):  # type: ignore[no-untyped-def,type-arg]
    """A chooser served by ``server`` (default: the worker's reference server); each reply (action, CPU
    time, kind) is appended to ``replies`` when given."""

    def choose(
        dealer: int, hands: Hands, history: list[tuple[int, Action]], seat: int, seed: int, budget_ms: int
    ) -> Action:
        serving = server or _ref_server
        assert serving is not None and serving.stdin is not None and serving.stdout is not None
        request = {
            "dealer": dealer,
            "hands": [list(hand) for hand in hands],
            "actions": [format_action(s, a) for s, a in history],
            "seat": seat,
            "player": player,
            "seed": seed,
            "budget_ms": budget_ms,
        }
        serving.stdin.write(json.dumps(request) + "\n")
        serving.stdin.flush()
        reply = serving.stdout.readline()
        if not reply:
            raise RuntimeError("the reference server died")
        answer = json.loads(reply)
        if replies is not None:
            replies.append(answer)
        return parse_action(answer["action"])[1]

    return choose


def _one(task: tuple) -> tuple[float, list[dict]]:  # type: ignore[type-arg]
    (seed, dealer, hands), first, second, normal_only, budget_ms = task
    choosers = {second: _ref_choose(second[len(REF_PREFIX) :])} if second.startswith(REF_PREFIX) else None
    margin, outcomes = duplicate_pair(
        hands, dealer, seed, first, second, normal_only, budget_ms, choosers=choosers
    )
    summary = []
    for index, outcome in enumerate(outcomes):
        first_team = 0 if index == 0 else 1  # the first player sits N/S in the first play, E/W in the second
        summary.append(
            {
                "contract": outcome.contract.id if outcome.contract is not None else None,
                "bid": outcome.bid,
                "by_first": outcome.declaring_team == first_team,
                "made": outcome.made,
                "kontra": outcome.kontra,
                # per Kontra/Re/Subkontra: was it said by the first player, and did the doubling side win?
                "doubles": [[seat % 2 == first_team, word, won] for seat, word, won in outcome.doubles],
            }
        )
    return margin, summary


def _in_order(pool: ProcessPoolExecutor, tasks: list[tuple], window: int) -> Iterator[tuple]:  # type: ignore[type-arg]
    """Results in task order, with at most ``window`` tasks submitted ahead (so a stop wastes little)."""
    pending: list[Future] = []  # type: ignore[type-arg]
    queue = iter(tasks)
    for task in queue:
        pending.append(pool.submit(_one, task))
        if len(pending) >= window:
            break
    while pending:
        result = pending.pop(0).result()
        for task in queue:
            pending.append(pool.submit(_one, task))
            break
        yield result


def report_progress(done: int, started: float) -> None:
    """Every 25 deals, how many are done and the seconds since ``started`` (on stderr)."""
    if done % 25 == 0:
        print(f"{done} deals, {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)


def sprt_llr(margins: list[float], h0: float, h1: float) -> float:
    """Log-likelihood ratio of mean ``h1`` against ``h0`` (per deal) under a normal model with the sample
    variance."""
    n = len(margins)
    mean = sum(margins) / n
    variance = sum((m - mean) ** 2 for m in margins) / (n - 1)
    if variance <= 0:
        return 0.0
    return (h1 - h0) / variance * (sum(margins) - n * (h0 + h1) / 2)


def run_match(
    first: str,
    second: str,
    deals: int,
    normal_only: bool,
    budget_ms: int,
    workers: int,
    first_deal: int = 0,
    ref_root: str | None = None,
    sprt: tuple[float, float] | None = None,
    fresh_seed: int | None = None,
) -> dict[str, object]:
    if fresh_seed is not None:
        chosen = fresh_deals(fresh_seed, deals)
    else:
        chosen = load_deals(str(DEALS))[first_deal : first_deal + deals]
    if not chosen:
        raise ValueError(f"no deals: the fixed list has none from deal {first_deal} on")
    tasks = [(deal, first, second, normal_only, budget_ms) for deal in chosen]
    started = time.perf_counter()
    results = []
    verdict = None
    llr = 0.0
    lower, upper = math.log(SPRT_BETA / (1 - SPRT_ALPHA)), math.log((1 - SPRT_BETA) / SPRT_ALPHA)
    with ProcessPoolExecutor(max_workers=workers, initializer=_start_ref, initargs=(ref_root,)) as pool:
        for result in _in_order(pool, tasks, 2 * workers):
            results.append(result)
            report_progress(len(results), started)
            if sprt is not None and len(results) >= SPRT_MIN_DEALS:
                llr = sprt_llr([m for m, _ in results], sprt[0] / 100, sprt[1] / 100)
                if llr >= upper or llr <= lower:
                    verdict = "H1" if llr >= upper else "H0"
                    pool.shutdown(wait=True, cancel_futures=True)
                    break
    margins = [margin for margin, _ in results]
    n = len(margins)
    mean = sum(margins) / n
    variance = sum((m - mean) ** 2 for m in margins) / (n - 1) if n > 1 else 0.0
    half_width = 1.96 * math.sqrt(variance / n)
    bids: Counter[str] = Counter()
    made: Counter[str] = Counter()
    kontras: Counter[str] = Counter()
    doubled: Counter[str] = Counter()
    doubled_right: Counter[str] = Counter()
    for _, summary in results:
        for play in summary:
            contract = play["contract"] or "none"
            who = first if play["by_first"] else second
            if play["bid"]:
                bids[f"{who} {contract}"] += 1
                made[f"{who} {contract}"] += bool(play["made"])
            kontras[contract] += play["kontra"]
            for by_first, word, won in play["doubles"]:
                key = f"{first if by_first else second} {word} {contract}"
                doubled[key] += 1
                doubled_right[key] += won
    return {
        "players": [first, second],
        "mode": "normal" if normal_only else "full",
        "deals": n,
        "first_deal": first_deal,
        "fresh_seed": fresh_seed,
        "games": 2 * n,
        "budget_ms": budget_ms,
        "points_per_100_deals": round(100 * mean, 2),
        "ci95": [round(100 * (mean - half_width), 2), round(100 * (mean + half_width), 2)],
        "bids": {key: {"bid": bids[key], "made": made[key]} for key in sorted(bids)},
        "kontra_re_said": dict(sorted(kontras.items())),
        "doubles_right": {
            key: {"said": doubled[key], "right": doubled_right[key]} for key in sorted(doubled)
        },
        "seconds": round(time.perf_counter() - started, 1),
        **(
            {
                "sprt": {
                    "h0_h1_per_100_deals": list(sprt),
                    "llr": round(llr, 3),
                    "bounds": [round(lower, 3), round(upper, 3)],
                    "verdict": verdict or "undecided (deal limit reached)",
                }
            }
            if sprt is not None
            else {}
        ),
    }


def _worktree(ref: str) -> str:
    """Check ``ref`` out in a temporary worktree (detached); the caller removes it."""
    path = tempfile.mkdtemp(prefix="ai_ref_")
    os.rmdir(path)
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", path, ref],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    _share_compiled(path)
    return path


def _share_compiled(path: str) -> None:
    """Copy this tree's compiled AI modules (docs/ai.md, "The accelerator") into the worktree at ``path``:
    a copy runs there only where the module's source is the one it was built from (each checks its
    source's SHA-256), so the older AI gives the same answers at the compiled speed instead of the pure."""
    here, there = ROOT / "engine" / "ai", Path(path) / "engine" / "ai"
    for built in here.glob("_*_compiled*.so"):
        if there.is_dir():
            shutil.copy2(built, there / built.name)


def _remove_worktree(path: str) -> None:
    subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", path], check=False)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--players",
        nargs=2,
        metavar=("FIRST", "SECOND"),
        help="default: pimc greedy, or pimc pimc with --opponent-ref",
    )
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument(
        "--first-deal", type=int, default=0, help="start at this deal of the list (to split a long run)"
    )
    parser.add_argument("--mode", choices=("normal", "full"), default="full")
    parser.add_argument("--budget-ms", type=int, default=150)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument(
        "--opponent-ref",
        metavar="GITREF",
        help="the second player is the AI of this commit (its own worktree and process)",
    )
    parser.add_argument(
        "--sprt",
        nargs=2,
        type=float,
        metavar=("H0", "H1"),
        help="stop early by a sequential test of H0 against H1 (game points per 100 deals)",
    )
    parser.add_argument(
        "--fresh-seed",
        type=int,
        metavar="SEED",
        help="play --deals new deals from seeds SEED, SEED+1, ... (dealer seed %% 4, as in the fixed list) "
        "instead of the fixed list's",
    )
    args = parser.parse_args()
    fixed = len(load_deals(str(DEALS)))
    if args.fresh_seed is None and not 0 <= args.first_deal < fixed:
        parser.error(f"--first-deal must lie in the fixed list of {fixed} deals")
    if args.deals < 1:
        parser.error("--deals must be at least 1")
    first, second = args.players or ("pimc", "pimc" if args.opponent_ref else "greedy")
    if args.opponent_ref is None:
        report = run_match(
            first, second, args.deals, args.mode == "normal", args.budget_ms, args.workers, args.first_deal,
            sprt=args.sprt, fresh_seed=args.fresh_seed,
        )  # fmt: skip
    else:
        root = _worktree(args.opponent_ref)
        try:
            report = run_match(
                first, REF_PREFIX + second, args.deals, args.mode == "normal", args.budget_ms, args.workers,
                args.first_deal, ref_root=root, sprt=args.sprt, fresh_seed=args.fresh_seed,
            )  # fmt: skip
        finally:
            _remove_worktree(root)
        report["players"] = [first, f"{second}@{args.opponent_ref}"]
    print(json.dumps(report, indent=2))
    return 0 if report["points_per_100_deals"] >= 0 else 1  # type: ignore[operator]


if __name__ == "__main__":
    sys.exit(main())
