"""Time the tournament images (standings pages and the elimination bracket): median and p95 milliseconds
for a whole post's images (all pages) and the PNG bytes, for fields of 8, 16 and 64 teams, with the text
caches warm as in a running bot after its first post. The bot gives a post's images 10 s (IMAGE_BUDGET in
bot/schnapsen/tournament_images.py) before it posts the standings as text.

Run from the repository root:  python bench/tournament_image_bench.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.render.tournament import (
    BracketMatch,
    BracketScene,
    BracketSide,
    StandingRow,
    StandingsScene,
    render_bracket,
    render_standings,
)

NAMES = ("Anna", "Ferdl 🤖", "王小明", "Ελένη", "Maximiliane von Hohenberg", "Zoë 🎉", "Владимир", "Sepp")


def standings_scene(teams: int) -> StandingsScene:
    rows = tuple(
        StandingRow(
            n,
            f"{NAMES[n % 8]} & {NAMES[(n + 3) % 8]}",
            f"#{n} · won 3 · lost 2",
            3,
            12,
            100 - n,
            byes=int(n % 9 == 0),
            forfeits=int(n % 7 == 0),
        )
        for n in range(1, teams + 1)
    )
    return StandingsScene("Saturday Cup", "Swiss system, 5 rounds · standings after round 3 of 5",
                          ("Points", "Buchholz", "Game points"), rows, "bye", "forfeit", "-")  # fmt: skip


def bracket_scene(teams: int) -> BracketScene:
    first = tuple(
        BracketMatch(
            BracketSide(f"{NAMES[n % 8]} & {NAMES[(n + 1) % 8]}", "1"),
            BracketSide(f"{NAMES[(n + 2) % 8]} & {NAMES[(n + 5) % 8]}", "0"),
            0,
        )
        for n in range(teams // 2)
    )
    rounds = [first]
    while len(rounds[-1]) > 1:
        rounds.append(
            tuple(BracketMatch(BracketSide(m.top.name), BracketSide(None)) for m in rounds[-1][::2])
        )
    names = tuple(f"Round {n + 1}" for n in range(len(rounds)))
    return BracketScene("Knockout · bracket", tuple(rounds), names, 1, None, "Winners", "bye", "to come")


def measure(draw, runs: int) -> tuple[float, float, int, int]:
    draw()  # warm the text caches
    times, pngs = [], ()
    for _ in range(runs):
        start = time.perf_counter()
        pngs = draw()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))], len(pngs), sum(map(len, pngs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    print(f"{'image':<22} {'teams':>5} {'pages':>5} {'median ms':>10} {'p95 ms':>8} {'bytes':>8}")
    for teams in (8, 16, 64):
        for kind, draw in (("standings", lambda t=teams: render_standings(standings_scene(t))),
                           ("bracket", lambda t=teams: render_bracket(bracket_scene(t)))):  # fmt: skip
            median, p95, pages, size = measure(draw, args.runs)
            print(f"{kind:<22} {teams:>5} {pages:>5} {median:>10.1f} {p95:>8.1f} {size:>8}")


if __name__ == "__main__":
    main()
