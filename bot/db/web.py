"""Read-only questions only the web pages ask (docs/web.md): a person's recent Bummerl, a server's tables and
tournaments. Every answer is of one guild."""

from __future__ import annotations

from .core import Repository
from .models import BummerlRow, TableRow
from .stats import _bummerl_from_row
from .tables import _TABLE_COLUMNS, _table_from_row


class WebRepo(Repository):
    async def recent_bummerl(self, guild_id: int, user_id: int, limit: int) -> list[BummerlRow]:
        """The person's latest finished Bummerl in the guild, newest first."""
        rows = await self._core.fetch_all(
            """
            SELECT * FROM bummerl_results
            WHERE guild_id = ?1 AND ?2 IN (winner1_id, winner2_id, loser1_id, loser2_id)
            ORDER BY id DESC LIMIT ?3
            """,
            (guild_id, user_id, limit),
        )
        return [_bummerl_from_row(row) for row in rows]

    async def recent_bummerl_of_guild(self, guild_id: int, limit: int) -> list[BummerlRow]:
        rows = await self._core.fetch_all(
            "SELECT * FROM bummerl_results WHERE guild_id = ? ORDER BY id DESC LIMIT ?", (guild_id, limit)
        )
        return [_bummerl_from_row(row) for row in rows]

    async def open_tables_of_guild(self, guild_id: int) -> list[TableRow]:
        """The guild's tables in the lobby, playing or finished (not closed), whichever process serves them."""
        rows = await self._core.fetch_all(
            f"SELECT {_TABLE_COLUMNS} FROM game_tables WHERE guild_id = ? AND status <> 'closed' ORDER BY id",
            (guild_id,),
        )
        return [_table_from_row(row) for row in rows]

    async def tournament_ids(self, guild_id: int, limit: int) -> list[int]:
        rows = await self._core.fetch_all(
            "SELECT id FROM tournaments WHERE guild_id = ? ORDER BY id DESC LIMIT ?", (guild_id, limit)
        )
        return [int(row["id"]) for row in rows]
