"""Standings and tie-breaks against a hand computation, and teams formed from sign-ups."""

from __future__ import annotations

from bot.tournament import (
    MatchResult,
    Pairing,
    Signup,
    Standing,
    form_teams,
    next_round,
    standings,
    winner_of,
)

TEAMS = [1, 2, 3, 4]  # seeds: sign-up order

# The worked example of docs/playing.md ("Running a tournament"): a 3-round Swiss of 4 teams to a target of
# 7, where team 4 does not show up in round 2.
ROUND_1 = [MatchResult(1, 2, 1, 7, 4), MatchResult(3, 4, 3, 8, 2)]
ROUND_2 = [MatchResult(3, 1, 1, 5, 7), MatchResult(2, 4, 2, forfeit=True)]
ROUND_3 = [MatchResult(1, 4, 1, 7, 3), MatchResult(3, 2, 2, 6, 7)]


def test_the_rounds_are_paired_as_by_hand() -> None:
    assert next_round("swiss", 3, TEAMS, []) == (Pairing(1, 2), Pairing(3, 4))
    # After round 1: 3 and 1 have a point each, 3 with more game points (8 to 7); 2 and 4 none.
    assert next_round("swiss", 3, TEAMS, [ROUND_1]) == (Pairing(3, 1), Pairing(2, 4))
    # After round 2: 1 (2 points), then 3 and 2 (1 each, Buchholz 2 each, game points 13 to 4), then 4.
    # 1 has met 3 and 2, so it meets 4; 3 meets 2.
    assert next_round("swiss", 3, TEAMS, [ROUND_1, ROUND_2]) == (Pairing(1, 4), Pairing(3, 2))
    assert next_round("swiss", 3, TEAMS, [ROUND_1, ROUND_2, ROUND_3]) is None


def test_the_final_standings_equal_the_hand_computation() -> None:
    # points:      1: W W W = 3     2: L W(forfeit) W = 2    3: W L L = 1    4: L L(forfeit) L = 0
    # Buchholz:    1: 2+1+0 = 3     2: 3+0+1 = 4             3: 0+3+2 = 5    4: 1+2+3 = 6
    # game points: 1: 7+7+7 = 21    2: 4+0+7 = 11            3: 8+5+6 = 19   4: 2+0+3 = 5
    assert standings(TEAMS, ROUND_1 + ROUND_2 + ROUND_3) == (
        Standing(
            rank=1, team=1, points=3, buchholz=3, game_points=21, played=3, won=3, lost=0, byes=0, forfeited=0
        ),
        Standing(
            rank=2, team=2, points=2, buchholz=4, game_points=11, played=3, won=2, lost=1, byes=0, forfeited=0
        ),
        Standing(
            rank=3, team=3, points=1, buchholz=5, game_points=19, played=3, won=1, lost=2, byes=0, forfeited=0
        ),
        Standing(
            rank=4, team=4, points=0, buchholz=6, game_points=5, played=3, won=0, lost=3, byes=0, forfeited=1
        ),
    )
    assert winner_of("swiss", TEAMS, [ROUND_1, ROUND_2, ROUND_3]) == 1


def test_tie_breaks_go_points_then_buchholz_then_game_points_and_full_ties_share_a_rank() -> None:
    results = [
        MatchResult(1, 2, 2, 3, 7),
        MatchResult(3, 4, 3, 7, 3),
        MatchResult(5, None, 5),  # a bye: a point, no Buchholz, no game points
    ]
    table = standings([1, 2, 3, 4, 5], results)
    # 2 and 3 both won 7:3 against a pointless team: equal in everything, so they share rank 1 (seed order);
    # 5's bye is a point too, with fewer game points. 1 and 4 lost with 3 game points each against a
    # one-point team: equal again.
    assert [(s.rank, s.team, s.points, s.buchholz, s.game_points) for s in table] == [
        (1, 2, 1, 0, 7),
        (1, 3, 1, 0, 7),
        (3, 5, 1, 0, 0),
        (4, 1, 0, 1, 3),
        (4, 4, 0, 1, 3),
    ]
    assert table[2].byes == 1 and table[2].played == 0


def test_a_double_forfeit_is_lost_by_both_and_a_removed_team_still_counts_for_its_opponents() -> None:
    results = [MatchResult(1, 2, None, forfeit=True), MatchResult(3, 4, 4, 1, 7)]
    table = {s.team: s for s in standings([1, 2, 3], results)}  # team 4 was removed afterwards
    assert table[1].points == table[2].points == 0
    assert table[1].forfeited == table[2].forfeited == 1
    assert table[3].buchholz == 1  # the removed team's win
    assert 4 not in table


def test_teams_form_from_partners_first_then_singles_in_sign_up_order() -> None:
    teams, left = form_teams(
        [Signup(10), Signup(20, 30), Signup(40), Signup(30, 20), Signup(50, 10), Signup(60), Signup(70)]
    )
    # 20 and 30 named each other; 50 named 10, who signed up alone; singles 40 and 60 pair up; 70 waits.
    assert teams == [(20, 30), (40, 60), (50, 10)]
    assert left == [70]


def test_nobody_is_in_two_teams_whoever_names_them() -> None:
    teams, left = form_teams([Signup(1, 2), Signup(3, 2), Signup(2, 1), Signup(4, 4)])
    members = [person for team in teams for person in team] + left
    assert sorted(members) == [1, 2, 3, 4]
    assert teams == [(1, 2), (3, 4)]
