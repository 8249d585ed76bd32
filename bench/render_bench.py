"""Time the hand and table images: median and p95 milliseconds per render, PNG sizes, and peak memory.

Run from the repository root:  python bench/render_bench.py [--runs N] [--samples DIR]
Caches are warmed first, as in a running bot where the tiles are loaded once. --samples also writes the
README's sample images (docs/images) from the same scenes. The memory figure comes from a fresh child process
that imports bot.render, preloads both decks and renders one image of each kind per deck.
"""

from __future__ import annotations

import argparse
import dataclasses
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.render import DECK_STYLES, ResultScene, TableScene, preload, render_hand, render_result, render_table

NAMES = ("Anna", "Benedikt", "Carla", "Dominik")
HAND = ("HA", "HT", "SQ", "CK", "DJ")
TABLE = TableScene(
    viewer_seat=2,
    seat_names=NAMES,
    trick=((1, "HK"), (2, "HA"), (3, "HQ")),
    leader_seat=1,
    to_act_seat=0,
    trump="H",
    contract_label="Schnapser",
    multiplier=2,
    team_points=(34, 21),
    team_tricks=(2, 1),
    first_tricks=(("ST", "SA", "SK", "SJ"), ("DQ", "DK", "CA", "HJ")),
)
RESULT = ResultScene(
    seat_names=NAMES,
    winner_team=0,
    game_points=3,
    score=(15, 9),
    card_points=(72, 48),
    contract_label="Normal game",
    trump="H",
    bummerls=(0, 1),
    detail="Opponents reached 48",
)


def write_samples(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    samples = {
        "hand-doppeldeutsch.png": render_hand(HAND, playable=("HA", "HT"), trump="H"),
        "hand-french.png": render_hand(("SA", "ST", "HK", "DQ", "CJ"), trump="S", deck="french"),
        "table.png": render_table(TABLE),
        "result.png": render_result(RESULT),
    }
    for name, png in samples.items():
        (folder / name).write_bytes(png)
    print(f"wrote {len(samples)} sample images to {folder}")


def measure(render: Callable[[], bytes], runs: int) -> tuple[float, float, int]:
    render()  # warm the tile and font caches
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        png = render()
        timings.append((time.perf_counter() - start) * 1000)
    timings.sort()
    p95 = timings[min(len(timings) - 1, round(0.95 * (len(timings) - 1)))]
    return statistics.median(timings), p95, len(png)


def render_one_of_each() -> None:
    for deck in DECK_STYLES:
        render_hand(HAND, playable=("HA", "HT"), trump="H", deck=deck)
        render_table(dataclasses.replace(TABLE, deck=deck))
        render_result(dataclasses.replace(RESULT, deck=deck))


def report_own_peak_rss() -> None:
    """The child's side of peak_rss_mb: preload, render, print the peak resident size in kilobytes."""
    for deck in DECK_STYLES:
        preload(deck)
    render_one_of_each()
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)  # kilobytes on Linux


def peak_rss_mb() -> float:
    """Peak resident memory of a fresh process, so the figure is the renderer's alone (this process's peak
    also holds the timing runs)."""
    child = subprocess.run(
        [sys.executable, __file__, "--peak-rss-child"], capture_output=True, text=True, check=True
    )
    return int(child.stdout.split()[-1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--samples", type=Path, help="also write the sample images into this folder")
    parser.add_argument("--peak-rss-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.peak_rss_child:
        report_own_peak_rss()
        return
    if args.samples:
        write_samples(args.samples)
    cases: dict[str, Callable[[], bytes]] = {
        "hand (doppeldeutsch, 5 cards, 2 playable)": lambda: render_hand(
            HAND, playable=("HA", "HT"), trump="H"
        ),
        "hand (french, 5 cards)": lambda: render_hand(HAND, trump="S", deck="french"),
        "table (3 cards in trick, both first tricks)": lambda: render_table(TABLE),
        "result": lambda: render_result(RESULT),
    }
    print(f"{'image':46} {'median ms':>10} {'p95 ms':>8} {'PNG KB':>8}")
    for name, render in cases.items():
        median, p95, size = measure(render, args.runs)
        print(f"{name:46} {median:10.2f} {p95:8.2f} {size / 1024:8.1f}")
    print(f"peak RSS after preload and one render of each: {peak_rss_mb():.1f} MB")


if __name__ == "__main__":
    main()
