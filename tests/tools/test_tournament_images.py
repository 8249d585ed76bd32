"""The tournament samples in docs/images show tournaments that can happen: every round is the one the core pairs
from the results before it, each team plays or has its bye once a round, and the standings count exactly the
rounds the subtitle names; the committed images are what tools/tournament_images.py draws from them."""

from __future__ import annotations

from collections import Counter

from bot.tournament import MatchResult, next_round, standings
from tools import tournament_images


def test_the_swiss_sample_is_paired_round_by_round_by_the_core() -> None:
    teams, rounds = tournament_images.swiss_tournament()
    seeds = [team.id for team in teams]
    assert len(rounds) == tournament_images.SWISS_ROUNDS
    for number, results in enumerate(rounds):
        paired = next_round("swiss", tournament_images.SWISS_ROUNDS, seeds, rounds[:number])
        assert paired is not None and [result.pairing for result in results] == list(paired), f"round {number + 1}"
        appearances = Counter(team for result in results for team in result.pairing.teams)
        assert sorted(appearances) == sorted(seeds) and set(appearances.values()) == {1}, "once a round each"
    assert next_round("swiss", tournament_images.SWISS_ROUNDS, seeds, rounds) is None, "and then it is over"


def test_the_swiss_sample_has_one_bye_a_round_one_no_show_and_every_team_counts_its_three_rounds() -> None:
    teams, rounds = tournament_images.swiss_tournament()
    results = [result for round_results in rounds for result in round_results]
    assert [sum(result.second is None for result in round_results) for round_results in rounds] == [1, 1, 1]
    assert [result.forfeit for result in results].count(True) == 1
    table = standings([team.id for team in teams], results)
    for standing in table:
        assert standing.won + standing.lost + standing.byes == len(rounds), f"team {standing.team}"
        assert standing.byes <= 1, "nobody gets a second bye"
    assert sum(standing.forfeited for standing in table) == 1


def test_the_elimination_sample_advances_the_winners_of_its_quarter_finals() -> None:
    teams, rows = tournament_images.elimination_tournament()
    seeds = [team.id for team in teams]
    quarter_finals = [row for row in rows if row.round == 1]
    semi_finals = [row for row in rows if row.round == 2]
    assert [(row.first_team, row.second_team) for row in quarter_finals] == [
        (pairing.first, pairing.second) for pairing in next_round("elimination", 0, seeds, []) or ()
    ]
    assert all(row.status == "done" and row.winner_team in (row.first_team, row.second_team) for row in quarter_finals)
    results = [MatchResult(row.first_team, row.second_team, row.winner_team) for row in quarter_finals]
    assert [(row.first_team, row.second_team) for row in semi_finals] == [
        (pairing.first, pairing.second) for pairing in next_round("elimination", 0, seeds, [results]) or ()
    ]
    assert [row.status for row in semi_finals] == ["done", "playing"], "in its semi-finals"


def test_the_committed_tournament_images_are_what_the_samples_draw() -> None:
    for name, png in tournament_images.images("en").items():
        committed = (tournament_images.IMAGES / name).read_bytes()
        assert png == committed, f"docs/images/{name} is stale: run python tools/tournament_images.py"
