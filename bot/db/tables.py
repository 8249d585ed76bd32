"""Card tables in channels (the seats at them: bot/db/seats.py)."""

from __future__ import annotations

from bot.vocabulary import DeckStyle, Language, TableStatus

from .core import DatabaseCore, Repository, Row
from .errors import ChannelBusy, TableClosed, TableNotFound
from .models import TableRow

BUMP_VERSION = "UPDATE game_tables SET version = version + 1, updated_at = ? WHERE id = ? RETURNING version"

_TABLE_COLUMNS = (
    "id, guild_id, channel_id, host_id, status, rules_json, deck, turn_seconds, language,"
    " table_message_id, version, first_dealer, created_at, updated_at, thread_parent_id, practice"
)


def _table_from_row(row: Row) -> TableRow:
    fields = dict(row)
    fields["practice"] = bool(fields["practice"])
    return TableRow(**fields)


class TablesRepo(Repository):
    """Card tables in channels: opening, status, host, lobby rules and the position version."""

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
        async with self._core.transaction():
            busy = await self._core.fetch_one(
                "SELECT id FROM game_tables WHERE channel_id = ? AND status <> 'closed'", (channel_id,)
            )
            if busy is not None:
                raise ChannelBusy(channel_id, busy["id"])
            try:
                async with self._core.statement_savepoint():
                    row = await self._core.fetch_one(
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
                if self._core.violated(err) != "unique":
                    raise
                busy = await self._core.fetch_one(
                    "SELECT id FROM game_tables WHERE channel_id = ? AND status <> 'closed'", (channel_id,)
                )
                raise ChannelBusy(channel_id, busy["id"] if busy else 0) from err
        assert row is not None
        return _table_from_row(row)

    async def next_table_id(self) -> int:
        """The id the next table will most likely get (ids are never reused), to name its thread before it
        exists; a table opened meanwhile elsewhere takes it, so it is a hint, not a promise."""
        return await self._core.next_id_hint("game_tables")

    async def delete_new_table(self, table_id: int) -> bool:
        """Remove a lobby that never got its place (its thread could not be made or used) with its seats, as
        if it had never been opened; False when it is no longer a lobby."""
        async with self._core.transaction():
            removed = await self._core.execute(
                "DELETE FROM game_tables WHERE id = ? AND status = 'lobby'", (table_id,)
            )
        return bool(removed)

    async def set_practice(self, table_id: int, practice: bool) -> None:
        async with self._core.transaction():
            if not await self._core.execute(
                "UPDATE game_tables SET practice = ? WHERE id = ?", (int(practice), table_id)
            ):
                raise TableNotFound(table_id)

    async def get_table(self, table_id: int) -> TableRow | None:
        row = await self._core.fetch_one(f"SELECT {_TABLE_COLUMNS} FROM game_tables WHERE id = ?", (table_id,))
        return None if row is None else _table_from_row(row)

    async def get_open_table_in_channel(self, channel_id: int) -> TableRow | None:
        row = await self._core.fetch_one(
            f"SELECT {_TABLE_COLUMNS} FROM game_tables WHERE channel_id = ? AND status <> 'closed'",
            (channel_id,),
        )
        return None if row is None else _table_from_row(row)

    async def list_open_tables(self) -> list[TableRow]:
        """Every table in the lobby, playing or finished (waiting for a rematch): what a restart restores."""
        rows = await self._core.fetch_all(
            f"SELECT {_TABLE_COLUMNS} FROM game_tables WHERE status <> 'closed' ORDER BY id"
        )
        return [_table_from_row(row) for row in rows]

    async def set_table_message(self, table_id: int, message_id: int | None) -> None:
        async with self._core.transaction():
            if not await self._core.execute(
                "UPDATE game_tables SET table_message_id = ? WHERE id = ?", (message_id, table_id)
            ):
                raise TableNotFound(table_id)

    async def set_host(self, table_id: int, host_id: int, now: int) -> None:
        async with self._core.transaction():
            if not await self._core.execute(
                "UPDATE game_tables SET host_id = ?, updated_at = ? WHERE id = ?", (host_id, now, table_id)
            ):
                raise TableNotFound(table_id)

    async def set_lobby_rules(self, table_id: int, rules_json: str, now: int) -> bool:
        """Store a lobby's rules (`ruleset_to_json` as JSON text); False, changing nothing, once the table has
        left the lobby: a started table keeps the rules it was started with."""
        async with self._core.transaction():
            changed = await self._core.execute(
                "UPDATE game_tables SET rules_json = ?, updated_at = ? WHERE id = ? AND status = 'lobby'",
                (rules_json, now, table_id),
            )
        return changed > 0

    async def set_status(self, table_id: int, status: TableStatus, now: int) -> None:
        """Move the table to `status`. Closing frees the channel and the seats; closed stays closed."""
        async with self._core.transaction():
            current = await status_of(self._core, table_id)
            if current == "closed" and status != "closed":
                raise TableClosed(table_id)
            await self._core.execute(
                "UPDATE game_tables SET status = ?, updated_at = ? WHERE id = ?", (status, now, table_id)
            )

    async def bump_version(self, table_id: int, now: int) -> int:
        """Count one accepted action; returns the new position version."""
        async with self._core.transaction():
            row = await self._core.fetch_one(BUMP_VERSION, (now, table_id))
            if row is None:
                raise TableNotFound(table_id)
        return int(row["version"])


async def status_of(core: DatabaseCore, table_id: int) -> TableStatus:
    row = await core.fetch_one("SELECT status FROM game_tables WHERE id = ?", (table_id,))
    if row is None:
        raise TableNotFound(table_id)
    status: TableStatus = row["status"]
    return status


async def require_open(core: DatabaseCore, table_id: int) -> None:
    if await status_of(core, table_id) == "closed":
        raise TableClosed(table_id)
