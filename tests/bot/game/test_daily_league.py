"""The monthly leagues' pure rules (bot/game/dailyleague.py): divisions of a fixed size seeded from last
month, the top of each division goes up one and the bottom down one, nobody moves further, nobody is lost or
doubled, and who did not play leaves."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.game import dailyleague as league
from bot.game.dailyleague import Member, MonthScore


def people(n: int) -> list[Member]:
    return [Member(user_id, f"p{user_id}") for user_id in range(n)]


months = st.integers(min_value=0, max_value=45).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(st.tuples(st.integers(-40, 40), st.integers(0, 31)), min_size=n, max_size=n),
        st.integers(min_value=2, max_value=12),
    )
)


@settings(max_examples=300, deadline=None)
@given(months)
def test_next_month_moves_everyone_who_played_at_most_one_division_and_loses_nobody(
    month: tuple[int, list[tuple[int, int]], int],
) -> None:
    n, results, size = month
    ladder = people(n)
    scores = {user_id: MonthScore(score, days) for user_id, (score, days) in enumerate(results)}
    after = league.next_ladder(ladder, scores, size)
    ids = [m.user_id for m in after]
    assert len(ids) == len(set(ids)), "nobody twice"
    assert set(ids) == {user_id for user_id, (_, days) in enumerate(results) if days > 0}, "who played stays"
    # When everyone played, the divisions keep their sizes and everyone moves as the standings show.
    before = {m.user_id: d for d, division in enumerate(league.divisions(ladder, size)) for m in division}
    everyone = {user_id: MonthScore(s.score, max(s.days, 1)) for user_id, s in scores.items()}
    table = {p.member.user_id: p for division in league.standings(ladder, everyone, size) for p in division}
    kept = league.next_ladder(ladder, everyone, size)
    assert [len(d) for d in league.divisions(kept, size)] == [len(d) for d in league.divisions(ladder, size)]
    for d, division in enumerate(league.divisions(kept, size)):
        for member in division:
            assert d == before[member.user_id] - table[member.user_id].move
            assert abs(d - before[member.user_id]) <= 1


@settings(max_examples=200, deadline=None)
@given(months)
def test_the_best_of_a_division_goes_up_and_the_worst_goes_down(month: tuple[int, list[tuple[int, int]], int]) -> None:
    n, results, size = month
    ladder = people(n)
    scores = {user_id: MonthScore(score, days) for user_id, (score, days) in enumerate(results)}
    table = league.standings(ladder, scores, size)
    for d, division in enumerate(table):
        ordered = [(-p.score, -p.days) for p in division]
        assert ordered == sorted(ordered), "ranked by score, then days played"
        assert [p.rank for p in division] == list(range(1, len(division) + 1))
        moves = [p.move for p in division]
        assert moves == sorted(moves, reverse=True), "ups on top, downs at the bottom"
        if d == 0:
            assert 1 not in moves, "nobody goes up from the first division"
        if d == len(table) - 1:
            assert -1 not in moves, "nobody goes down from the last"
        if d > 0:
            assert moves.count(1) == [p.move for p in table[d - 1]].count(-1), "as many up as down"


def test_a_full_month_of_two_divisions_swaps_two_each_way() -> None:
    ladder = people(20)
    scores = {n: MonthScore(n, 5) for n in range(20)}  # the higher the id, the better the month
    table = league.standings(ladder, scores)
    assert [p.member.user_id for p in table[0] if p.move < 0] == [1, 0]
    assert [p.member.user_id for p in table[1] if p.move > 0] == [19, 18]
    after = league.divisions(league.next_ladder(ladder, scores))
    assert [m.user_id for m in after[0]] == [9, 8, 7, 6, 5, 4, 3, 2, 19, 18]
    assert [m.user_id for m in after[1]] == [1, 0, 17, 16, 15, 14, 13, 12, 11, 10]


def test_ties_keep_the_seeding_and_newcomers_join_at_the_bottom_once() -> None:
    ladder = people(3)
    joined = league.ladder_with_newcomers(ladder, [Member(7, "new"), Member(1, "p1"), Member(5, "later")])
    assert [m.user_id for m in joined] == [0, 1, 2, 7, 5]
    assert [m.user_id for m in league.ranked(joined, {})] == [0, 1, 2, 7, 5]
    assert [m.user_id for m in league.ranked(joined, {5: MonthScore(0, 2)})] == [5, 0, 1, 2, 7]


def test_months() -> None:
    assert league.month_of("2026-12-31") == "2026-12"
    assert league.previous_month("2026-03") == "2026-02"
    assert len(league.days_of_month("2028-02")) == 29
