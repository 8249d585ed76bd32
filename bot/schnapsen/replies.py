"""Answering an interaction: acknowledging it, an ephemeral answer, and the one error path.

Commands and buttons raise ``UserError`` for what the user can fix; ``report_error`` (called by the cog's
``cog_app_command_error`` and by every button's ``on_error``) turns it into the ephemeral answer in the user's
language. Anything else is logged with its context and answered with ``error.generic``.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
from discord import app_commands

from bot.game.errors import UserError
from bot.i18n import language_for_locale, t

from . import discord_internals
from .ids import ButtonId

if TYPE_CHECKING:
    from bot.client import SchnapsenBot

    Interaction = discord.Interaction[SchnapsenBot]

log = logging.getLogger(__name__)
ALREADY_ACKNOWLEDGED = 40060  # Discord: the interaction has been acknowledged already
# Discord on a token's message or follow-up before the interaction was answered: no such message (10008),
# no such webhook (10015). Only a click handed over by another process meets it (``routing.py``): that process
# acknowledges it after storing it, and its acknowledgement may reach Discord after the owner's answer.
NOT_ANSWERED_YET = (10008, 10015)


def language_of(interaction: Interaction) -> str:
    """The language of everything only this user sees: their Discord client's."""
    return language_for_locale(interaction.locale)


async def acknowledge(interaction: Interaction, **kwargs: Any) -> None:
    """``defer``, where a repeat of an acknowledgement that took effect (its reply was lost, discord.py retried
    and Discord answered 40060) counts as done: the click is carried out, not dropped. A click acknowledged already (by the process that
    received it and handed it here, ``routing.py``) is left as it is."""
    if interaction.response.is_done():
        return
    try:
        await interaction.response.defer(**kwargs)
    except discord.HTTPException as err:
        if err.code != ALREADY_ACKNOWLEDGED:
            raise
        log.warning(
            "interaction %s was acknowledged already (its reply was lost); carrying on", interaction.id
        )


async def acknowledge_raw(bot: SchnapsenBot, data: dict[str, Any]) -> None:
    """A deferred update for a click known only by Discord's payload (``routing.py`` hands such a click on
    without discord.py building an interaction for it, and acknowledges it once stored), sent as discord.py's
    ``defer`` sends it; a click answered already (by the owner it was handed to, quicker than this, or by an
    acknowledgement whose reply was lost) counts as done."""
    try:
        await discord_internals.send_callback(
            bot, int(data["id"]), str(data["token"]), discord.InteractionResponseType.deferred_message_update
        )
    except discord.HTTPException as err:
        if err.code != ALREADY_ACKNOWLEDGED:
            raise
        log.info("interaction %s was answered already (by the process it was handed to); carrying on", data["id"])


def clicker_id(data: dict[str, Any]) -> int | None:
    """Who clicked, by Discord's payload of an interaction: its member's user in a guild, its user in a DM."""
    user = (data.get("member") or data).get("user") or {}
    try:
        return int(user["id"])
    except (KeyError, TypeError, ValueError):
        return None


async def refuse_raw(bot: SchnapsenBot, data: dict[str, Any], mistake: UserError) -> None:
    """A click known only by Discord's payload refused as ``report_error`` refuses one: an ephemeral answer in
    its callback, in the user's language (``routing.py`` answers a click on a button whose position has moved on
    before discord.py parses it). An answer that cannot be given is logged; nothing depends on it."""
    lang = language_for_locale(data.get("locale"))
    text = {"content": error_text(lang, mistake), "flags": discord.MessageFlags(ephemeral=True).value}
    try:
        await discord_internals.send_callback(
            bot, int(data["id"]), str(data["token"]), discord.InteractionResponseType.channel_message, text
        )
    except Exception as error:
        # Expired (10062) or answered already (40060), or Discord out of reach: the refusal cannot be shown, and
        # nothing depends on it (a task of its own: nobody else would see the error).
        custom_id = (data.get("data") or {}).get("custom_id")
        unexpected = not isinstance(error, discord.HTTPException | aiohttp.ClientError | OSError | TimeoutError)
        log.log(
            logging.ERROR if unexpected else logging.WARNING,
            "could not answer user=%s custom_id=%s with %s: %s",
            clicker_id(data),
            custom_id,
            mistake.key,
            error,
            exc_info=unexpected,
        )


def _not_answered_yet(interaction: Interaction, err: discord.HTTPException) -> bool:
    """``err`` says the token has no answer yet, though the click counts as acknowledged: the process that
    handed it here has not reached Discord yet. Then the click is answered as if it were not (its callback)."""
    if not (err.status == 404 and err.code in NOT_ANSWERED_YET and interaction.response.is_done()):
        return False
    discord_internals.forget_acknowledgement(interaction)
    return True


async def update_clicked(interaction: Interaction, edit: Callable[[], dict[str, Any]]) -> None:
    """Answer a click by updating the message clicked with ``edit()`` (fresh keyword arguments each time: its
    files are read once): in the click's callback (type 7), or through its token where it was acknowledged
    already. A handed-over click whose acknowledgement has not reached Discord yet is answered in its callback
    instead; one acknowledged meanwhile is edited through its token after all."""
    if interaction.response.is_done():
        try:
            await interaction.edit_original_response(**edit())
            return
        except discord.HTTPException as err:
            if not _not_answered_yet(interaction, err):
                raise
    try:
        await interaction.response.edit_message(**edit())
    except discord.HTTPException as err:
        if err.code != ALREADY_ACKNOWLEDGED:
            raise
        discord_internals.mark_acknowledged(interaction)
        await interaction.edit_original_response(**edit())


async def thinking(interaction: Interaction) -> None:
    """Acknowledge before work that waits on storage: Discord's three seconds never depend on a busy disk."""
    await acknowledge(interaction, ephemeral=True, thinking=True)


async def answer(interaction: Interaction, text: str | None = None, **kwargs: Any) -> None:
    """An ephemeral answer, whether or not the interaction was deferred already."""
    if text is not None:
        kwargs["content"] = text
    if interaction.response.is_done():
        try:
            await interaction.followup.send(ephemeral=True, **kwargs)
            return
        except discord.HTTPException as err:
            # A handed-over click whose acknowledgement has not reached Discord yet: its callback answers (a
            # text or embeds; files are read once, so an answer with files is not sent twice).
            if "file" in kwargs or "files" in kwargs or not _not_answered_yet(interaction, err):
                raise
    try:
        await interaction.response.send_message(ephemeral=True, **kwargs)
        return
    except discord.HTTPException as err:
        if err.code != ALREADY_ACKNOWLEDGED:
            raise
    await interaction.followup.send(ephemeral=True, **kwargs)


def error_text(lang: str, err: UserError) -> str:
    try:
        return t(lang, err.key, **err.values)
    except KeyError:  # a rules code without its own text: the engine's sentence is plain English
        return str(err.values.get("message", t(lang, "error.generic")))


def user_error_in(error: BaseException) -> UserError | None:
    """The user's mistake behind ``error``, if it is one: raised by a handler (discord.py wraps what a command
    raises in CommandInvokeError) or a refusal of the throttle."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if isinstance(error, app_commands.CommandOnCooldown):
        return UserError("error.slow_down")
    return error if isinstance(error, UserError) else None


async def report_error(
    interaction: Interaction, error: BaseException, *, custom_id: str | None = None
) -> None:
    """The one error path of commands and buttons: a user's mistake becomes an ephemeral answer in their
    language; anything else is logged with its context and answered with ``error.generic``."""
    lang = language_of(interaction)
    mistake = user_error_in(error)
    if mistake is not None:
        try:
            await answer(interaction, error_text(lang, mistake))
        except discord.HTTPException as http_err:
            # The interaction expired (10062) or was answered already (40060: an answer whose reply was
            # lost): the refusal cannot be shown, and nothing else depends on it.
            log.warning(
                "could not answer user=%s custom_id=%s with %s: %s",
                interaction.user.id,
                custom_id,
                mistake.key,
                http_err,
            )
        return
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    table = interaction.client.service.table_in_channel(interaction.channel_id or 0)
    button = ButtonId.parse(custom_id) if custom_id else None  # a click in a DM names its table only here
    log.error(
        "unexpected error: user=%s guild=%s channel=%s table=%s custom_id=%s command=%s",
        interaction.user.id,
        interaction.guild_id,
        interaction.channel_id,
        table.id if table else button.table if button else None,
        custom_id,
        interaction.command.qualified_name if interaction.command else None,
        exc_info=error,
    )
    with contextlib.suppress(discord.HTTPException):
        await answer(interaction, t(lang, "error.generic"))
