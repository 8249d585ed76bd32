"""Monthly leagues of the daily deal, per server: pure rules (no storage, no clock).

A server's league for a month is a ladder of people cut into divisions of ``DIVISION_SIZE``, best division
first. The ladder is seeded from the month before: who finished in the top ``MOVES`` of a division goes up one,
who finished in its bottom ``MOVES`` goes down one, everyone else stays. Inside a division people are ranked by
their daily scores of the month (the sum of each day's score against par), then by days played, then by where
they were seeded. Someone who played no day of a month leaves the ladder at its end (they come back at the
bottom when they play again); someone new this month joins at the bottom, in the order they first played.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

DIVISION_SIZE = 10
MOVES = 2  # promoted from (and relegated to) each division below the first, at the month's end


@dataclass(frozen=True, slots=True)
class Member:
    """One person on the ladder (the month's seeding) or new this month."""

    user_id: int
    display_name: str


@dataclass(frozen=True, slots=True)
class MonthScore:
    score: int  # the sum of the month's daily scores against par
    days: int  # days played in the month


@dataclass(frozen=True, slots=True)
class Placed:
    """A person's place in their division as the month stands, and where that sends them next month."""

    member: Member
    rank: int  # 1 = top of the division
    score: int
    days: int
    move: int  # +1 promoted, -1 relegated, 0 stays (as the month stands now)


def month_of(day: str) -> str:
    """The month (YYYY-MM) of a day (YYYY-MM-DD).

    >>> month_of("2026-12-03")
    '2026-12'
    """
    return day[:7]


def previous_month(month: str) -> str:
    """The month before.

    >>> previous_month("2026-01"), previous_month("2026-12")
    ('2025-12', '2026-11')
    """
    first = dt.date.fromisoformat(f"{month}-01")
    return month_of((first - dt.timedelta(days=1)).isoformat())


def days_of_month(month: str) -> list[str]:
    """Every day of the month.

    >>> days = days_of_month("2026-02"); len(days), days[0], days[-1]
    (28, '2026-02-01', '2026-02-28')
    """
    first = dt.date.fromisoformat(f"{month}-01")
    days = []
    day = first
    while day.month == first.month:
        days.append(day.isoformat())
        day += dt.timedelta(days=1)
    return days


def ladder_with_newcomers(ladder: Sequence[Member], newcomers: Iterable[Member]) -> list[Member]:
    """The month's ladder as seeded, then everyone new this month at the bottom (in the order given: the
    order they first played); someone already on the ladder is not added twice."""
    seeded = {member.user_id for member in ladder}
    joined = list(ladder)
    for member in newcomers:
        if member.user_id not in seeded:
            seeded.add(member.user_id)
            joined.append(member)
    return joined


def divisions(ladder: Sequence[Member], size: int = DIVISION_SIZE) -> list[list[Member]]:
    """The ladder cut into divisions of ``size``, best first (the last may be smaller).

    >>> [len(d) for d in divisions([Member(n, str(n)) for n in range(23)])]
    [10, 10, 3]
    """
    return [list(ladder[start : start + size]) for start in range(0, len(ladder), size)]


def moves_between(upper: int, lower: int, size: int = DIVISION_SIZE, moves: int = MOVES) -> int:
    """How many go up from a division of ``lower`` people into the one of ``upper`` above it, and as many
    down: ``moves``, but no more than either division holds, and at most half a full division (so that nobody
    in a division between two others goes up and down at once).

    >>> moves_between(10, 10), moves_between(10, 1), moves_between(3, 3, size=3)
    (2, 1, 1)
    """
    return max(0, min(moves, size // 2, upper, lower))


def ranked(division: Sequence[Member], scores: Mapping[int, MonthScore]) -> list[Member]:
    """A division in the order of the month: score, then days played, then seeding (its order as given)."""
    nothing = MonthScore(0, 0)
    seeding = {member.user_id: n for n, member in enumerate(division)}
    return sorted(
        division,
        key=lambda m: (-scores.get(m.user_id, nothing).score, -scores.get(m.user_id, nothing).days, seeding[m.user_id]),
    )


def standings(ladder: Sequence[Member], scores: Mapping[int, MonthScore], size: int = DIVISION_SIZE) -> list[list[Placed]]:
    """Every division ranked as the month stands, with where each place sends its holder next month."""
    finished = [ranked(division, scores) for division in divisions(ladder, size)]
    placed: list[list[Placed]] = []
    for d, division in enumerate(finished):
        up = moves_between(len(finished[d - 1]), len(division), size) if d > 0 else 0
        down = moves_between(len(division), len(finished[d + 1]), size) if d + 1 < len(finished) else 0
        rows = []
        for n, member in enumerate(division):
            move = 1 if n < up else -1 if n >= len(division) - down else 0
            score = scores.get(member.user_id, MonthScore(0, 0))
            rows.append(Placed(member, n + 1, score.score, score.days, move))
        placed.append(rows)
    return placed


def next_ladder(ladder: Sequence[Member], scores: Mapping[int, MonthScore], size: int = DIVISION_SIZE) -> list[Member]:
    """Next month's ladder from this month's (``ladder``: seeded and newcomers) and its scores: each division
    gets the ones relegated from above first, then its stayers in their order of the month, then the ones
    promoted from below; then whoever played no day of the month leaves it.

    >>> people = [Member(n, str(n)) for n in range(12)]
    >>> scores = {n: MonthScore(score=n, days=1) for n in range(12)}  # the higher the id, the better the month
    >>> [m.user_id for m in next_ladder(people, scores)]
    [9, 8, 7, 6, 5, 4, 3, 2, 11, 10, 1, 0]
    """
    table = standings(ladder, scores, size)
    new: list[list[Member]] = [[] for _ in table]
    for d, division in enumerate(table):
        for place in division:
            if place.move == 0:
                new[d].append(place.member)
        if d > 0:  # the relegated of the division above lead this one; its promoted close the one above
            new[d][:0] = [p.member for p in table[d - 1] if p.move < 0]
            new[d - 1].extend(p.member for p in division if p.move > 0)
    return [member for division in new for member in division if scores.get(member.user_id, MonthScore(0, 0)).days > 0]
