"""Tables in threads: with the server setting ``table_threads`` on, ``/schnapsen new`` in a text channel opens a
public thread of its own for the table, so that one channel hosts many tables. Everything the table says then
goes to the thread (the table's ``channel_id`` is the thread, ``thread_parent_id`` the channel), and the
thread is archived once the table's last announcement is delivered (``archive_thread`` in the outbox entry,
so a close before a restart or by the sweeper archives it too).

Opening leaves nothing half made: a missing permission is refused before anything is made; a thread whose
table cannot be stored, or in which the bot may not post, is removed again and its table discarded.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any, Literal

import discord

from bot.game.errors import UserError
from bot.game.table import TableSnapshot

from . import payloads

if TYPE_CHECKING:
    from bot.client import SchnapsenBot

    Interaction = discord.Interaction[SchnapsenBot]

log = logging.getLogger(__name__)

ARCHIVE_AFTER_MINUTES: Literal[10080] = 10080  # a week without messages (Discord's longest); a table closes long before
MISSING_ACCESS = 50001  # Discord: the bot cannot see the channel
THREAD_ARCHIVED = 50083  # Discord: an archived thread takes no edits
NAME_LIMIT = 100  # Discord's limit for a channel name
NO_MENTIONS = discord.AllowedMentions.none()
# What each step needs, and the refusal that names the permission (in the reader's language).
NEEDS_CREATE_THREADS = "error.needs_create_public_threads"
NEEDS_SEND_IN_THREADS = "error.needs_send_messages_in_threads"
NEEDS_VIEW_CHANNEL = "error.needs_view_channel"
REQUIRED_PERMISSIONS = (
    ("create_public_threads", NEEDS_CREATE_THREADS),
    ("send_messages_in_threads", NEEDS_SEND_IN_THREADS),
)


def opens_threads_in(channel: object) -> bool:
    """A public thread can be opened here: a text or announcement channel (not a thread, forum or voice)."""
    return isinstance(channel, discord.TextChannel)


def thread_name(table_id: int, host_name: str) -> str:
    return f"Schnapsen #{table_id} · {host_name}"[:NAME_LIMIT]


def refusal_for(err: discord.Forbidden, needs: str) -> UserError:
    """Discord's 403: 50001 is a channel the bot cannot see; 50013 (and anything else) the step's permission."""
    return UserError(NEEDS_VIEW_CHANNEL if err.code == MISSING_ACCESS else needs)


async def open_in_thread(
    bot: SchnapsenBot, interaction: Interaction, channel: discord.TextChannel, **table_options: Any
) -> TableSnapshot:
    """Open a thread in ``channel``, the table in it, and post its table message there."""
    permissions = interaction.app_permissions
    for permission, needs in REQUIRED_PERMISSIONS:
        if not getattr(permissions, permission):
            raise UserError(needs)
    service = bot.service
    service.check_may_host(interaction.user.id)
    expected_id = await service.queries.next_table_id()
    name = thread_name(expected_id, interaction.user.display_name)
    thread = await _create_thread(channel, name)
    try:
        table = await service.open_table(channel_id=thread.id, thread_parent_id=channel.id, **table_options)
    except Exception:
        await remove_thread(thread)
        raise
    try:
        await _post_table_message(bot, table, thread)
    except discord.Forbidden as err:
        await service.discard_new_table(table.id)
        await remove_thread(thread)
        raise refusal_for(err, NEEDS_SEND_IN_THREADS) from None
    except Exception:
        # Discord failed even after discord.py's retries (or the image did): the runtime posts it, retried
        # until it arrives.
        log.warning("table %s: its first table message failed; the runtime posts it", table.id, exc_info=True)
        bot.runtime.refresh_table_message(table)
    await _remove_repeats(bot, channel, thread)
    if table.id != expected_id:  # another table was opened meanwhile and took the number
        with contextlib.suppress(discord.HTTPException):
            await thread.edit(name=thread_name(table.id, interaction.user.display_name))
    return service.snapshot(table.id) or table


async def _create_thread(channel: discord.TextChannel, name: str) -> discord.Thread:
    try:
        return await channel.create_thread(
            name=name,
            type=discord.ChannelType.public_thread,
            auto_archive_duration=ARCHIVE_AFTER_MINUTES,
            reason="a Schnapsen table",
        )
    except discord.Forbidden as err:
        raise refusal_for(err, NEEDS_CREATE_THREADS) from None
    except discord.DiscordServerError:
        # discord.py retried the 5xx already. A create that took effect although its answer was lost shows
        # up through the gateway: that thread is used rather than left behind without a table.
        made = _made_by_us(channel, name)
        if made is not None:
            log.warning("thread %s was made although Discord answered 5xx; using it", made.id)
            return made
        raise UserError("error.thread_failed") from None


def _threads_named_by_us(channel: discord.TextChannel, name: str) -> list[discord.Thread]:
    """The channel's threads the bot made under ``name`` (as far as the gateway told it)."""
    me = channel.guild.me
    return [t for t in channel.threads if t.name == name and me is not None and t.owner_id == me.id]


