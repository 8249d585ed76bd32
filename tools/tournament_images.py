"""Render the tournament samples in docs/images: a Swiss tournament's standings and an elimination bracket.

Run from anywhere:  python tools/tournament_images.py [--out DIR] [--lang LANG]

Both are drawn by the bot's own builders (``bot.schnapsen.tournament_images``) from tournaments played out
here with the pure core (``bot.tournament``), each round paired by it from the results before: seven teams,
three Swiss rounds (a bye each round), a no-show in round 2 and seeded random results; then eight teams of a
single elimination in its semi-finals (two images: the quarter- and semi-finals, then the final). The same
seed gives the same images; tests/tools/test_tournament_images.py checks that both tournaments can happen.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.db.tournaments import MatchRow, TeamRow, TournamentRow  # noqa: E402  (needs ROOT on the path)
from bot.render.tournament import render_bracket, render_standings  # noqa: E402
from bot.schnapsen.tournament_images import bracket_scene, standings_scene  # noqa: E402
from bot.tournament import MatchResult, next_round, standings  # noqa: E402

IMAGES = ROOT / "docs" / "images"
SEED = 30
SWISS_ROUNDS = 3
# Display names as they come: several scripts, an emoji, a long one (drawn smaller, then cut).
PEOPLE = (
    "Anna", "Ferdl", "Zoë 🎉", "Mehmet", "王小明", "Resi", "Владимир", "Bert", "Lena", "Sepp",
    "Ελένη", "Joost", "Maximiliane von Hohenberg", "Kai", "Ida", "Luuk",
)  # fmt: skip


def teams_of(tournament_id: int, count: int) -> list[TeamRow]:
    return [
        TeamRow(n, tournament_id, n, 2 * n, 2 * n + 1, f"{PEOPLE[2 * n - 2]} & {PEOPLE[2 * n - 1]}", False)
        for n in range(1, count + 1)
    ]


def row(tournament_id: int, fmt: str, status: str) -> TournamentRow:
    name = "Saturday Cup" if fmt == "swiss" else "Winter Knockout"
    return TournamentRow(tournament_id, 1, 1, 1, name, fmt, SWISS_ROUNDS if fmt == "swiss" else 0, 1,  # type: ignore[arg-type]
                         '"standard"', 90, True, 300, None, status, None, 0, 0)  # type: ignore[arg-type]  # fmt: skip


def played(rng: random.Random, first: int, second: int | None) -> MatchResult:
    """A Bummerl to 24: the winner 24 or more, the loser fewer; None second: a bye."""
    if second is None:
        return MatchResult.bye(first)
    winner = first if rng.random() < 0.6 else second
    loser_points = rng.randint(4, 21)
    points = {winner: rng.randint(24, 27), (second if winner == first else first): loser_points}
    return MatchResult(first, second, winner, points[first], points[second])


def match_rows(tournament_id: int, rounds: list[list[MatchResult]]) -> list[MatchRow]:
    """The stored rows of decided rounds (one Bummerl per match)."""
    rows: list[MatchRow] = []
    for number, results in enumerate(rounds, start=1):
        for slot, r in enumerate(results):
            bummerl = (int(r.winner == r.first), int(r.winner == r.second))
            rows.append(MatchRow(len(rows) + 1, tournament_id, number, slot, r.first, r.second, None, "done",
                                 r.winner, r.first_game_points, r.second_game_points, *bummerl,
                                 "forfeit" if r.forfeit else "played", 0))  # fmt: skip
    return rows


def swiss_tournament() -> tuple[list[TeamRow], list[list[MatchResult]]]:
    """The Swiss sample: its teams and every round's results, each round paired by the core from the results
    before it. In round 2 the second team of the first match does not show up: its opponent wins by forfeit
    (the round's bye stays a bye)."""
    rng = random.Random(SEED)
    teams = teams_of(1, 7)
    seeds = [team.id for team in teams]
    rounds: list[list[MatchResult]] = []
    for number in range(SWISS_ROUNDS):
        pairings = next_round("swiss", SWISS_ROUNDS, seeds, rounds)
        assert pairings is not None
        results = [played(rng, p.first, p.second) for p in pairings]
        if number == 1:
            no_show = next(n for n, p in enumerate(pairings) if not p.bye)
            first, second = pairings[no_show].first, pairings[no_show].second
            results[no_show] = MatchResult(first, second, first, forfeit=True)
        rounds.append(results)
    return teams, rounds


def swiss_standings(lang: str) -> list[bytes]:
    teams, rounds = swiss_tournament()
    by_id = {team.id: team for team in teams}
    seeds = [team.id for team in teams]
    table = [(s, by_id[s.team]) for s in standings(seeds, [r for rr in rounds for r in rr])]
    scene = standings_scene(lang, row(1, "swiss", "finished"), table, len(rounds), SWISS_ROUNDS, True)
    return list(render_standings(scene))


def elimination_tournament() -> tuple[list[TeamRow], list[MatchRow]]:
    """The elimination sample as stored: its teams, the quarter-finals played, one semi-final decided and the
    other still playing."""
    rng = random.Random(SEED + 1)
    teams = teams_of(2, 8)
    seeds = [team.id for team in teams]
    first = next_round("elimination", 0, seeds, [])
    assert first is not None
    round_1 = [played(rng, p.first, p.second) for p in first]
    semis = next_round("elimination", 0, seeds, [round_1])
    assert semis is not None
    semi_1 = played(rng, semis[0].first, semis[0].second)
    rows = match_rows(2, [round_1])
    rows.append(MatchRow(5, 2, 2, 0, semi_1.first, semi_1.second, None, "done", semi_1.winner,
                         semi_1.first_game_points, semi_1.second_game_points,
                         int(semi_1.winner == semi_1.first), int(semi_1.winner == semi_1.second), "played", 0))  # fmt: skip
    second = semis[1]
    rows.append(
        MatchRow(6, 2, 2, 1, second.first, second.second, None, "playing", None, 0, 0, 0, 0, None, None)
    )
    return teams, rows


def elimination_bracket(lang: str) -> list[bytes]:
    teams, rows = elimination_tournament()
    return list(render_bracket(bracket_scene(lang, row(2, "elimination", "running"), teams, rows)))


def images(lang: str) -> dict[str, bytes]:
    """The sample files by name: one page is name.png, several name-1.png, name-2.png, ..."""
    files = {}
    for name, pngs in (("tournament-standings", swiss_standings(lang)),
                       ("tournament-bracket", elimination_bracket(lang))):  # fmt: skip
        for number, png in enumerate(pngs, start=1):
            files[f"{name}.png" if len(pngs) == 1 else f"{name}-{number}.png"] = png
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=IMAGES)
    parser.add_argument("--lang", default="en")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, png in images(args.lang).items():
        path = args.out / name
        path.write_bytes(png)
        print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {len(png)} bytes")


if __name__ == "__main__":
    main()
