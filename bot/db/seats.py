"""The seats at card tables: who sits where, the AI players, and each seat's hand message and idle state."""

from __future__ import annotations

from .core import Repository, Row
from .errors import AlreadySeated, SeatNotFound, SeatTaken
from .models import SeatRow
from .tables import require_open

_SEAT_COLUMNS = (
    "table_id, seat, user_id, display_name, ai_takeover, dm_channel_id, dm_message_id, dms_closed, warned"
)


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


class SeatsRepo(Repository):
    """Seats of tables: at most one open table per person (`AlreadySeated`), one occupant per seat."""

    async def take_seat(self, table_id: int, seat: int, user_id: int, display_name: str) -> SeatRow:
        """Seat a person. Raises `AlreadySeated` (they sit at an open table), `SeatTaken`, `TableClosed`."""
        async with self._core.transaction():
            await require_open(self._core, table_id)
            current = await self.table_of_user(user_id)
            if current is not None:
                raise AlreadySeated(current)
            taken = await self._core.fetch_one(
                "SELECT 1 FROM seats WHERE table_id = ? AND seat = ?", (table_id, seat)
            )
            if taken:
                raise SeatTaken(table_id, seat)
            try:
                async with self._core.statement_savepoint():
                    row = await self._core.fetch_one(
                        f"INSERT INTO seats (table_id, seat, user_id, display_name) VALUES (?, ?, ?, ?)"
                        f" RETURNING {_SEAT_COLUMNS}",
                        (table_id, seat, user_id, display_name),
                    )
            except Exception as err:
                # Only a writer outside the write lock (another program) can race the checks: say which rule.
                if self._core.violated(err) != "unique":
                    raise
                current = await self.table_of_user(user_id)
                if current is not None:
                    raise AlreadySeated(current) from err
                raise SeatTaken(table_id, seat) from err
        assert row is not None
        return _seat_from_row(row)

    async def set_ai_seat(self, table_id: int, seat: int, display_name: str) -> SeatRow:
        """Put an AI player in the seat, replacing whoever sat there."""
        async with self._core.transaction():
            await require_open(self._core, table_id)
            row = await self._core.fetch_one(
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
        async with self._core.transaction():
            removed = await self._core.execute(
                "DELETE FROM seats WHERE table_id = ? AND seat = ?", (table_id, seat)
            )
        return bool(removed)

    async def seats_of(self, table_id: int) -> list[SeatRow]:
        """The occupied seats of the table, in seat order (empty seats are missing)."""
        rows = await self._core.fetch_all(
            f"SELECT {_SEAT_COLUMNS} FROM seats WHERE table_id = ? ORDER BY seat", (table_id,)
        )
        return [_seat_from_row(row) for row in rows]

    async def table_of_user(self, user_id: int) -> int | None:
        """The open table the person sits at, if any."""
        row = await self._core.fetch_one(
            "SELECT table_id FROM seats WHERE user_id = ? AND table_open = 1", (user_id,)
        )
        return None if row is None else int(row["table_id"])

    async def set_dm_message(
        self,
        table_id: int,
        seat: int,
        dm_channel_id: int | None,
        dm_message_id: int | None,
        *,
        guild_id: int | None = None,
    ) -> None:
        """Remember the DM that shows this seat's hand for the current deal (None clears it); ``guild_id`` as for
        `_update_seat`."""
        await self._update_seat(
            table_id, seat, "dm_channel_id = ?, dm_message_id = ?", (dm_channel_id, dm_message_id), guild_id=guild_id
        )

    async def clear_dm_messages(self, table_id: int) -> None:
        """A new deal: no seat's hand message shows it yet."""
        async with self._core.transaction():
            await self._core.execute(
                "UPDATE seats SET dm_channel_id = NULL, dm_message_id = NULL WHERE table_id = ?", (table_id,)
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
        async with self._core.transaction():
            await self._core.execute("UPDATE seats SET warned = 0 WHERE table_id = ? AND warned = 1", (table_id,))

    async def _update_seat(
        self, table_id: int, seat: int, assignments: str, values: tuple[object, ...], *, guild_id: int | None = None
    ) -> None:
        """One write known in full (`fetch_chain_alone`): in the caller's transaction, or one of its own confined to
        ``guild_id`` when given."""
        sql = f"UPDATE seats SET {assignments} WHERE table_id = ? AND seat = ? RETURNING seat"
        (changed,) = await self._core.fetch_chain_alone([(sql, (*values, table_id, seat))], guild_id=guild_id)
        if not changed:
            raise SeatNotFound(table_id, seat)
