"""A table as the service publishes it: an immutable snapshot of its stored row and seats and of the engine
state replayed from its record. Every change makes a new snapshot; none is ever changed in place."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import engine
from bot.db import SeatRow, TableRecord, TableRow, pair_key
from engine import DealState, MatchState, Ruleset
from engine import events as ev
from engine.events import Event

LOG_LINES = 8  # public log lines kept for the table message

LogLine = tuple[str, dict[str, object]]  # (catalogue key, values)
Seats = tuple[SeatRow | None, SeatRow | None, SeatRow | None, SeatRow | None]


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    """One open table at one moment: its stored row and seats (N, E, S, W), its rules, the Bummerl so far, the
    running (or last) deal and the public log. Compared by value; ``dataclasses.replace`` makes the next."""

    row: TableRow
    seats: Seats
    rules: Ruleset
    match: MatchState
    deal: DealState | None = None
    deal_no: int = -1
    log: tuple[LogLine, ...] = ()
    last_bummerl: ev.BummerlWon | None = None  # the Bummerl that the latest finished deal ended, if any

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def version(self) -> int:
        return self.row.version

    @property
    def status(self) -> str:
        return self.row.status

    # What the Discord shell shows and where: read through these, never through the storage row.

    @property
    def guild_id(self) -> int:
        """The guild the table is in."""
        return self.row.guild_id

    @property
    def channel_id(self) -> int:
        """The channel (or thread) its message is in."""
        return self.row.channel_id

    @property
    def host_id(self) -> int:
        """Who opened it."""
        return self.row.host_id

    @property
    def deck(self) -> str:
        """Its card style (``french`` or ``doppeldeutsch``)."""
        return self.row.deck

    @property
    def turn_seconds(self) -> int:
        """How long a person's turn lasts before the AI takes it over."""
        return self.row.turn_seconds

    @property
    def language(self) -> str:
        """The language of its public messages."""
        return self.row.language

    @property
    def table_message_id(self) -> int | None:
        """Its table message, once posted."""
        return self.row.table_message_id

    @property
    def thread_parent_id(self) -> int | None:
        """The channel whose thread the bot opened for it, if it lives in one."""
        return self.row.thread_parent_id

    @property
    def practice(self) -> bool:
        """A practice table: hints, and its deals count for no statistic or rating."""
        return self.row.practice

    @property
    def updated_at(self) -> int:
        """When it last changed (Unix seconds)."""
        return self.row.updated_at

    def seat_of(self, user_id: int) -> int | None:
        for seat in self.seats:
            if seat is not None and seat.user_id == user_id:
                return seat.seat
        return None

    def names(self) -> tuple[str, str, str, str]:
        a, b, c, d = (s.display_name if s else "—" for s in self.seats)
        return a, b, c, d

    def team_key(self, team: int) -> tuple[int, int]:
        """The pair of ``team`` (0: N and S, 1: E and W) as tallies store it (an AI seat counts as 0)."""
        a, b = self.seats[team], self.seats[team + 2]
        return pair_key(a.user_id if a else None, b.user_id if b else None)

    def humans(self) -> list[SeatRow]:
        return [s for s in self.seats if s is not None and s.user_id is not None]

    def is_ai_turn(self) -> bool:
        """Is the seat to act played by the AI (an AI seat, or a human taken over while idle)?"""
        if self.deal is None or self.deal.to_act is None:
            return False
        seat = self.seats[self.deal.to_act]
        return seat is None or seat.user_id is None or seat.ai_takeover


def seats_by_number(seats: Iterable[SeatRow]) -> Seats:
    by_seat: list[SeatRow | None] = [None] * 4
    for seat in seats:
        by_seat[seat.seat] = seat
    return by_seat[0], by_seat[1], by_seat[2], by_seat[3]


def rules_of(row: TableRow) -> Ruleset:
    return engine.ruleset_from_json(json.loads(row.rules_json))


def restore(
    row: TableRow, seats: Iterable[SeatRow], record: TableRecord, *, up_to_deal: int | None = None
) -> TableSnapshot:
    """The table replayed from its stored record by the engine (up to and including deal ``up_to_deal``, by
    default all of it).

    Every accepted action was legal when stored; a record that no longer replays (a rule tightened, a manual
    edit) raises the engine's error, and the caller sets that one table aside.
    """
    rules = rules_of(row)
    game = engine.GameRecord(
        rules,
        record.first_dealer,
        tuple(engine.DealRecord(deal.hands, deal.actions) for deal in record.deals),
    )
    match = engine.new_match(rules, record.first_dealer)
    deal: DealState | None = None
    deal_no = -1
    log: tuple[LogLine, ...] = ()
    last_bummerl: ev.BummerlWon | None = None
    for step in engine.replay_steps(game):
        number = record.deals[step.deal].deal_no
        if up_to_deal is not None and number > up_to_deal:
            break
        if step.action is None:
            log = logged(log, "log.new_deal", dealer=step.state.dealer)
        else:
            log = log_events(log, step.events)
        if step.state.finished:
            last_bummerl = step.bummerl
        match, deal, deal_no = step.match, step.state, number
    return TableSnapshot(row, seats_by_number(seats), rules, match, deal, deal_no, log, last_bummerl)


def logged(log: tuple[LogLine, ...], key: str, **values: object) -> tuple[LogLine, ...]:
    """``log`` with one more line, the oldest dropped beyond LOG_LINES."""
    return (*log, (key, values))[-LOG_LINES:]


def log_events(log: tuple[LogLine, ...], events: Sequence[Event]) -> tuple[LogLine, ...]:
    """``log`` with the public log lines of the table message (catalogue keys + values) for engine events."""
    for event in events:
        match event:
            case ev.TrumpChosen(seat, suit, card):
                log = logged(log, "log.aufschlag" if card else "log.trump", seat=seat, suit=suit, card=card)
            case ev.BidMade(seat, contract):
                log = logged(log, "log.bid", seat=seat, contract=contract.id)
            case ev.Passed(seat, phase):
                log = logged(log, "log.pass" if phase == "auction" else "log.no_double", seat=seat)
            case ev.AuctionWon(seat, contract):
                log = logged(log, "log.contract", seat=seat, contract=contract.id)
            case ev.Doubled(seat, word, multiplier):
                log = logged(log, "log.double", seat=seat, word=word, multiplier=multiplier)
            case ev.MarriageAnnounced(seat, suit, value, _):
                log = logged(log, "log.marriage", seat=seat, suit=suit, value=value)
            case ev.TrickWon(seat, _, _, trick_no):
                log = logged(log, "log.trick", seat=seat, trick=trick_no)
            case ev.DealScored(winner, _, _, game_points, _):
                log = logged(log, "log.scored", team=winner, points=game_points)
            case _:
                pass
    return log
