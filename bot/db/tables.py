"""Card tables in channels and the seats at them."""

from __future__ import annotations

from bot.vocabulary import DeckStyle, Language, TableStatus

from .core import DatabaseCore, Row
from .errors import AlreadySeated, ChannelBusy, SeatNotFound, SeatTaken, TableClosed, TableNotFound
from .models import SeatRow, TableRow

_TABLE_COLUMNS = (
    "id, guild_id, channel_id, host_id, status, rules_json, deck, turn_seconds, language,"
    " table_message_id, version, first_dealer, created_at, updated_at, thread_parent_id, practice"
)
_SEAT_COLUMNS = (
    "table_id, seat, user_id, display_name, ai_takeover, dm_channel_id, dm_message_id, dms_closed, warned"
)


def _table_from_row(row: Row) -> TableRow:
    fields = dict(row)
    fields["practice"] = bool(fields["practice"])
    return TableRow(**fields)


def _seat_from_row(row: Row) -> SeatRow:
    return SeatRow(
        table_id=row["table_id"],
        seat=row["seat"],
        user_id=row["user_id"],
        display_name=row["display_name"],
        ai_takeover=bool(row["ai_takeover"]),
        dm_channel_id=row["dm_channel_id"],
        dm_message_id=row["dm_message_id"],
        dms_closed=bool(row["dms_closed"]),
        warned=bool(row["warned"]),
    )


