"""Engine speed: complete random deals per second and microseconds per ``legal_actions`` call.

Every deal is played from the first decision (trump) through the auction, Kontra/Re and the card play by
choosing uniformly at random among ``legal_actions`` and advancing with the public ``apply``. When the
``schnapsen`` package (0.0.5, the two-player engine of a university course; not a project dependency) is
installed, its random games per second are measured in the same run for comparison.

Run on one core: ``taskset -c 0 python bench/engine_bench.py [--seconds 3]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import STANDARD, apply, deal_hands, legal_actions, new_deal

_choice_rng = random.Random(2024)


def play_random_deal(seed: int) -> int:
    """One complete deal by uniformly random legal choices; returns the number of decisions taken."""
    choose = _choice_rng.choice
    state = new_deal(STANDARD, seed % 4, deal_hands(seed, seed % 4))
    decisions = 0
    while state.to_act is not None:
        state, _ = apply(state, state.to_act, choose(legal_actions(state)))
        decisions += 1
    return decisions


class Rate:
    """Runs of one benchmark, accumulated over several short rounds."""

    def __init__(self, run_one) -> None:
        self.run_one = run_one
        self.runs = 0
        self.seconds = 0.0
        self.best = 0.0  # the fastest round: the least disturbed by other load on the machine

    def round(self, seconds: float) -> None:
        start = time.perf_counter()
        runs = 0
        while True:
            for _ in range(25):
                self.run_one(self.runs + runs)
                runs += 1
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        self.runs += runs
        self.seconds += elapsed
        self.best = max(self.best, runs / elapsed)

    @property
    def mean(self) -> float:
        return self.runs / self.seconds


def measure_side_by_side(rates: list[Rate], seconds: float, rounds: int = 12) -> None:
    """Alternate short rounds so that load from other processes hits every benchmark alike."""
    for _ in range(rounds):
        for rate in rates:
            rate.round(seconds / rounds)


def legal_actions_positions(count: int) -> list:
    """Positions met in random play (every phase, in their natural mix), for timing ``legal_actions``."""
    positions = []
    seed = 10_000
    while len(positions) < count:
        choose = random.Random(seed).choice
        state = new_deal(STANDARD, seed % 4, deal_hands(seed, seed % 4))
        while state.to_act is not None:
            positions.append(state)
            state, _ = apply(state, state.to_act, choose(legal_actions(state)))
        seed += 1
    return positions[:count]


def microseconds_per_legal_actions(positions: list) -> float:
    # Alternate with a fixed other position so the one-entry cache in ``legal_actions`` never answers.
    other = positions[0]
    start = time.perf_counter()
    for state in positions:
        legal_actions(state)
        legal_actions(other)
    elapsed = time.perf_counter() - start
    return elapsed / (2 * len(positions)) * 1e6


def schnapsen_runner():
    """The peer benchmark (``schnapsen`` 0.0.5 random games), or None when that package is missing."""
    try:
        from schnapsen.bots import RandBot
        from schnapsen.game import SchnapsenGamePlayEngine
    except ImportError:
        return None
    engine = SchnapsenGamePlayEngine()

    def play_one(i: int) -> None:
        engine.play_game(RandBot(random.Random(2 * i)), RandBot(random.Random(2 * i + 1)), random.Random(i))

    return play_one


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="time per benchmark (default 4)")
    args = parser.parse_args()

    ours = Rate(play_random_deal)
    peer_run = schnapsen_runner()
    rates = [ours] if peer_run is None else [ours, Rate(peer_run)]
    for rate in rates:
        rate.run_one(0)  # warm up imports and caches
    measure_side_by_side(rates, args.seconds)

    print(
        f"bauernschnapsen engine: {ours.mean:7.0f} complete random deals/s (best round {ours.best:.0f}, "
        f"{ours.runs} deals)"
    )
    positions = legal_actions_positions(20_000)
    print(
        f"bauernschnapsen engine: {microseconds_per_legal_actions(positions):7.2f} µs per legal_actions call"
    )
    if peer_run is None:
        print("schnapsen 0.0.5 is not installed: no peer figure")
        return
    theirs = rates[1]
    print(
        f"schnapsen 0.0.5 (peer): {theirs.mean:7.0f} random games/s (best round {theirs.best:.0f}, "
        f"{theirs.runs} games)"
    )
    print(f"ours / peer: {ours.mean / theirs.mean:.2f} (best rounds: {ours.best / theirs.best:.2f})")


if __name__ == "__main__":
    main()
