"""The checks every click or command passes before it reaches the service: the throttle, the place a table's
button is used in, and who may manage a table. Each raises what ``replies.report_error`` answers."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.game.errors import UserError
from bot.game.table import TableSnapshot

if TYPE_CHECKING:
    from bot.client import SchnapsenBot

    Interaction = discord.Interaction[SchnapsenBot]


def user_of(interaction: Interaction) -> int:
    return interaction.user.id


class Throttle:
    """Too many clicks or commands in a short window, per user (so other tables are never starved): at most
    ``throttle_actions`` in ``throttle_window`` seconds, read from the settings when a user's window starts.
    discord.py's mapping drops the bucket of a user who has been quiet for a whole window."""

    def __init__(self) -> None:
        self._buckets: commands.DynamicCooldownMapping[Interaction] = commands.DynamicCooldownMapping(
            self._cooldown, user_of
        )

    @staticmethod
    def _cooldown(interaction: Interaction) -> app_commands.Cooldown:
        settings = interaction.client.settings
        return app_commands.Cooldown(settings.throttle_actions, settings.throttle_window)

    def check(self, interaction: Interaction) -> None:
        bucket = self._buckets.get_bucket(interaction)
        assert bucket is not None  # the factory always makes one
        retry_after = bucket.update_rate_limit()
        if retry_after is not None:
            raise app_commands.CommandOnCooldown(bucket, retry_after)


def require_manager(interaction: Interaction) -> None:
    """Server-wide changes (settings, rules) are for people who may manage the server."""
    if not (interaction.permissions and interaction.permissions.manage_guild):
        raise UserError("error.manager_only")


def may_manage(interaction: Interaction, table: TableSnapshot) -> bool:
    """The table's host, or someone who may manage the server."""
    permissions = interaction.permissions
    return interaction.user.id == table.host_id or bool(permissions and permissions.manage_guild)


def check_place(interaction: Interaction, table: TableSnapshot, *, works_in_dm: bool) -> None:
    """A table's buttons act only where the table is: its own guild and channel, or (the hand's buttons) the
    player's DM with the bot; a daily attempt played in a channel, in any channel of its guild (its one message
    is wherever its player last asked for it; only they are seated, and their seat is checked after this)."""
    if interaction.guild_id is None:
        if not works_in_dm:
            raise UserError("error.wrong_channel")
    else:
        elsewhere = interaction.channel_id != table.channel_id and not interaction.client.service.daily.in_channel(table.id)
        if interaction.guild_id != table.guild_id or elsewhere:
            raise UserError("error.wrong_channel")
