"""Pairing teams for a round: Swiss by score, or a single-elimination bracket.

Swiss (Monrad-style): the teams come ranked, best first (`standings`); each unpaired team, from the top,
meets the next-ranked team it may meet. Three rules hold, in this order of weight:

* a pairing the organiser forbade is never made, and no team gets a second bye (both are hard rules: when
  they leave no way to pair the round, `PairingImpossible` is raised and the organiser must step in);
* no two teams meet again while another pairing of the round avoids it: the round has the fewest rematches
  any pairing under the hard rules has (usually none);
* with an odd number of teams the bye goes to the lowest-ranked team that has had none (among the pairings
  with those fewest rematches).

The search is a depth-first search over the ranking that remembers which sets of remaining teams could not
be paired within a rematch budget, so a round is found quickly whenever the first tries work, as they do
until the last rounds of a long tournament.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from .model import MatchResult, Pairing, TeamId


class PairingImpossible(Exception):
    """No pairing of the round keeps the hard rules (forbidden pairings, one bye per team)."""


def met_pairs(history: Iterable[Pairing]) -> set[frozenset[TeamId]]:
    return {frozenset(p.teams) for p in history if p.second is not None}


def rematch_count(round_pairings: Iterable[Pairing], history: Iterable[Pairing]) -> int:
    """How many pairings of a round repeat a meeting of `history`.

    >>> rematch_count([Pairing(1, 2), Pairing(3, None)], [Pairing(2, 1)])
    1
    """
    met = met_pairs(history)
    return sum(1 for p in round_pairings if p.second is not None and frozenset(p.teams) in met)


def swiss_pairings(
    ranking: Sequence[TeamId],
    history: Iterable[Pairing] = (),
    forbidden: Collection[Collection[TeamId]] = (),
) -> tuple[Pairing, ...]:
    """The next Swiss round for the teams of `ranking` (best first), given every earlier round's pairings
    (`history`, byes included) and the pairs the organiser forbade. Each pairing names the better-ranked team
    first; the bye, if any, comes last.

    >>> swiss_pairings([1, 2, 3, 4], history=[Pairing(1, 2), Pairing(3, 4)])
    (Pairing(first=1, second=3), Pairing(first=2, second=4))
    >>> swiss_pairings([1, 2, 3], history=[Pairing(3, None)])
    (Pairing(first=1, second=3), Pairing(first=2, second=None))
    """
    order = list(dict.fromkeys(ranking))
    if len(order) != len(ranking):
        raise ValueError("a team is ranked twice")
    history = list(history)
    met = met_pairs(history)
    had_bye = {p.first for p in history if p.second is None}
    banned = {frozenset(pair) for pair in forbidden}
    if len(order) % 2:
        byes: list[TeamId | None] = [team for team in reversed(order) if team not in had_bye]
        if not byes:
            raise PairingImpossible("every team has had its bye")
    else:
        byes = [None]
    search = _Search(met, banned)
    for budget in range(len(order) // 2 + 1):
        for bye in byes:
            rest = tuple(team for team in order if team != bye)
            pairs = search.pair(rest, budget)
            if pairs is not None:
                return (*pairs, *([Pairing(bye, None)] if bye is not None else []))
    raise PairingImpossible("the forbidden pairings leave no way to pair this round")


class _Search:
    def __init__(self, met: set[frozenset[TeamId]], banned: set[frozenset[TeamId]]) -> None:
        self.met = met
        self.banned = banned
        # The largest rematch budget each set of remaining teams is known not to be pairable within.
        self.failed: dict[tuple[TeamId, ...], int] = {}

    def pair(self, rest: tuple[TeamId, ...], budget: int) -> list[Pairing] | None:
        if not rest:
            return []
        if self.failed.get(rest, -1) >= budget:
            return None
        first, others = rest[0], rest[1:]
        for index, partner in enumerate(others):
            key = frozenset((first, partner))
            if key in self.banned:
                continue
            cost = 1 if key in self.met else 0
            if cost > budget:
                continue
            found = self.pair(others[:index] + others[index + 1 :], budget - cost)
            if found is not None:
                return [Pairing(first, partner), *found]
        self.failed[rest] = max(self.failed.get(rest, -1), budget)
        return None


def bracket_order(size: int) -> list[int]:
    """The seeds (1 is the best) in bracket order for a bracket of `size` (a power of two): seed 1 meets the
    last, and the two best can meet only in the final.

    >>> bracket_order(8)
    [1, 8, 4, 5, 2, 7, 3, 6]
    """
    if size < 1 or size & (size - 1):
        raise ValueError(f"a bracket's size is a power of two, not {size}")
    order = [1]
    while len(order) < size:
        double = len(order) * 2
        order = [seed for top in order for seed in (top, double + 1 - top)]
    return order


def elimination_round_count(teams: int) -> int:
    """Rounds of a single elimination for `teams` teams.

    >>> [elimination_round_count(n) for n in (2, 3, 4, 5, 8, 9)]
    [1, 2, 2, 3, 3, 4]
    """
    return max(teams - 1, 0).bit_length()


def elimination_first_round(seeds: Sequence[TeamId]) -> tuple[Pairing, ...]:
    """The first round of a single elimination, `seeds` best first. The bracket is the next power of two;
    its empty places are byes, which go to the best seeds (each team has at most one: byes happen only here).

    >>> elimination_first_round([10, 20, 30, 40, 50])
    (Pairing(first=10, second=None), Pairing(first=40, second=50), Pairing(first=20, second=None), Pairing(first=30, second=None))
    """
    if len(seeds) < 2:
        raise ValueError("an elimination needs two teams")
    size = 1 << elimination_round_count(len(seeds))
    order = bracket_order(size)
    pairings: list[Pairing] = []
    for slot in range(0, size, 2):
        top, bottom = order[slot], order[slot + 1]
        first, second = min(top, bottom), max(top, bottom)
        pairings.append(Pairing(seeds[first - 1], seeds[second - 1] if second <= len(seeds) else None))
    return tuple(pairings)


def elimination_next_round(previous: Sequence[MatchResult]) -> tuple[Pairing, ...]:
    """The next round of a bracket: the winners of neighbouring matches of the previous round meet. Every
    match must have a winner (an organiser decides a double forfeit by hand).

    >>> elimination_next_round([MatchResult(1, None, 1), MatchResult(4, 5, 5)])
    (Pairing(first=1, second=5),)
    """
    if len(previous) < 2 or len(previous) % 2:
        raise ValueError("a bracket round has an even number of matches")
    winners: list[TeamId] = []
    for result in previous:
        if result.winner is None:
            raise ValueError(f"the match {result.first} v {result.second} has no winner")
        winners.append(result.winner)
    return tuple(Pairing(winners[i], winners[i + 1]) for i in range(0, len(winners), 2))
