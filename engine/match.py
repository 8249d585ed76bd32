"""The Bummerl: game points counted up to the target, penalties, and the dealer rotation (RULES.md D11)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, get_args

from .events import BummerlKind, BummerlWon
from .ruleset import Ruleset
from .state import DealResult

BUMMERL, SCHNEIDER, RETOURSCHNEIDER = get_args(BummerlKind)


@dataclass(frozen=True, slots=True)
class BummerlResult:  # not a NamedTuple: its field `count` would shadow tuple.count
    winner: int  # team
    kind: BummerlKind
    count: int  # Bummerl charged to the loser: 1, 2 (Schneider) or 4 (Retourschneider)
    score: tuple[int, int]  # final count-up score (the winner's capped at nothing: surplus is simply lost)


class MatchState(NamedTuple):
    rules: Ruleset
    first_dealer: int
    score: tuple[int, int] = (0, 0)
    bummerls: tuple[BummerlResult, ...] = ()
    deals_played: int = 0
    # Per team: did it lead (target - 1):0 at some moment of this Bummerl? (Retourschneider)
    led_to_nil: tuple[bool, bool] = (False, False)

    @property
    def next_dealer(self) -> int:
        return (self.first_dealer + self.deals_played) % 4


def new_match(rules: Ruleset, first_dealer: int) -> MatchState:
    return MatchState(rules, first_dealer)


def score_deal(match: MatchState, result: DealResult) -> tuple[MatchState, BummerlWon | None]:
    """Add a finished deal's game points; the Bummerl ends as soon as a team reaches the target."""
    rules = match.rules
    score = list(match.score)
    score[result.winner] += result.game_points
    led = list(match.led_to_nil)
    for team in (0, 1):
        if score[team] == rules.target - 1 and score[1 - team] == 0:
            led[team] = True
    winner = result.winner
    if score[winner] < rules.target:
        return match._replace(
            score=(score[0], score[1]), deals_played=match.deals_played + 1, led_to_nil=(led[0], led[1])
        ), None
    loser = 1 - winner
    if led[loser] and rules.retourschneider_bummerl:
        kind, count = RETOURSCHNEIDER, rules.retourschneider_bummerl
    elif score[loser] == 0:
        kind, count = SCHNEIDER, rules.schneider_bummerl
    else:
        kind, count = BUMMERL, 1
    final = (score[0], score[1])
    done = BummerlResult(winner, kind, count, final)
    event = BummerlWon(winner, kind, count, final)
    return MatchState(
        rules, match.first_dealer, (0, 0), (*match.bummerls, done), match.deals_played + 1, (False, False)
    ), event


def displayed_score(rules: Ruleset, score: tuple[int, int]) -> tuple[int, int]:
    """What the table shows: the count-up score, or what is still missing when counting down from the target."""
    if rules.score_display == "count_down":
        return (max(0, rules.target - score[0]), max(0, rules.target - score[1]))
    return score
