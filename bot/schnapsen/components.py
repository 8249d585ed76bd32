"""Buttons that survive restarts: DynamicItems parse their custom id and hand the click to the cog."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import discord

from .ids import LEADERBOARD_PATTERN, PATTERN, ButtonId

if TYPE_CHECKING:
    from .cog import SchnapsenCog


def _cog(interaction: discord.Interaction[Any]) -> SchnapsenCog:
    cog = interaction.client.get_cog("schnapsen")  # type: ignore[attr-defined]
    assert cog is not None
    return cog  # type: ignore[no-any-return]


class GameButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=PATTERN):
    def __init__(self, button_id: ButtonId) -> None:
        super().__init__(discord.ui.Button(label="·", custom_id=str(button_id)))
        self.button_id = button_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Button[Any], match: re.Match[str], /
    ) -> GameButton:
        button_id = ButtonId.parse(item.custom_id or "")
        assert button_id is not None  # the template matched, so parsing does too
        return cls(button_id)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _cog(interaction).on_game_button(interaction, self.button_id)


class LeaderboardButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=LEADERBOARD_PATTERN):
    def __init__(self, sort: str, page: int, label: str = "·", disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(label=label, custom_id=f"bslb:{sort}:{page}", disabled=disabled))
        self.sort, self.page = sort, page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Button[Any], match: re.Match[str], /
    ) -> LeaderboardButton:
        return cls(match["sort"], int(match["page"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _cog(interaction).on_leaderboard_button(interaction, self.sort, self.page)
