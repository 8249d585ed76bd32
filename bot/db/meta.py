"""Small facts about the database itself (``meta``): the registered commands' hash, pending one-off jobs."""

from __future__ import annotations

from .core import Repository


class MetaRepo(Repository):
    async def get(self, key: str) -> str | None:
        row = await self._core.fetch_one("SELECT value FROM meta WHERE key = ?", (key,))
        return None if row is None else str(row["value"])

    async def set(self, key: str, value: str) -> None:
        async with self._core.transaction():
            await self._core.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )
