"""``/schnapsen status`` (Manage Server): how the bot is, for a server's admins, without reading its journal.

It shows the version and uptime, this server's open tables, the gateway latency, the AI's queue and how many
decisions ran below full strength in the last hour, the bot token's requests per second against its budget
(and Discord's budget of bad answers), and how many errors and warnings were logged in the last hour. Only
the person who asked sees it.

The hour's figures come from two small recorders started with this extension: ``ProblemTally``, a logging
handler that keeps when each WARNING and ERROR was logged, and ``Vitals``, which notes the token's and the AI's
counters every ``SAMPLE_SECONDS``.
"""

from __future__ import annotations

import collections
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands, tasks

from bot.i18n import t
from bot.version import version

from .checks import require_manager
from .replies import answer, language_of, report_error

if TYPE_CHECKING:
    from bot.client import SchnapsenBot

    Interaction = discord.Interaction[SchnapsenBot]

HOUR = 3600.0
SAMPLE_SECONDS = 10.0
MAX_REMEMBERED = 100_000  # problems logged in an hour, at most (a flood is counted up to this)


class ProblemTally(logging.Handler):
    """When each WARNING and ERROR (or worse) was logged, for the last hour."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(logging.WARNING)
        self.clock = clock
        self._logged: collections.deque[tuple[float, bool]] = collections.deque(maxlen=MAX_REMEMBERED)

    def emit(self, record: logging.LogRecord) -> None:
        self._logged.append((self.clock(), record.levelno >= logging.ERROR))

    def last_hour(self) -> tuple[int, int]:
        """(errors, warnings) logged in the last hour."""
        horizon = self.clock() - HOUR
        while self._logged and self._logged[0][0] < horizon:
            self._logged.popleft()
        errors = sum(error for _, error in self._logged)
        return errors, len(self._logged) - errors


@dataclass(frozen=True, slots=True)
class Sample:
    at: float
    token_calls: int  # the bot token's requests since start (the pacer's count)
    below_full: int  # AI decisions since start answered by greedy or searched with a lowered budget


class Vitals:
    """The counters, noted every `SAMPLE_SECONDS` for an hour, so that a figure "in the last minute" or "in the
    last hour" is the difference to the sample that long ago (or to the first, when the bot is younger)."""

    def __init__(self, read: Callable[[], Sample]) -> None:
        self.read = read
        self.samples: collections.deque[Sample] = collections.deque(maxlen=int(HOUR / SAMPLE_SECONDS) + 2)

    def note(self) -> None:
        self.samples.append(self.read())

    def _since(self, seconds: float, now: Sample) -> Sample:
        for sample in self.samples:  # oldest first: the first one inside the span
            if sample.at >= now.at - seconds:
                return sample
        return now

    def token_rate(self) -> float:
        """The bot token's requests per second over the last minute."""
        now = self.read()
        then = self._since(60.0, now)
        return (now.token_calls - then.token_calls) / (now.at - then.at) if now.at > then.at else 0.0

    def below_full_last_hour(self) -> int:
        now = self.read()
        return now.below_full - self._since(HOUR, now).below_full


def uptime_text(seconds: float, lang: str) -> str:
    minutes, _ = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    if days:
        return t(lang, "health.uptime_days", days=days, hours=hours, minutes=minutes)
    return t(lang, "health.uptime", hours=hours, minutes=minutes)


def status_text(bot: SchnapsenBot, vitals: Vitals, tally: ProblemTally, guild_id: int, lang: str) -> str:
    """The answer to /schnapsen status in `guild_id`, one fact per line."""
    tables = [table for table in bot.service.open_tables() if table.guild_id == guild_id]
    playing = sum(table.status == "playing" for table in tables)
    lobby = sum(table.status == "lobby" for table in tables)
    lines = [
        t(lang, "health.title", version=version(), uptime=uptime_text(time.monotonic() - bot.started_at, lang)),
        t(lang, "health.tables", count=len(tables), playing=playing, lobby=lobby),
    ]
    latency = bot.latency
    if math.isfinite(latency) and latency > 0:
        lines.append(t(lang, "health.latency", ms=round(latency * 1000)))
    else:
        lines.append(t(lang, "health.latency_unknown"))
    worker = bot.ai.worker
    if worker is None:
        lines.append(t(lang, "health.ai_off"))
    else:
        lines.append(t(lang, "health.ai", waiting=worker.waiting(), workers=worker.workers,
                       reduced=vitals.below_full_last_hour()))
    answers = bot.bad_answers
    lines.append(t(lang, "health.token", rate=f"{vitals.token_rate():.1f}", budget=bot.pacer.per_second,
                   bad=answers.counted(), limit=f"{answers.budget:,}"))
    errors, warnings = tally.last_hour()
    lines.append(t(lang, "health.problems", errors=errors, warnings=warnings))
    return "\n".join(lines)


def status_command(cog: StatusCog | None) -> app_commands.Command[Any, ..., None]:
    """``/schnapsen status``, answered by `cog` (None: its definition alone, as a sync sends it)."""

    async def status(interaction: discord.Interaction[SchnapsenBot]) -> None:  # a function: no cog binds it
        assert cog is not None
        await cog.status(interaction)

    command: app_commands.Command[Any, ..., None] = app_commands.Command(
        name="status",
        description=_("The bot's version, uptime and health, and this server's tables (Manage Server)"),
        callback=status,
    )
    if cog is not None:
        command.error(cog.on_status_error)
    return command


class StatusCog(commands.Cog):
    """Adds ``status`` to the ``/schnapsen`` group, and keeps the hour's figures."""

    def __init__(self, bot: SchnapsenBot) -> None:
        self.bot = bot
        self.tally = ProblemTally()
        self.vitals = Vitals(self.sample)
        self.command = status_command(self)
        parent = bot.tree.get_command("schnapsen")
        assert isinstance(parent, app_commands.Group), "load bot.schnapsen.cog first"
        parent.add_command(self.command, override=True)

    def sample(self) -> Sample:
        worker = self.bot.ai.worker
        below_full = 0 if worker is None else worker.fallbacks + worker.reduced
        return Sample(time.monotonic(), self.bot.pacer.asked, below_full)

    async def cog_load(self) -> None:
        logging.getLogger().addHandler(self.tally)
        self.vitals.note()
        self.sampler.start()

    async def cog_unload(self) -> None:
        self.sampler.cancel()
        logging.getLogger().removeHandler(self.tally)
        parent = self.bot.tree.get_command("schnapsen")
        if isinstance(parent, app_commands.Group):
            parent.remove_command(self.command.name)

    @tasks.loop(seconds=SAMPLE_SECONDS)
    async def sampler(self) -> None:
        self.vitals.note()

    async def status(self, interaction: Interaction) -> None:
        require_manager(interaction)
        assert interaction.guild_id is not None
        lang = language_of(interaction)
        await answer(interaction, status_text(self.bot, self.vitals, self.tally, interaction.guild_id, lang))

    async def on_status_error(self, interaction: Interaction, error: app_commands.AppCommandError) -> None:
        await report_error(interaction, error)


async def setup(bot: SchnapsenBot) -> None:
    """The extension's entry, loaded after ``bot.schnapsen.cog`` (its ``/schnapsen`` group gets ``status``)."""
    await bot.add_cog(StatusCog(bot))
