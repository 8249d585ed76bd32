"""The state of one deal: an immutable tuple of tuples, replaced (never mutated) by every action.

``DealState`` is a NamedTuple rather than a frozen dataclass for speed: the random-play benchmark and the
AI's rollouts build a new state per action, and a tuple copies several times faster.
"""

from __future__ import annotations

from typing import Literal, NamedTuple, get_args

from .cards import team_of
from .contracts import Contract
from .ruleset import Ruleset

Phase = Literal["trump", "auction", "doubling", "play", "finished"]
PHASES: tuple[Phase, ...] = get_args(Phase)
TRUMP, AUCTION, DOUBLING, PLAY, FINISHED = PHASES


class Trick(NamedTuple):
    leader: int
    plays: tuple[tuple[int, str], ...]  # (seat, card) in playing order
    winner: int
    points: int

    @property
    def cards(self) -> tuple[str, ...]:
        return tuple(card for _, card in self.plays)


class Marriage(NamedTuple):
    seat: int
    suit: str
    value: int
    trick_no: int  # 1-based number of the trick it was announced on
    card: str  # the King or Ober led with the announcement


class DealResult(NamedTuple):
    winner: int  # team 0 (NS) or 1 (EW)
    base: int
    multiplier: int
    game_points: int
    reason: str
    made: bool  # did the declaring side make its contract?


class DealState(NamedTuple):
    rules: Ruleset
    dealer: int
    dealt: tuple[tuple[str, ...], ...]  # each seat's five cards in deal order
    hands: tuple[tuple[str, ...], ...]  # cards still held
    phase: Phase
    to_act: int | None
    trump: str | None = None
    aufschlag_card: str | None = None
    auction: tuple[tuple[int, Contract | None], ...] = ()  # every auction turn; None is a pass
    # Per seat, the contracts its hand and seat allow, fixed once trump is known (ranks are checked later).
    eligible: tuple[tuple[Contract, ...], ...] = ()
    contract: Contract | None = None
    declarer: int | None = None
    multiplier: int = 1
    doubling: tuple[tuple[int, str], ...] = ()  # every doubling answer: (seat, "pass"/"kontra"/...)
    ask_queue: tuple[int, ...] = ()  # seats still to be asked at the current doubling level
    sitting_out: int | None = None
    trick: tuple[tuple[int, str], ...] = ()  # the trick in progress
    tricks: tuple[Trick, ...] = ()
    team_cards: tuple[int, int] = (0, 0)  # card points of tricks won
    team_tricks: tuple[int, int] = (0, 0)
    marriages: tuple[Marriage, ...] = ()
    result: DealResult | None = None

    @property
    def forehand(self) -> int:
        return (self.dealer + 1) % 4

    @property
    def finished(self) -> bool:
        return self.phase == FINISHED

    @property
    def trick_no(self) -> int:
        """1-based number of the trick being played (or about to be led)."""
        return len(self.tricks) + 1

    @property
    def final_lead(self) -> Marriage | None:
        """The announcement that ended the deal at once, if one did: its card was led, but the trick it opened
        was never played (RULES.md 6.1: the card is not played, and stays in ``hands``)."""
        if self.phase != FINISHED or not self.marriages or self.marriages[-1].trick_no != len(self.tricks) + 1:
            return None
        return self.marriages[-1]

    def declaring_team(self) -> int | None:
        return None if self.declarer is None else team_of(self.declarer)

    def marriage_points(self, team: int) -> int:
        """Marriages of a team that count now: only once the team has won a trick."""
        if not self.team_tricks[team]:
            return 0
        return sum(m.value for m in self.marriages if team_of(m.seat) == team)

    def total(self, team: int) -> int:
        return self.team_cards[team] + self.marriage_points(team)