def _made_by_us(channel: discord.TextChannel, name: str) -> discord.Thread | None:
    made = _threads_named_by_us(channel, name)
    return max(made, key=lambda thread: thread.id) if made else None


async def _remove_repeats(bot: SchnapsenBot, channel: discord.TextChannel, kept: discord.Thread) -> None:
    """discord.py repeats a create answered with a 500 even when Discord made the thread: the repeats the
    gateway reported (same name, made by the bot, holding no table) are taken back."""
    for thread in _threads_named_by_us(channel, kept.name):
        if thread.id != kept.id and not thread.archived and bot.service.table_in_channel(thread.id) is None:
            log.warning("thread %s repeats thread %s (a create repeated after a 5xx); removing it", thread.id, kept.id)
            await remove_thread(thread)


async def _post_table_message(bot: SchnapsenBot, table: TableSnapshot, thread: discord.Thread) -> None:
    """The lobby's message, posted before the command answers: a thread the bot may not post in is refused
    at once instead of leaving a table nobody can see."""
    payload = await payloads.table_payload(table, table.language)
    sent = await thread.send(allowed_mentions=NO_MENTIONS, **payload.send_kwargs())
    try:
        await bot.service.seating.set_table_message(table.id, sent.id)
    except Exception:  # storage failed for a moment: the runtime stores this message (retried), posts no other
        log.error("table %s: its table message's id could not be stored; the runtime stores it", table.id, exc_info=True)
        bot.runtime.refresh_table_message(table, posted=sent.id)


async def remove_thread(thread: discord.Thread) -> None:
    """Take back a thread whose table could not be opened: deleted (Manage Threads), else archived, which its
    creator may always do. Best effort: a failure is logged and the refusal goes out all the same."""
    try:
        await thread.delete(reason="its Schnapsen table could not be opened")
        return
    except discord.NotFound:
        return
    except discord.HTTPException:
        pass
    try:
        await thread.edit(archived=True, reason="its Schnapsen table could not be opened")
    except discord.HTTPException:
        log.error("thread %s: its table could not be opened and it could not be removed", thread.id, exc_info=True)


async def archive_thread(bot: SchnapsenBot, thread_id: int) -> None:
    """The table in this thread closed: archive the thread, and lock it where the bot may (Manage Threads).
    A thread that is gone, or that the bot may not touch any more, is left as it is; a 5xx raises (retried)."""
    options: dict[str, Any] = {"archived": True}
    if _may_lock(bot, thread_id):
        options["locked"] = True
    try:
        await bot.http.edit_channel(thread_id, reason="its Schnapsen table closed", **options)
    except discord.NotFound:
        return
    except discord.Forbidden:
        if "locked" not in options:
            log.error("thread %s: the bot may not archive it", thread_id)
            return
        with contextlib.suppress(discord.NotFound, discord.Forbidden):
            await bot.http.edit_channel(thread_id, reason="its Schnapsen table closed", archived=True)


def _may_lock(bot: SchnapsenBot, thread_id: int) -> bool:
    for guild in bot.guilds:
        thread = guild.get_thread(thread_id)
        if thread is not None and guild.me is not None:
            return thread.permissions_for(guild.me).manage_threads
    return False


async def edit_in_thread(
    bot: SchnapsenBot, table: TableSnapshot, message: discord.PartialMessage, payload: payloads.Payload
) -> None:
    """Edit the table's message; in the bot's thread of an open table that someone (or Discord, after a long
    quiet spell) archived, the thread is unarchived first (a 403 there is the error to retry or report)."""
    try:
        await message.edit(**payload.edit_kwargs())
    except discord.HTTPException as err:
        if err.code != THREAD_ARCHIVED or table.thread_parent_id is None or table.status == "closed":
            raise
        log.warning("table %s: its thread %s was archived while it is open; unarchiving it", table.id, table.channel_id)
        await bot.http.edit_channel(table.channel_id, archived=False, reason="its Schnapsen table is open")
        await message.edit(**payload.edit_kwargs())  # its files afresh: a sent file is used up


async def edit_closed(bot: SchnapsenBot, table: TableSnapshot, message: discord.PartialMessage, **changes: Any) -> None:
    """Edit a closed table's message with ``changes``. In the bot's thread of the table, archived already (a
    click on a message the close left behind), the thread is unarchived for the edit and archived again."""
    try:
        await message.edit(**changes)
    except discord.HTTPException as err:
        if err.code != THREAD_ARCHIVED or table.thread_parent_id is None:
            raise
        log.info("table %s: its thread %s is unarchived to show the table closed", table.id, table.channel_id)
        await bot.http.edit_channel(table.channel_id, archived=False, reason="its Schnapsen table's message shows it closed")
        try:
            await message.edit(**changes)
        finally:
            await archive_thread(bot, table.channel_id)
