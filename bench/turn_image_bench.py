"""Time the one-screen turn image (the table's cards above the hand, shown in the hand message on a player's
turn): median and p95 milliseconds per render (wall and CPU) and PNG size, for both decks. Each run composes and encodes the
image afresh (the bot then caches it per position), with the tile and text caches warm as in a running bot.

Run from the repository root:  python bench/turn_image_bench.py [--runs N]
Targets (issue 13): median <= 8 ms, PNG <= 120 KB.
docs/images/hand-turn.png is drawn from a recorded game by tools/sample_images.py.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.render import DECK_STYLES, TurnScene, preload, render_turn

SCENE = TurnScene(
    cards=("HT", "HK", "SA", "SQ", "DJ"),  # sorted: trumps (Herz) first, then the other suits by rank
    playable=("HT", "HK"),
    places=(
        ("Anna", "HA", False),
        ("Benedikt", "HQ", False),
        ("Carla", None, True),
        ("Dominik", None, False),
    ),
    caption="Anna led · your turn",  # as the bot captions it (hand.caption.led)
    trump="H",
    contract_label="Normal game",
    multiplier=2,
)


def measure(scene: TurnScene, runs: int) -> tuple[float, float, float, int]:
    """Median and p95 wall milliseconds, median CPU milliseconds of this thread (what a busy machine's other
    processes do not inflate), and the largest PNG in bytes."""
    timings, cpu, size = [], [], 0
    for _ in range(runs):
        # render_turn itself memoises nothing but tiles and text masks: every run composes and encodes.
        start, start_cpu = time.perf_counter(), time.thread_time()
        png = render_turn(scene)
        timings.append((time.perf_counter() - start) * 1000)
        cpu.append((time.thread_time() - start_cpu) * 1000)
        size = max(size, len(png))
    timings.sort()
    return statistics.median(timings), timings[round(0.95 * (len(timings) - 1))], statistics.median(cpu), size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    print(f"{'turn image':44} {'median ms':>10} {'p95 ms':>8} {'CPU median ms':>14} {'PNG KB (max)':>13}")
    for deck in DECK_STYLES:
        preload(deck)
        for what, scene in (
            ("3 cards on the table, 2 playable", SCENE),
            ("leading: last trick shown", dataclasses.replace(
                SCENE, playable=SCENE.cards, places=tuple((n, c or "SK", False) for n, c, _ in SCENE.places))),
        ):  # fmt: skip
            render_turn(dataclasses.replace(scene, deck=deck))  # warm the text masks of the names
            median, p95, cpu, size = measure(dataclasses.replace(scene, deck=deck), args.runs)
            print(f"{deck + ', ' + what:44} {median:10.2f} {p95:8.2f} {cpu:14.2f} {size / 1024:13.1f}")


if __name__ == "__main__":
    main()
