"""A table held in memory: its stored row and seats, and the engine state rebuilt from the record."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import engine
from bot.db import SeatRow, TableRecord, TableRow
from engine import DealState, MatchState, Ruleset
from engine import events as ev
from engine.events import Event

LOG_LINES = 8  # public log lines kept for the table message


@dataclass
class LiveTable:
    row: TableRow
    seats: list[SeatRow | None]
    rules: Ruleset
    match: MatchState
    deal: DealState | None = None
    deal_no: int = -1
    log: list[tuple[str, dict[str, object]]] = field(default_factory=list)  # (catalogue key, values)
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

    def seat_of(self, user_id: int) -> int | None:
        for seat in self.seats:
            if seat is not None and seat.user_id == user_id:
                return seat.seat
        return None

    def names(self) -> tuple[str, str, str, str]:
        return tuple(s.display_name if s else "—" for s in self.seats)  # type: ignore[return-value]

    def humans(self) -> list[SeatRow]:
        return [s for s in self.seats if s is not None and s.user_id is not None]

    def is_ai_turn(self) -> bool:
        """Is the seat to act played by the AI (an AI seat, or a human taken over while idle)?"""
        if self.deal is None or self.deal.to_act is None:
            return False
        seat = self.seats[self.deal.to_act]
        return seat is None or seat.user_id is None or seat.ai_takeover

    def add_log(self, key: str, **values: object) -> None:
        self.log.append((key, values))
        del self.log[:-LOG_LINES]


def rules_of(row: TableRow) -> Ruleset:
    return engine.ruleset_from_json(json.loads(row.rules_json))


def rebuild(row: TableRow, seats: list[SeatRow], record: TableRecord, *, up_to_deal: int | None = None) -> LiveTable:
    """Replay the stored record (up to and including deal ``up_to_deal``, by default all of it).

    Every accepted action was legal when stored; a record that no longer replays (a rule tightened, a manual
    edit) raises the engine's error, and the caller sets that one table aside.
    """
    rules = rules_of(row)
    by_seat: list[SeatRow | None] = [None] * 4
    for seat in seats:
        by_seat[seat.seat] = seat
    table = LiveTable(row, by_seat, rules, engine.new_match(rules, record.first_dealer))
    for deal in record.deals:
        if up_to_deal is not None and deal.deal_no > up_to_deal:
            break
        state = engine.new_deal(rules, table.match.next_dealer, deal.hands)
        for text in deal.actions:
            seat, action = engine.parse_action(text)
            state, events = engine.apply(state, seat, action)
            log_events(table, events)
        table.deal, table.deal_no = state, deal.deal_no
        if state.result is not None:
            table.match, table.last_bummerl = engine.score_deal(table.match, state.result)
    return table


def log_events(table: LiveTable, events: tuple[Event, ...] | list[Event]) -> None:
    """Turn engine events into the public log lines of the table message (catalogue keys + values)."""
    for event in events:
        match event:
            case ev.TrumpChosen(seat, suit, card):
                table.add_log("log.aufschlag" if card else "log.trump", seat=seat, suit=suit, card=card)
            case ev.BidMade(seat, contract):
                table.add_log("log.bid", seat=seat, contract=contract.id)
            case ev.Passed(seat, phase):
                table.add_log("log.pass" if phase == "auction" else "log.no_double", seat=seat)
            case ev.AuctionWon(seat, contract):
                table.add_log("log.contract", seat=seat, contract=contract.id)
            case ev.Doubled(seat, word, multiplier):
                table.add_log("log.double", seat=seat, word=word, multiplier=multiplier)
            case ev.MarriageAnnounced(seat, suit, value, _):
                table.add_log("log.marriage", seat=seat, suit=suit, value=value)
            case ev.TrickWon(seat, _, _, trick_no):
                table.add_log("log.trick", seat=seat, trick=trick_no)
            case ev.DealScored(winner, _, _, game_points, _):
                table.add_log("log.scored", team=winner, points=game_points)
            case _:
                pass
