"""The table service: every change to a table goes through here, under that table's lock.

Order of work for an action: check (seat, turn, version, legality) -> engine.apply -> store everything the
action changes in ONE transaction -> only then update memory. The Discord shell announces afterwards, so
nothing is ever announced that is not stored.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

import engine
from bot.db import (
    AlreadySeated,
    BummerlResult,
    ChannelBusy,
    Database,
    DealResult,
    Player,
    PlayerDealStats,
    SeatTaken,
    TableRow,
)
from engine import Action
from engine.events import BummerlWon, Event

from .errors import UserError
from .table import LiveTable, log_events, rebuild, rules_of

PRESETS = ("standard", "stargames")
DECKS = ("doppeldeutsch", "french")
AI_NAMES = ("Sepp", "Resi", "Ferdl", "Mitzi")


@dataclass(frozen=True)
class Outcome:
    """What one accepted action did, for the shell to announce."""

    table: LiveTable
    seat: int
    action: Action
    events: tuple[Event, ...]
    finished_deal: engine.DealState | None  # the deal this action finished, if any
    bummerl: BummerlWon | None
    new_deal: bool  # a new deal was dealt after this action
    # The finished deal's DMs (seat, channel, message): they get a last edit showing the end of that deal.
    finished_dms: tuple[tuple[int, int, int], ...] = ()


class TableService:
    def __init__(
        self,
        db: Database,
        *,
        clock: Callable[[], float] = time.time,
        seed_source: Callable[[], int] | None = None,
    ) -> None:
        self.db = db
        self.clock = clock
        rng = random.SystemRandom()
        self.new_seed = seed_source or (lambda: rng.getrandbits(62))
        self.tables: dict[int, LiveTable] = {}
        self._locks: dict[int, asyncio.Lock] = {}

    def now(self) -> int:
        return int(self.clock())

    def lock(self, table_id: int) -> asyncio.Lock:
        return self._locks.setdefault(table_id, asyncio.Lock())

    # --- loading ---------------------------------------------------------------------------------

    async def restore_all(self) -> list[LiveTable]:
        """Rebuild every open table from the database (on start-up)."""
        restored = []
        for row in await self.db.list_open_tables():
            restored.append(await self._load(row))
        return restored

    async def _load(self, row: TableRow) -> LiveTable:
        seats = await self.db.seats_of(row.id)
        record = await self.db.load_record(row.id)
        table = rebuild(row, seats, record)
        self.tables[row.id] = table
        return table

    def table_in_channel(self, channel_id: int) -> LiveTable | None:
        for table in self.tables.values():
            if table.row.channel_id == channel_id and table.status != "closed":
                return table
        return None

    def table_of_user(self, user_id: int) -> LiveTable | None:
        for table in self.tables.values():
            if table.status != "closed" and table.seat_of(user_id) is not None:
                return table
        return None

    def get(self, table_id: int) -> LiveTable:
        table = self.tables.get(table_id)
        if table is None or table.status == "closed":
            raise UserError("error.table_gone")
        return table

    async def _refresh(self, table: LiveTable) -> None:
        """Re-read the row and seats after a lifecycle change (the engine state is unaffected)."""
        row = await self.db.get_table(table.id)
        assert row is not None
        table.row = row
        table.rules = rules_of(row)
        seats = await self.db.seats_of(table.id)
        table.seats = [None] * 4
        for seat in seats:
            table.seats[seat.seat] = seat

    # --- lobby -----------------------------------------------------------------------------------

    async def open_table(
        self,
        *,
        guild_id: int,
        channel_id: int,
        host_id: int,
        host_name: str,
        preset: str,
        deck: str,
        turn_seconds: int,
        language: str,
    ) -> LiveTable:
        if preset not in PRESETS:
            raise UserError("error.bad_preset", preset=preset)
        if deck not in DECKS:
            raise UserError("error.bad_deck", deck=deck)
        if not 15 <= turn_seconds <= 3600:
            raise UserError("error.bad_turn_time")
        if (busy := self.table_of_user(host_id)) is not None:
            raise UserError("error.already_seated", channel=busy.row.channel_id)
        try:
            async with self.db.transaction():
                row = await self.db.create_table(
                    guild_id=guild_id,
                    channel_id=channel_id,
                    host_id=host_id,
                    rules_json=json.dumps(preset),
                    deck=deck,  # type: ignore[arg-type]
                    turn_seconds=turn_seconds,
                    language=language,
                    first_dealer=random.randrange(4),
                    now=self.now(),
                )
                await self.db.take_seat(row.id, 0, host_id, host_name)
        except ChannelBusy:
            raise UserError("error.channel_busy") from None
        except AlreadySeated as err:
            raise UserError("error.already_seated", channel=0) from err
        return await self._load(row)

    async def take_seat(self, table_id: int, user_id: int, name: str, seat: int | None) -> LiveTable:
        async with self.lock(table_id):
            table = self.get(table_id)
            if table.status != "lobby":
                raise UserError("error.not_in_lobby")
            if table.seat_of(user_id) is not None:
                raise UserError("error.already_here")
            if (other := self.table_of_user(user_id)) is not None:
                raise UserError("error.already_seated", channel=other.row.channel_id)
            free = [i for i, s in enumerate(table.seats) if s is None or s.user_id is None]
            if seat is None:
                if not free:
                    raise UserError("error.table_full")
                seat = free[0]
            if seat not in free:
                raise UserError("error.seat_taken")
            try:
                async with self.db.transaction():
                    if table.seats[seat] is not None:
                        await self.db.leave_seat(table.id, seat)  # an AI makes room for a person
                    await self.db.take_seat(table.id, seat, user_id, name)
                    await self.db.bump_version(table.id, self.now())
            except (SeatTaken, AlreadySeated):
                raise UserError("error.seat_taken") from None
            await self._refresh(table)
            return table

    async def add_ai(self, table_id: int, user_id: int, seat: int | None) -> LiveTable:
        async with self.lock(table_id):
            table = self.get(table_id)
            if table.status != "lobby":
                raise UserError("error.not_in_lobby")
            if table.seat_of(user_id) is None:
                raise UserError("error.not_seated_here")
            empty = [i for i, s in enumerate(table.seats) if s is None]
            if not empty:
                raise UserError("error.table_full")
            target = empty[0] if seat is None or seat not in empty else seat
            async with self.db.transaction():
                await self.db.set_ai_seat(table.id, target, AI_NAMES[target])
                await self.db.bump_version(table.id, self.now())
            await self._refresh(table)
            return table

    async def leave(self, table_id: int, user_id: int) -> LiveTable:
        """In the lobby the seat empties; during a game the AI takes the seat over for good."""
        async with self.lock(table_id):
            table = self.get(table_id)
            seat = table.seat_of(user_id)
            if seat is None:
                raise UserError("error.not_seated_here")
            async with self.db.transaction():
                if table.status == "lobby":
                    await self.db.leave_seat(table.id, seat)
                    if user_id == table.row.host_id and (
                        others := [s for s in table.humans() if s.user_id != user_id]
                    ):
                        await self.db.set_host(table.id, others[0].user_id, self.now())  # type: ignore[arg-type]
                else:
                    name = table.seats[seat].display_name  # type: ignore[union-attr]
                    await self.db.set_ai_seat(table.id, seat, f"{AI_NAMES[seat]} ({name})")
                await self.db.bump_version(table.id, self.now())
            await self._refresh(table)
            return table

    async def start(self, table_id: int, user_id: int) -> LiveTable:
        """The host starts: empty seats get AI players, and the first deal is dealt."""
        async with self.lock(table_id):
            table = self.get(table_id)
            if table.status != "lobby":
                raise UserError("error.not_in_lobby")
            if user_id != table.row.host_id:
                raise UserError("error.host_only")
            async with self.db.transaction():
                for seat, occupant in enumerate(table.seats):
                    if occupant is None:
                        await self.db.set_ai_seat(table.id, seat, AI_NAMES[seat])
                await self.db.set_status(table.id, "playing", self.now())
                await self._deal_next(table)
            await self._refresh(table)
            return table

    async def rematch(self, table_id: int, user_id: int) -> LiveTable:
        """After a Bummerl: the same seats play on; the dealer rotation simply continues."""
        async with self.lock(table_id):
            table = self.get(table_id)
            if table.status != "finished":
                raise UserError("error.no_rematch_now")
            if table.seat_of(user_id) is None:
                raise UserError("error.not_seated_here")
            async with self.db.transaction():
                await self.db.set_status(table.id, "playing", self.now())
                await self._deal_next(table)
            await self._refresh(table)
            return table

    async def close(self, table_id: int) -> LiveTable:
        async with self.lock(table_id):
            table = self.get(table_id)
            await self.db.set_status(table.id, "closed", self.now())
            await self._refresh(table)
            del self.tables[table.id]
            return table

    async def _deal_next(self, table: LiveTable) -> None:
        """Deal the next deal inside the caller's transaction; memory follows after the commit."""
        seed = self.new_seed()
        dealer = table.match.next_dealer
        hands = engine.deal_hands(seed, dealer)
        deal_no = table.deal_no + 1
        await self.db.start_deal(table.id, deal_no, dealer, seed, hands, self.now())
        await self.db.bump_version(table.id, self.now())
        for seat in range(4):
            await self.db.set_dm_message(table.id, seat, None, None)
        table.deal, table.deal_no = engine.new_deal(table.rules, dealer, hands), deal_no
        table.add_log("log.new_deal", dealer=dealer)

    # --- playing ---------------------------------------------------------------------------------

    async def act(
        self, table_id: int, seat: int, action: Action, version: int, *, user_id: int | None
    ) -> Outcome:
        """Apply one action for ``seat``. ``user_id`` None means the AI acts for the seat.

        Raises UserError (stale button, not your seat/turn, illegal) and changes nothing then.
        """
        async with self.lock(table_id):
            table = self.get(table_id)
            deal = table.deal
            if table.status != "playing" or deal is None or deal.finished:
                raise UserError("error.no_deal_running")
            occupant = table.seats[seat]
            if user_id is not None and (occupant is None or occupant.user_id != user_id):
                raise UserError("error.not_your_seat")
            if version != table.version:
                raise UserError("error.stale")
            try:
                new_state, events = engine.apply(deal, seat, action)
            except engine.RulesError as err:
                raise UserError(f"rules.{err.code}", message=err.message) from None
            text = engine.format_action(seat, action)
            finished = new_state if new_state.finished else None
            match, bummerl = table.match, None
            now = self.now()
            back = user_id is not None and occupant is not None and (occupant.ai_takeover or occupant.warned)
            async with self.db.transaction():
                await self.db.append_action(table.id, table.deal_no, text, now)
                new_version = await self.db.bump_version(table.id, now)
                if back:
                    await self.db.set_takeover(table.id, seat, False)  # acting takes an idle seat back
                    await self.db.set_warned(table.id, seat, False)
                if finished is not None:
                    match, bummerl = await self._store_finished_deal(table, finished)
            table.deal, table.match = new_state, match
            log_events(table, events)
            new_deal = False
            finished_dms: tuple[tuple[int, int, int], ...] = ()
            if finished is not None:
                finished_dms = tuple(
                    (s.seat, s.dm_channel_id, s.dm_message_id)
                    for s in table.humans()
                    if s.dm_channel_id is not None and s.dm_message_id is not None
                )
                async with self.db.transaction():
                    if bummerl is not None:
                        await self.db.set_status(table.id, "finished", self.now())
                    else:
                        await self._deal_next(table)
                        new_deal = True
            if finished is not None or back:
                await self._refresh(table)
            else:  # the common case, a card or a bid: only the version moved (no need to read it back)
                table.row = replace(table.row, version=new_version, updated_at=now)
            return Outcome(table, seat, action, events, finished, bummerl, new_deal, finished_dms)

    async def _store_finished_deal(
        self, table: LiveTable, deal: engine.DealState
    ) -> tuple[engine.MatchState, BummerlWon | None]:
        result = deal.result
        assert result is not None and deal.contract is not None and deal.declarer is not None
        now = self.now()
        await self.db.record_deal_result(
            DealResult(
                table.id,
                table.deal_no,
                deal.contract.id,
                deal.declarer,
                result.winner,
                result.game_points,
                result.multiplier,
                result.reason,
                now,
            )
        )
        players = [
            PlayerDealStats(
                s.user_id,
                s.display_name,
                won=(s.seat & 1) == result.winner,
                game_points=result.game_points if (s.seat & 1) == result.winner else 0,
                declared=s.seat == deal.declarer and deal.contract is not engine.Contract.NORMAL,
                made=s.seat == deal.declarer and deal.contract is not engine.Contract.NORMAL and result.made,
            )
            for s in table.humans()
            if not s.ai_takeover
        ]
        await self.db.add_deal_stats(table.row.guild_id, players)
        match, bummerl = engine.score_deal(table.match, result)
        if bummerl is not None:

            def pair(team: int) -> tuple[Player, Player]:
                a, b = table.seats[team], table.seats[team + 2]
                return (Player(a.user_id, a.display_name), Player(b.user_id, b.display_name))  # type: ignore[union-attr]

            await self.db.record_bummerl(
                BummerlResult(
                    table.row.guild_id,
                    table.id,
                    pair(bummerl.winner),
                    pair(1 - bummerl.winner),
                    bummerl.kind,
                    bummerl.count,  # type: ignore[arg-type]
                    bummerl.score[bummerl.winner],
                    bummerl.score[1 - bummerl.winner],
                    now,
                )
            )
        return match, bummerl

    # --- idle players ------------------------------------------------------------------------------

    async def mark_warned(self, table_id: int, seat: int, version: int) -> bool:
        """The idle player has been warned (once per turn); False when the turn has moved on."""
        return await self._flag_idle_seat(table_id, seat, version, self.db.set_warned)

    async def take_over(self, table_id: int, seat: int, version: int) -> bool:
        """The idle player's seat is played by the AI until they click again."""
        return await self._flag_idle_seat(table_id, seat, version, self.db.set_takeover)

    async def _flag_idle_seat(
        self, table_id: int, seat: int, version: int, set_flag: Callable[[int, int, bool], Awaitable[None]]
    ) -> bool:
        async with self.lock(table_id):
            table = self.tables.get(table_id)
            if table is None or table.version != version or table.seats[seat] is None:
                return False
            await set_flag(table_id, seat, True)
            await self._refresh(table)
            return True

    async def reclaim(self, table_id: int, user_id: int) -> bool:
        """A player the AI stood in for clicked one of their buttons: they play again themselves."""
        async with self.lock(table_id):
            table = self.tables.get(table_id)
            seat = None if table is None else table.seat_of(user_id)
            if table is None or seat is None or not table.seats[seat].ai_takeover:  # type: ignore[union-attr]
                return False
            async with self.db.transaction():
                await self.db.set_takeover(table_id, seat, False)
                await self.db.set_warned(table_id, seat, False)
            await self._refresh(table)
            return True

    async def set_dm(self, table_id: int, seat: int, user_id: int, channel_id: int, message_id: int) -> bool:
        """Remember the seat's hand message for this deal; False when ``user_id`` no longer holds the seat (they
        left while it was being sent), so that the caller can tell them."""
        async with self.lock(table_id):
            table = self.tables.get(table_id)
            occupant = None if table is None else table.seats[seat]
            if table is None or occupant is None or occupant.user_id != user_id:
                return False
            await self.db.set_dm_message(table_id, seat, channel_id, message_id)
            table.seats[seat] = replace(occupant, dm_channel_id=channel_id, dm_message_id=message_id)
            return True

    async def set_dms_closed(self, table_id: int, seat: int) -> None:
        table = self.tables.get(table_id)
        if table is None:
            return
        await self.db.set_dms_closed(table_id, seat, True)
        occupant = table.seats[seat]
        if occupant is not None:
            table.seats[seat] = replace(occupant, dms_closed=True)
