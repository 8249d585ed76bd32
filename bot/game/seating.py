"""Changes to a table's seats that are no move: an idle person warned, then played by the AI until they are
back; and the shell's bookkeeping of the messages it made (the table message, each seat's hand message, closed
DMs). Each is a change of the table core (bot/game/core.py), under the table's lock."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace

from bot.db import Database, SeatRow

from . import events as ev
from .core import TableCore
from .table import TableSnapshot, seats_by_number


class Seating:
    def __init__(self, core: TableCore) -> None:
        self.core = core
        self.db: Database = core.db

    # --- idle players ------------------------------------------------------------------------------

    async def mark_warned(self, table_id: int, seat: int, version: int) -> TableSnapshot | None:
        """The idle player is warned (once per turn); None when the turn has moved on."""

        async def warn(table: TableSnapshot, occupant: SeatRow) -> list[ev.TableEvent]:
            await self.db.seats.set_warned(table_id, seat, True)
            assert occupant.user_id is not None
            return [ev.PlayerWarned(seat, occupant.user_id, round(table.row.turn_seconds / 3))]

        return await self._while_idle(table_id, seat, version, warn)

    async def take_over(self, table_id: int, seat: int, version: int) -> TableSnapshot | None:
        """The idle player's seat is played by the AI until they click again; None when the turn has moved on."""

        async def replace_by_ai(table: TableSnapshot, occupant: SeatRow) -> list[ev.TableEvent]:
            await self.db.seats.set_takeover(table_id, seat, True)
            return [ev.TakenOver(seat, occupant.display_name)]

        return await self._while_idle(table_id, seat, version, replace_by_ai)

    async def _while_idle(
        self,
        table_id: int,
        seat: int,
        version: int,
        write: Callable[[TableSnapshot, SeatRow], Awaitable[list[ev.TableEvent]]],
    ) -> TableSnapshot | None:
        """Store ``write`` for a person still to act at ``version``; None (nothing written) when the turn
        has moved on or the seat holds nobody."""
        async with self.core.lock(table_id):
            table = self.core.held(table_id)
            occupant = None if table is None else table.seats[seat]
            if table is None or table.version != version or occupant is None or occupant.user_id is None:
                return None
            events = await self.core.store(table.row, lambda: write(table, occupant), guild_only=True)
            return await self.core.refresh(table, table, events)

    async def reclaim(self, table_id: int, user_id: int) -> TableSnapshot | None:
        """A player the AI stood in for clicked "I'm back": they play again themselves (None when the AI did
        not stand in for them). A move of theirs takes the seat back by itself (``TableCore.act``)."""
        async with self.core.lock(table_id):
            table = self.core.held(table_id)
            seat = None if table is None else table.seat_of(user_id)
            occupant = None if table is None or seat is None else table.seats[seat]
            if table is None or seat is None or occupant is None or not occupant.ai_takeover:
                return None
            chosen = seat

            async def write() -> list[ev.TableEvent]:
                await self.db.seats.set_takeover(table_id, chosen, False)
                await self.db.seats.set_warned(table_id, chosen, False)
                return [ev.SeatReclaimed(chosen)]

            return await self.core.refresh(table, table, await self.core.store(table.row, write, guild_only=True))

    # --- the shell's messages ------------------------------------------------------------------------

    async def set_table_message(self, table_id: int, message_id: int) -> TableSnapshot | None:
        """Remember the table's message (of a closed table too; only an open one has a snapshot to return)."""
        async with self.core.lock(table_id):
            async with self.db.transaction():
                await self.db.tables.set_table_message(table_id, message_id)
            table = self.core.held(table_id)
            if table is None:
                return None
            changed = replace(table, row=replace(table.row, table_message_id=message_id))
            return self.core.publish(changed, table, (ev.MessageStored(),))

    async def forget_dm(self, table_id: int, seat: int, message_id: int) -> TableSnapshot | None:
        """The seat's hand message is gone: the next send puts up a new one. None if nothing changed."""
        async with self.core.lock(table_id):
            table = self.core.held(table_id)
            occupant = None if table is None else table.seats[seat]
            if table is None or occupant is None or occupant.dm_message_id != message_id:
                return None
            async with self.db.transaction(guild_id=table.row.guild_id):
                await self.db.seats.set_dm_message(table_id, seat, None, None)
            changed = _with_seat(table, replace(occupant, dm_channel_id=None, dm_message_id=None))
            return self.core.publish(changed, table, (ev.MessageStored(),))

    async def set_dm(
        self, table_id: int, seat: int, user_id: int, deal_no: int, channel_id: int, message_id: int
    ) -> TableSnapshot | None:
        """Remember the seat's hand message for deal ``deal_no``; None when ``user_id`` no longer holds the
        seat or that deal is over (the caller then retires the message)."""
        async with self.core.lock(table_id):
            table = self.core.held(table_id)
            occupant = None if table is None else table.seats[seat]
            if table is None or occupant is None or occupant.user_id != user_id or table.deal_no != deal_no:
                return None
            guild_id = table.row.guild_id
            await self.db.seats.set_dm_message(table_id, seat, channel_id, message_id, guild_id=guild_id)
            changed = _with_seat(table, replace(occupant, dm_channel_id=channel_id, dm_message_id=message_id))
            return self.core.publish(changed, table, (ev.MessageStored(),))

    async def set_dms_closed(self, table_id: int, seat: int, user_id: int) -> TableSnapshot | None:
        """The player's DMs are closed (at the deal's first send or on any later edit): their hand is shown
        ephemerally in the channel from now on, and the channel is told once. None if nothing changed."""
        async with self.core.lock(table_id):
            table = self.core.held(table_id)
            occupant = None if table is None else table.seats[seat]
            if table is None or occupant is None or occupant.user_id != user_id or occupant.dms_closed:
                return None

            async def write() -> list[ev.TableEvent]:
                await self.db.seats.set_dms_closed(table_id, seat, True)
                await self.db.seats.set_dm_message(table_id, seat, None, None)
                return [ev.DmsClosed(seat, user_id)]

            return await self.core.refresh(table, table, await self.core.store(table.row, write, guild_only=True))


def _with_seat(table: TableSnapshot, occupant: SeatRow) -> TableSnapshot:
    seats = list(table.seats)
    seats[occupant.seat] = occupant
    return replace(table, seats=seats_by_number(s for s in seats if s is not None))
