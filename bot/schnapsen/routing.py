"""Where a click on a table's button is applied: the seam between the process a click reaches and the process
that serves the table.

Discord delivers a guild's interactions on the guild's shard, so a click in a channel always reaches the
process serving its table. Interactions in DMs all arrive on shard 0: a click on a hand DM reaches shard 0's
process whoever serves the table. ``ClickRouter.route`` decides, before any check of the click: apply it
here, or hand it to the owner. The local router (one process, or shards without shared storage) can only
refuse a click for a table served elsewhere; a PostgreSQL inbox router will store the click, NOTIFY the owner
and let the owner answer through the interaction's token (docs/bot.md, "Shards").
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

import discord

from bot.game.errors import UserError

if TYPE_CHECKING:
    from bot.game.service import TableService

log = logging.getLogger(__name__)


class ClickRouter(Protocol):
    async def route(self, interaction: discord.Interaction[Any], table_id: int) -> bool:
        """True: apply the click here (its checks and answer follow as always). False: the router took the
        click over and has answered it. A refusal raises ``UserError``, answered by the usual error path."""
        ...


class LocalClickRouter:
    """Apply a click here when this process serves its table; a click for a table another process serves is
    refused with a clear answer and logged at ERROR (nothing yet carries it to its owner)."""

    def __init__(self, service: TableService) -> None:
        self.service = service

    async def route(self, interaction: discord.Interaction[Any], table_id: int) -> bool:
        if self.service.snapshot(table_id) is not None or not self.service.sharded:
            return True
        if await self.service.served_elsewhere(table_id):
            log.error(
                "table %s: a click (user %s, custom id %r) reached this process, but another process serves "
                "the table and no route to it exists; refused",
                table_id,
                interaction.user.id,
                interaction.data.get("custom_id") if interaction.data else None,
            )
            raise UserError("error.table_elsewhere")
        return True  # a closed or unknown table: the usual checks answer it
