"""Facts the engine reports from ``apply`` (past tense). The bot logs and announces these."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .contracts import Contract
from .state import Phase

BummerlKind = Literal["bummerl", "schneider", "retourschneider"]  # 1 Bummerl, or the Schneider penalties


@dataclass(frozen=True, slots=True)
class TrumpChosen:
    seat: int
    suit: str
    aufschlag_card: str | None  # the card turned face up, when the forehand schlägt auf


@dataclass(frozen=True, slots=True)
class BidMade:
    seat: int
    contract: Contract


@dataclass(frozen=True, slots=True)
class Passed:
    seat: int
    phase: Phase  # auction or doubling


@dataclass(frozen=True, slots=True)
class AuctionWon:
    seat: int  # the declarer (the forehand, nominally, in a normal game)
    contract: Contract


@dataclass(frozen=True, slots=True)
class Doubled:
    seat: int
    word: str  # kontra, re, subkontra
    multiplier: int


@dataclass(frozen=True, slots=True)
class PlayStarted:
    leader: int
    sitting_out: int | None


@dataclass(frozen=True, slots=True)
class CardPlayed:
    seat: int
    card: str


@dataclass(frozen=True, slots=True)
class MarriageAnnounced:
    seat: int
    suit: str
    value: int
    counted: bool  # False while the team has no trick yet (pending)


@dataclass(frozen=True, slots=True)
class MarriageCounted:
    """A pending marriage counts now: the announcer's team has won its first trick."""

    seat: int
    suit: str
    value: int


@dataclass(frozen=True, slots=True)
class TrickWon:
    seat: int
    cards: tuple[str, ...]
    points: int
    trick_no: int  # 1-based


@dataclass(frozen=True, slots=True)
class ContractMade:
    declarer: int
    contract: Contract


@dataclass(frozen=True, slots=True)
class ContractFailed:
    declarer: int
    contract: Contract


@dataclass(frozen=True, slots=True)
class DealScored:
    winner: int  # team
    base: int
    multiplier: int
    game_points: int
    reason: str


@dataclass(frozen=True, slots=True)
class BummerlWon:
    winner: int  # team
    kind: BummerlKind
    count: int
    score: tuple[int, int]  # the final count-up score before the reset


Event = (
    TrumpChosen
    | BidMade
    | Passed
    | AuctionWon
    | Doubled
    | PlayStarted
    | CardPlayed
    | MarriageAnnounced
    | MarriageCounted
    | TrickWon
    | ContractMade
    | ContractFailed
    | DealScored
    | BummerlWon
)
