"""A person's own choices, the same in every guild (``player_prefs``): where their hand lives and in which
order it is shown."""

from __future__ import annotations

from dataclasses import dataclass

from bot.vocabulary import HandOrder, HandPlace

from .core import Repository


@dataclass(frozen=True, slots=True)
class PlayerPrefs:
    user_id: int
    hand_place: HandPlace = "dm"
    hand_order: HandOrder = "sorted"


class PlayerPrefsRepo(Repository):
    async def get_player_prefs(self, user_id: int) -> PlayerPrefs:
        """The person's choices, or the defaults when they never saved any."""
        row = await self._core.fetch_one(
            "SELECT user_id, hand_place, hand_order FROM player_prefs WHERE user_id = ?", (user_id,)
        )
        return PlayerPrefs(user_id) if row is None else PlayerPrefs(**dict(row))

    async def save_player_prefs(self, prefs: PlayerPrefs, now: int) -> None:
        async with self._core.transaction():
            await self._core.execute(
                """
                INSERT INTO player_prefs (user_id, hand_place, hand_order, updated_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (user_id) DO UPDATE SET
                    hand_place = excluded.hand_place, hand_order = excluded.hand_order,
                    updated_at = excluded.updated_at
                """,
                (prefs.user_id, prefs.hand_place, prefs.hand_order, now),
            )