class TablesRepo(DatabaseCore):
    # ---- tables -------------------------------------------------------------------------------------

    async def create_table(
        self,
        *,
        guild_id: int,
        channel_id: int,
        host_id: int,
        rules_json: str,
        deck: DeckStyle,
        turn_seconds: int,
        language: Language,
        first_dealer: int,
        now: int,
        thread_parent_id: int | None = None,
        practice: bool = False,
    ) -> TableRow:
        """Open a lobby in the channel; raises `ChannelBusy` when the channel has a table not closed."""
        async with self.transaction():
            busy = await self._fetch_one(
                "SELECT id FROM game_tables WHERE channel_id = ? AND status <> 'closed'", (channel_id,)
            )
            if busy is not None:
                raise ChannelBusy(channel_id, busy["id"])
            try:
                async with self._statement_savepoint():
                    row = await self._fetch_one(
                        f"""
                        INSERT INTO game_tables (guild_id, channel_id, host_id, status, rules_json, deck,
                                                 turn_seconds, language, first_dealer, created_at, updated_at,
                                                 thread_parent_id, practice)
                        VALUES (?, ?, ?, 'lobby', ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        RETURNING {_TABLE_COLUMNS}
                        """,
                        (
                            guild_id,
                            channel_id,
                            host_id,
                            rules_json,
                            deck,
                            turn_seconds,
                            language,
                            first_dealer,
                            now,
                            now,
                            thread_parent_id,
                            int(practice),
                        ),
                    )
            except Exception as err:
                # Only a writer outside the write lock (another program) can race the check: say the same.
                if self._violated(err) != "unique":
                    raise
                busy = await self._fetch_one(
                    "SELECT id FROM game_tables WHERE channel_id = ? AND status <> 'closed'", (channel_id,)
                )
                raise ChannelBusy(channel_id, busy["id"] if busy else 0) from err
        assert row is not None
        return _table_from_row(row)

    async def next_table_id(self) -> int:
        """The id the next table will most likely get (ids are never reused), to name its thread before it
        exists; a table opened meanwhile elsewhere takes it, so it is a hint, not a promise."""
        return await self._next_id_hint("game_tables")

    async def delete_new_table(self, table_id: int) -> bool:
        """Remove a lobby that never got its place (its thread could not be made or used) with its seats, as
        if it had never been opened; False when it is no longer a lobby."""
        async with self.transaction():
            removed = await self._execute(
                "DELETE FROM game_tables WHERE id = ? AND status = 'lobby'", (table_id,)
            )
        return bool(removed)

    async def set_practice(self, table_id: int, practice: bool) -> None:
        async with self.transaction():
            if not await self._execute(
                "UPDATE game_tables SET practice = ? WHERE id = ?", (int(practice), table_id)
            ):
                raise TableNotFound(table_id)

    async def get_table(self, table_id: int) -> TableRow | None:
        row = await self._fetch_one(f"SELECT {_TABLE_COLUMNS} FROM game_tables WHERE id = ?", (table_id,))
        return None if row is None else _table_from_row(row)

    async def get_open_table_in_channel(self, channel_id: int) -> TableRow | None:
        row = await self._fetch_one(
            f"SELECT {_TABLE_COLUMNS} FROM game_tables WHERE channel_id = ? AND status <> 'closed'",
            (channel_id,),
        )
        return None if row is None else _table_from_row(row)

    async def list_open_tables(self) -> list[TableRow]:
        """Every table in the lobby, playing or finished (waiting for a rematch): what a restart restores."""
        rows = await self._fetch_all(
            f"SELECT {_TABLE_COLUMNS} FROM game_tables WHERE status <> 'closed' ORDER BY id"
        )
        return [_table_from_row(row) for row in rows]

    async def set_table_message(self, table_id: int, message_id: int | None) -> None:
        async with self.transaction():
            if not await self._execute(
                "UPDATE game_tables SET table_message_id = ? WHERE id = ?", (message_id, table_id)
            ):
                raise TableNotFound(table_id)

    async def set_host(self, table_id: int, host_id: int, now: int) -> None:
        async with self.transaction():
            if not await self._execute(
                "UPDATE game_tables SET host_id = ?, updated_at = ? WHERE id = ?", (host_id, now, table_id)
            ):
                raise TableNotFound(table_id)

    async def set_lobby_rules(self, table_id: int, rules_json: str, now: int) -> bool:
        """Store a lobby's rules (`ruleset_to_json` as JSON text); False, changing nothing, once the table has
        left the lobby: a started table keeps the rules it was started with."""
        async with self.transaction():
            changed = await self._execute(
                "UPDATE game_tables SET rules_json = ?, updated_at = ? WHERE id = ? AND status = 'lobby'",
                (rules_json, now, table_id),
            )
        return changed > 0

    async def set_status(self, table_id: int, status: TableStatus, now: int) -> None:
        """Move the table to `status`. Closing frees the channel and the seats; closed stays closed."""
        async with self.transaction():
            current = await self._status_of(table_id)
            if current == "closed" and status != "closed":
                raise TableClosed(table_id)
            await self._execute(
                "UPDATE game_tables SET status = ?, updated_at = ? WHERE id = ?", (status, now, table_id)
            )

    async def bump_version(self, table_id: int, now: int) -> int:
        """Count one accepted action; returns the new position version."""
        async with self.transaction():
            row = await self._fetch_one(
                "UPDATE game_tables SET version = version + 1, updated_at = ? WHERE id = ? RETURNING version",
                (now, table_id),
            )
            if row is None:
                raise TableNotFound(table_id)
        return int(row["version"])

    async def _status_of(self, table_id: int) -> TableStatus:
        row = await self._fetch_one("SELECT status FROM game_tables WHERE id = ?", (table_id,))
        if row is None:
            raise TableNotFound(table_id)
        status: TableStatus = row["status"]
        return status

    async def _require_open(self, table_id: int) -> None:
        if await self._status_of(table_id) == "closed":
            raise TableClosed(table_id)

    # ---- seats --------------------------------------------------------------------------------------

    async def take_seat(self, table_id: int, seat: int, user_id: int, display_name: str) -> SeatRow:
        """Seat a person. Raises `AlreadySeated` (they sit at an open table), `SeatTaken`, `TableClosed`."""
        async with self.transaction():
            await self._require_open(table_id)
            current = await self.table_of_user(user_id)
            if current is not None:
                raise AlreadySeated(current)
            if await self._fetch_one("SELECT 1 FROM seats WHERE table_id = ? AND seat = ?", (table_id, seat)):
                raise SeatTaken(table_id, seat)
            try:
                async with self._statement_savepoint():
                    row = await self._fetch_one(
                        f"INSERT INTO seats (table_id, seat, user_id, display_name) VALUES (?, ?, ?, ?)"
                        f" RETURNING {_SEAT_COLUMNS}",
                        (table_id, seat, user_id, display_name),
                    )
            except Exception as err:
                # Only a writer outside the write lock (another program) can race the checks: say which rule.
                if self._violated(err) != "unique":
                    raise
                current = await self.table_of_user(user_id)
                if current is not None:
                    raise AlreadySeated(current) from err
                raise SeatTaken(table_id, seat) from err
        assert row is not None
        return _seat_from_row(row)

    async def set_ai_seat(self, table_id: int, seat: int, display_name: str) -> SeatRow:
        """Put an AI player in the seat, replacing whoever sat there."""
        async with self.transaction():
            await self._require_open(table_id)
            row = await self._fetch_one(
                f"""
                INSERT INTO seats (table_id, seat, user_id, display_name) VALUES (?, ?, NULL, ?)
                ON CONFLICT (table_id, seat) DO UPDATE SET
                    user_id = NULL, display_name = excluded.display_name, ai_takeover = 0,
                    dm_channel_id = NULL, dm_message_id = NULL, dms_closed = 0, warned = 0
                RETURNING {_SEAT_COLUMNS}
                """,
                (table_id, seat, display_name),
            )
        assert row is not None
        return _seat_from_row(row)

    async def leave_seat(self, table_id: int, seat: int) -> bool:
        """Empty the seat; False when it was empty already."""
        async with self.transaction():
            removed = await self._execute(
                "DELETE FROM seats WHERE table_id = ? AND seat = ?", (table_id, seat)
            )
        return bool(removed)

    async def seats_of(self, table_id: int) -> list[SeatRow]:
        """The occupied seats of the table, in seat order (empty seats are missing)."""
        rows = await self._fetch_all(
            f"SELECT {_SEAT_COLUMNS} FROM seats WHERE table_id = ? ORDER BY seat", (table_id,)
        )
        return [_seat_from_row(row) for row in rows]

    async def table_of_user(self, user_id: int) -> int | None:
        """The open table the person sits at, if any."""
        row = await self._fetch_one(
            "SELECT table_id FROM seats WHERE user_id = ? AND table_open = 1", (user_id,)
        )
        return None if row is None else int(row["table_id"])

    async def set_dm_message(
        self, table_id: int, seat: int, dm_channel_id: int | None, dm_message_id: int | None
    ) -> None:
        """Remember the DM that shows this seat's hand for the current deal (None clears it)."""
        await self._update_seat(
            table_id, seat, "dm_channel_id = ?, dm_message_id = ?", (dm_channel_id, dm_message_id)
        )

    async def set_dms_closed(self, table_id: int, seat: int, closed: bool) -> None:
        await self._update_seat(table_id, seat, "dms_closed = ?", (closed,))

    async def set_takeover(self, table_id: int, seat: int, taken_over: bool) -> None:
        """Mark a human's seat as played by the AI (idle) or given back."""
        await self._update_seat(table_id, seat, "ai_takeover = ?", (taken_over,))

    async def set_warned(self, table_id: int, seat: int, warned: bool) -> None:
        await self._update_seat(table_id, seat, "warned = ?", (warned,))

    async def reset_warnings(self, table_id: int) -> None:
        """Forget idle warnings at the table (the turn has moved on)."""
        async with self.transaction():
            await self._execute("UPDATE seats SET warned = 0 WHERE table_id = ? AND warned = 1", (table_id,))

    async def _update_seat(
        self, table_id: int, seat: int, assignments: str, values: tuple[object, ...]
    ) -> None:
        async with self.transaction():
            changed = await self._execute(
                f"UPDATE seats SET {assignments} WHERE table_id = ? AND seat = ?", (*values, table_id, seat)
            )
            if not changed:
                raise SeatNotFound(table_id, seat)
