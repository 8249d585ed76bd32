"""Swiss pairing and elimination brackets, against a brute force over every pairing of small rounds."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.tournament import (
    MatchResult,
    Pairing,
    PairingImpossible,
    elimination_first_round,
    elimination_next_round,
    next_round,
    rematch_count,
    swiss_pairings,
)
from bot.tournament.pairing import met_pairs


def every_pairing(teams: list[int]) -> Iterator[list[Pairing]]:
    """Every way to pair `teams` (one of them with a bye when they are odd)."""
    if not teams:
        yield []
        return
    if len(teams) % 2:
        for bye in teams:
            rest = [team for team in teams if team != bye]
            for pairs in every_pairing(rest):
                yield [*pairs, Pairing(bye, None)]
        return
    first, others = teams[0], teams[1:]
    for index, partner in enumerate(others):
        for pairs in every_pairing(others[:index] + others[index + 1 :]):
            yield [Pairing(first, partner), *pairs]


def keeps_hard_rules(pairs: list[Pairing], history: list[Pairing], forbidden: set[frozenset[int]]) -> bool:
    had_bye = {p.first for p in history if p.bye}
    return all((p.first not in had_bye) if p.bye else frozenset(p.teams) not in forbidden for p in pairs)


@st.composite
def rounds_so_far(draw: st.DrawFn) -> tuple[list[int], list[Pairing], set[frozenset[int]]]:
    """A ranking of 2-9 teams, earlier rounds' pairings (any, rematches too; each team at most one bye)
    and a few forbidden pairs."""
    count = draw(st.integers(2, 9))
    teams = draw(st.permutations(list(range(1, count + 1))))
    history: list[Pairing] = []
    had_bye: set[int] = set()
    for _ in range(draw(st.integers(0, 5))):
        shuffled = draw(st.permutations(teams))
        if count % 2:
            candidates = [team for team in shuffled if team not in had_bye]
            if not candidates:
                break
            bye = candidates[0]
            had_bye.add(bye)
            history.append(Pairing(bye, None))
            shuffled = [team for team in shuffled if team != bye]
        history.extend(Pairing(shuffled[i], shuffled[i + 1]) for i in range(0, len(shuffled), 2))
    pairs = [frozenset((a, b)) for a in teams for b in teams if a < b]
    forbidden = set(draw(st.lists(st.sampled_from(pairs), max_size=3)))
    return list(teams), history, forbidden


@settings(max_examples=400, deadline=None)
@given(rounds_so_far())
def test_a_swiss_round_keeps_the_hard_rules_with_the_fewest_rematches_and_the_lowest_bye(
    case: tuple[list[int], list[Pairing], set[frozenset[int]]],
) -> None:
    ranking, history, forbidden = case
    possible = [pairs for pairs in every_pairing(ranking) if keeps_hard_rules(pairs, history, forbidden)]
    if not possible:
        with pytest.raises(PairingImpossible):
            swiss_pairings(ranking, history, forbidden)
        return
    made = list(swiss_pairings(ranking, history, forbidden))
    assert sorted(team for p in made for team in p.teams) == sorted(ranking), "every team once"
    assert keeps_hard_rules(made, history, forbidden), "no forbidden pairing, no second bye"
    fewest = min(rematch_count(pairs, history) for pairs in possible)
    assert rematch_count(made, history) == fewest, "no rematch while avoidable"
    byes = [p.first for p in made if p.bye]
    if byes:
        lowest = max(
            ranking.index(p.first)
            for pairs in possible
            if rematch_count(pairs, history) == fewest
            for p in pairs
            if p.bye
        )
        assert ranking.index(byes[0]) == lowest, "the bye goes to the lowest team that can have it"


@pytest.mark.parametrize("seed", range(40))
def test_a_whole_swiss_has_no_rematch_while_avoidable_and_at_most_one_bye_per_team(seed: int) -> None:
    """Seeded tournaments of 3-12 teams with random results and forbidden pairs, played round by round
    through `next_round` as the bot plays them."""
    rng = random.Random(seed)
    teams = list(range(1, rng.randint(3, 12) + 1))
    forbidden = {frozenset(rng.sample(teams, 2)) for _ in range(rng.randint(0, 2))}
    rounds: list[list[MatchResult]] = []
    for _ in range(len(teams) - 1):
        try:
            pairs = next_round("swiss", len(teams) - 1, teams, rounds, forbidden=forbidden)
        except PairingImpossible:
            # Only when there truly is no pairing under the hard rules (checked exhaustively where cheap).
            if len(teams) <= 9:
                history = [r.pairing for rr in rounds for r in rr]
                assert not any(keeps_hard_rules(p, history, forbidden) for p in every_pairing(teams))
            break
        assert pairs is not None
        history = [r.pairing for rr in rounds for r in rr]
        assert not any(frozenset(p.teams) in forbidden for p in pairs if not p.bye)
        if len(teams) <= 9:
            fewest = min(
                rematch_count(p, history)
                for p in every_pairing(teams)
                if keeps_hard_rules(p, history, forbidden)
            )
            assert rematch_count(pairs, history) == fewest
        rounds.append(
            [
                MatchResult.bye(p.first)
                if p.second is None
                else MatchResult(
                    p.first, p.second, rng.choice([p.first, p.second]), rng.randint(0, 24), rng.randint(0, 24)
                )
                for p in pairs
            ]
        )
    played = [r.pairing for rr in rounds for r in rr]
    byes = [p.first for p in played if p.bye]
    assert len(byes) == len(set(byes)), "a team had two byes"
    meetings = [frozenset(p.teams) for p in played if not p.bye]
    if len(rounds) <= 3 and not forbidden:
        # Few rounds of a round robin's worth: a rematch is always avoidable, so none happened.
        assert len(meetings) == len(set(meetings))


def test_forbidden_pairings_are_never_made_even_at_the_cost_of_a_rematch() -> None:
    history = [Pairing(1, 3), Pairing(2, 4)]
    made = swiss_pairings([1, 2, 3, 4], history, forbidden=[(1, 2), (1, 4)])
    assert made == (Pairing(1, 3), Pairing(2, 4))
    assert rematch_count(made, history) == 2


def test_no_way_to_pair_is_refused_not_guessed() -> None:
    with pytest.raises(PairingImpossible):
        swiss_pairings([1, 2], forbidden=[(1, 2)])
    with pytest.raises(PairingImpossible):
        swiss_pairings([1], history=[Pairing(1, None)])


def test_a_ranking_naming_a_team_twice_is_refused() -> None:
    with pytest.raises(ValueError):
        swiss_pairings([1, 2, 1])


@pytest.mark.parametrize("count", range(2, 17))
def test_an_elimination_gives_byes_to_the_best_seeds_once_and_ends_with_one_winner(count: int) -> None:
    seeds = list(range(101, 101 + count))
    rounds: list[list[MatchResult]] = []
    met: list[Pairing] = []
    while (pairs := next_round("elimination", 0, seeds, rounds)) is not None:
        met.extend(pairs)
        # The better seed (lower number) always wins, so the bracket's order shows in the final.
        rounds.append(
            [
                MatchResult.bye(p.first) if p.bye else MatchResult(p.first, p.second, min(p.teams))
                for p in pairs
            ]
        )
    byes = [p.first for p in met if p.bye]
    assert len(byes) == len(set(byes))
    assert set(byes) == set(seeds[: (1 << (count - 1).bit_length()) - count])
    assert len(rounds[-1]) == 1 and rounds[-1][0].winner == 101
    assert set(rounds[-1][0].pairing.teams) == {101, 102}, "the two best seeds meet only in the final"
    assert len(met_pairs(met)) == sum(1 for p in met if not p.bye), "no two teams meet twice in a bracket"


def test_an_elimination_round_needs_every_winner() -> None:
    with pytest.raises(ValueError):
        elimination_next_round([MatchResult(1, 2, None, forfeit=True), MatchResult(3, 4, 3)])
    with pytest.raises(ValueError):
        elimination_first_round([1])
