"""What a change of a table did, as the table core reports it: typed, frozen domain events (past tense, as the
engine's events are). The core returns them with the table's new snapshot; subscribers (bot/game/subscribers/)
turn them into rows of their own inside the change's transaction, and the shell's listener into redraws.

A subscriber may answer with events of its own (``BummerlRated``), which the subscribers registered after it
see in the same change. Here too: what a subscriber is handed (``Change``), what the core's listeners are
told, and what an accepted action returns (``Outcome``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import engine
from bot.db import SeatRow, TableRow
from engine import Action
from engine.events import BummerlWon, Event

from .table import TableSnapshot


@dataclass(frozen=True, slots=True)
class TableOpened:
    host_id: int


@dataclass(frozen=True, slots=True)
class SeatTaken:
    seat: int
    user_id: int | None  # None: an AI sat down


@dataclass(frozen=True, slots=True)
class SeatLeft:
    """A person left: in the lobby the seat empties, during a game the AI plays it for good."""

    occupant: SeatRow  # the seat as it was (its hand message is theirs to retire)


@dataclass(frozen=True, slots=True)
class HostChanged:
    user_id: int
    name: str


@dataclass(frozen=True, slots=True)
class LobbyChanged:
    """The host changed the lobby's practice flag or rules."""


@dataclass(frozen=True, slots=True)
class TableStarted:
    """The host started (empty seats got AI players) or the players chose a rematch."""

    rematch: bool = False


@dataclass(frozen=True, slots=True)
class DealDealt:
    deal_no: int
    dealer: int


@dataclass(frozen=True, slots=True)
class ActionTaken:
    seat: int
    action: Action
    engine_events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class DealEnded:
    """The deal's last action: ``table`` is the table as it stood then (before the next deal), its seats and
    their hand messages as they were during the deal."""

    table: TableSnapshot  # its ``deal`` is the finished deal


@dataclass(frozen=True, slots=True)
class BummerlEnded:
    table: TableSnapshot  # as it stood when the Bummerl's last deal ended
    bummerl: BummerlWon


@dataclass(frozen=True, slots=True)
class BummerlRated:
    """Answered by deal accounting for a rated Bummerl: the pair's tally after it and every person's change."""

    tally: tuple[int, int]
    ratings: tuple[tuple[str, int, int], ...]  # (name, change, shown rating) per person, in seat order


@dataclass(frozen=True, slots=True)
class PlayerWarned:
    seat: int
    user_id: int
    seconds: int  # left before the AI takes over


@dataclass(frozen=True, slots=True)
class TakenOver:
    seat: int
    name: str


@dataclass(frozen=True, slots=True)
class SeatReclaimed:
    """A person the AI stood in for (or who was warned) acted again: their turn clock starts afresh."""

    seat: int


@dataclass(frozen=True, slots=True)
class DmsClosed:
    seat: int
    user_id: int


@dataclass(frozen=True, slots=True)
class MessageStored:
    """The shell's own bookkeeping: the table message or a hand message was stored or forgotten (nothing to
    redraw; the shell made that message)."""


@dataclass(frozen=True, slots=True)
class TableClosed:
    reason_key: str


@dataclass(frozen=True, slots=True)
class TableSetAside:
    """On start-up the table's record no longer replayed: it was closed, its channel is told."""


TableEvent = (
    TableOpened
    | SeatTaken
    | SeatLeft
    | HostChanged
    | LobbyChanged
    | TableStarted
    | DealDealt
    | ActionTaken
    | DealEnded
    | BummerlEnded
    | BummerlRated
    | PlayerWarned
    | TakenOver
    | SeatReclaimed
    | DmsClosed
    | MessageStored
    | TableClosed
    | TableSetAside
)


@dataclass(frozen=True, slots=True)
class Change:
    """What a subscriber sees of a change, inside its transaction: the table's stored row before it, the
    domain events so far (of the core, then of the subscribers before this one) and the change's time."""

    row: TableRow
    events: tuple[TableEvent, ...]
    now: int


class Subscriber(Protocol):
    async def __call__(self, change: Change) -> Sequence[TableEvent]:
        """Write what the change causes (inside its transaction); returns events of its own, if any. A move that
        changes nothing but the deal (`ActionTaken` alone: no deal ended, no seat taken back) is not shown to
        subscribers: it is stored as one write known in full (`TableCore._commit_action`)."""
        ...


# Told after every published change: (the table before, the table after, the change's domain events).
Listener = Callable[[TableSnapshot | None, TableSnapshot, tuple[TableEvent, ...]], None]


@dataclass(frozen=True)
class Outcome:
    """What one accepted action did: the table's new snapshot and the change's domain events (``changes``),
    with the engine's events and what the shell used to be told by hand."""

    table: TableSnapshot
    seat: int
    action: Action
    events: tuple[Event, ...]
    finished_deal: engine.DealState | None  # the deal this action finished, if any
    bummerl: BummerlWon | None
    new_deal: bool  # a new deal was dealt after this action
    # The table as it stood when the finished deal ended (for its result message), if a deal ended.
    deal_end: TableSnapshot | None = None
    changes: tuple[TableEvent, ...] = ()


# The seed of a table's deal ``deal_no`` (the third argument draws a random one); None: its planned deals are over.
# A table whose deals are fixed in advance (a daily attempt, bot/game/daily.py) plans them; others draw at random.
DealPlan = Callable[[TableRow, int, Callable[[], int]], Awaitable[int | None]]


async def random_deals(row: TableRow, deal_no: int, new_seed: Callable[[], int]) -> int | None:
    return new_seed()
