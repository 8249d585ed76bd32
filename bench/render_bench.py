"""Time the hand, table, result and deal-review images: median and p95 milliseconds per render, PNG sizes,
and peak memory.

Run from the repository root:  python bench/render_bench.py [--runs N]
Caches are warmed first, as in a running bot where the tiles are loaded once. The README's sample images are
drawn from a real game by tools/sample_images.py, not from these scenes. The memory figure comes from a fresh
child process that imports bot.render, preloads both decks and renders one image of each kind per deck.
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

from bot.render import (
    DECK_STYLES,
    DealReviewScene,
    ResultScene,
    ReviewTrick,
    TableScene,
    fonts,
    images,
    preload,
    render_deal_review,
    render_hand,
    render_result,
    render_table,
)

NAMES = ("Anna", "Benedikt", "Carla", "Dominik")
# Names that need the font chain: Chinese, an AI seat's robot, Cyrillic, Latin with an emoji.
WORLD_NAMES = ("王小明", "Resi 🤖", "Владимир", "Zoë 🎉")
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
# A whole deal of five tricks (the most a review shows), with a turned-up trump and a marriage.
REVIEW = DealReviewScene(
    seat_names=NAMES,
    hands=(
        ("HA", "HT", "HK", "CQ", "SJ"),
        ("HQ", "HJ", "DA", "DT", "DK"),
        ("DQ", "DJ", "CA", "CT", "CK"),
        ("CJ", "SA", "ST", "SK", "SQ"),
    ),
    tricks=(
        ReviewTrick(((0, "HA"), (1, "HQ"), (2, "DQ"), (3, "CJ")), 0),
        ReviewTrick(((0, "HK"), (1, "HJ"), (2, "DJ"), (3, "SA")), 0),
        ReviewTrick(((0, "CQ"), (1, "DA"), (2, "CA"), (3, "SQ")), 2),
        ReviewTrick(((2, "CT"), (3, "ST"), (0, "SJ"), (1, "DT")), 2),
        ReviewTrick(((2, "CK"), (3, "SK"), (0, "HT"), (1, "DK")), 0),
    ),
    winner_team=0,
    game_points=1,
    contract_label="Normal game",
    declarer_seat=0,
    trump="H",
    aufschlag_card="HK",
    marriages=((0, "H", 40, 2),),
)


WORLD_TABLE = dataclasses.replace(TABLE, seat_names=WORLD_NAMES)


def uncached(render: Callable[[TableScene], bytes], scene: TableScene) -> bytes:
    """The render with every text drawn again, as for names the bot has not drawn before (the worst case of
    the cached text masks; the fonts' glyph coverage stays loaded, as after preload)."""
    images._text_mask.cache_clear()
    images._fit_lines.cache_clear()
    fonts.wrap.cache_clear()
    fonts.runs.cache_clear()
    fonts._run_mask.cache_clear()
    return render(scene)


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
        render_deal_review(dataclasses.replace(REVIEW, deck=deck))


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
    parser.add_argument("--peak-rss-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.peak_rss_child:
        report_own_peak_rss()
        return
    cases: dict[str, Callable[[], bytes]] = {
        "hand (doppeldeutsch, 5 cards, 2 playable)": lambda: render_hand(
            HAND, playable=("HA", "HT"), trump="H"
        ),
        "hand (french, 5 cards)": lambda: render_hand(HAND, trump="S", deck="french"),
        "table (3 cards in trick, both first tricks)": lambda: render_table(TABLE),
        "table, names in 4 scripts and an AI seat": lambda: render_table(WORLD_TABLE),
        "table, text drawn afresh (Latin names)": lambda: uncached(render_table, TABLE),
        "table, text drawn afresh (4 scripts)": lambda: uncached(render_table, WORLD_TABLE),
        "result": lambda: render_result(RESULT),
        "deal review (5 tricks, drawn; cached in the bot)": lambda: render_deal_review(REVIEW),
    }
    print(f"{'image':46} {'median ms':>10} {'p95 ms':>8} {'PNG KB':>8}")
    for name, render in cases.items():
        median, p95, size = measure(render, args.runs)
        print(f"{name:46} {median:10.2f} {p95:8.2f} {size / 1024:8.1f}")
    print(f"peak RSS after preload and one render of each: {peak_rss_mb():.1f} MB")


if __name__ == "__main__":
    main()
