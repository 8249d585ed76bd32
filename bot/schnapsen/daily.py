"""``/schnapsen daily``: today's deals, the same for everyone (bot/game/daily.py), their boards, a deal beside
par, a past day's seed and the choice to stay off the board of every server; and the background jobs that
compute each day's par (bot/game/dailypar.py: at start-up, then ahead of the day every interval; an attempt
asks for its day's par as it starts) and post a finished day's results to the channel a server chose
(``/schnapsen settings daily_channel``).

The commands are a group of their own (``/schnapsen daily play|board|show|seed|visibility``: Discord lets a
group not be invoked itself) attached to the ``/schnapsen`` group when this cog is added. An attempt is a table
in the person's DM with the bot: a channel holds one table, and nobody but the person may see a deal of the day
before the day is over. A person idle at their attempt for its whole turn time has abandoned it: it is closed
with what they played.
"""

from __future__ import annotations

import asyncio
import io
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands, tasks

import engine
from bot.game.daily import DAILY_DEALS, Board, DayResults, DealBeside, League, day_of
from bot.game.dailyleague import MOVES
from bot.game.dailypar import ParComputer
from bot.game.errors import UserError
from bot.game.events import TableEvent, TakenOver
from bot.game.table import TableSnapshot
from bot.i18n import language_for_locale, t
from bot.render.dailyboard import BoardRow, daily_board_alt_text, render_daily_board
from bot.vocabulary import HAND_PLACES

from . import texts
from .replies import answer, language_of, report_error, thinking

if TYPE_CHECKING:
    from bot.client import SchnapsenBot

    Interaction = discord.Interaction[SchnapsenBot]

log = logging.getLogger(__name__)
BOARD_PERIODS = ("today", "week")
BOARD_SCOPES = ("server", "all")
FORBIDDEN_DM = 50007  # Discord: the person does not take DMs from the bot
# Where an attempt is played: the same choice, and texts, as where a person keeps their hand (/schnapsen prefs).
PLACE_CHOICES = [
    app_commands.Choice(name=_(t("en", f"command.choice.{place}")), value=place) for place in HAND_PLACES
]
RETRY_FIRST, RETRY_MAX = 1.0, 60.0  # seconds between tries to close an abandoned attempt (doubling)


def board_text(lang: str, board: Board, *, week: bool, everywhere: bool) -> str:
    """The board as lines of text, best first (names only, never a card)."""
    title = t(lang, "daily.board_week" if week else "daily.board_today", day=board.days[-1])
    if everywhere:
        title += " · " + t(lang, "daily.board_everywhere")
    lines = [f"**{title}**"]
    if not board.par_ready:
        lines.append(t(lang, "daily.par_pending"))
    if not board.standings:
        lines.append(t(lang, "daily.board_empty"))
    for rank, standing in enumerate(board.standings, start=1):
        name = discord.utils.escape_markdown(standing.display_name)
        lines.append(t(lang, "daily.board_line", rank=rank, name=name, score=f"{standing.score:+d}", count=standing.played))
    return "\n".join(lines)


def league_text(lang: str, league: League, division: int | None, user_id: int) -> str:
    """One division of the server's league of the month (the person's own unless ``division``, 1 = the first)
    as lines of text, with where each place goes at the month's end (▲ up, ▼ down)."""
    if not league.divisions:
        return t(lang, "daily.league_empty", month=league.month)
    mine = next(
        ((d, place) for d, rows in enumerate(league.divisions) for place in rows if place.member.user_id == user_id),
        None,
    )
    shown = division - 1 if division is not None else (mine[0] if mine else 0)
    if not 0 <= shown < len(league.divisions):
        raise UserError("error.daily_no_division", division=division, divisions=len(league.divisions))
    title = t(lang, "daily.league_title", month=league.month, division=shown + 1, divisions=len(league.divisions))
    lines = [f"**{title}**"]
    if not league.settled:
        lines.append(t(lang, "daily.league_unsettled"))
    for place in league.divisions[shown]:
        mark = " ▲" if place.move > 0 else " ▼" if place.move < 0 else ""
        name = discord.utils.escape_markdown(place.member.display_name)
        lines.append(
            t(lang, "daily.league_line", rank=place.rank, name=name, score=f"{place.score:+d}", count=place.days) + mark
        )
    if mine is not None:
        lines.append(t(lang, "daily.league_you", division=mine[0] + 1, rank=mine[1].rank))
    lines.append(t(lang, "daily.league_rules", moves=MOVES))
    return "\n".join(lines)


def league_final_text(lang: str, league: League) -> str:
    """A month's final league standings, as posted to a server's daily channel: each division's winner, who
    goes up and who goes down (names only, never a card)."""
    lines = [f"**{t(lang, 'daily.league_final', month=league.month)}**"]
    for number, division in enumerate(league.divisions, start=1):
        names = {move: ", ".join(discord.utils.escape_markdown(p.member.display_name) for p in division if p.move == move) for move in (1, -1)}
        winner = discord.utils.escape_markdown(division[0].member.display_name)
        line = t(lang, "daily.league_final_line", division=number, name=winner, score=f"{division[0].score:+d}")
        if names[1]:
            line += f" · ▲ {names[1]}"
        if names[-1]:
            line += f" · ▼ {names[-1]}"
        lines.append(line)
    return "\n".join(lines)


def beside_text(lang: str, beside: DealBeside) -> str:
    """The deal as the person played it beside the AI's play of the same cards, action by action."""

    def named(line: tuple[str, ...]) -> list[str]:
        shown = []
        for text in line:
            seat, action = engine.parse_action(text)
            shown.append(f"{engine.SEAT_NAMES[seat][0]} {texts.action_name(beside.deck, lang, action)}")
        return shown

    yours, ais = named(beside.played), named(beside.par.actions)
    width = max(len(line) for line in [*yours, t(lang, "daily.column_yours")]) + 2
    rows = [f"{t(lang, 'daily.column_yours'):<{width}}{t(lang, 'daily.column_ai')}"]
    for n in range(max(len(yours), len(ais))):
        mine = yours[n] if n < len(yours) else ""
        rows.append(f"{mine:<{width}}{ais[n] if n < len(ais) else ''}".rstrip())
    title = t(
        lang,
        "daily.beside_title",
        deal=beside.deal_no + 1,
        points=f"{beside.points:+d}",
        par=f"{beside.par.points:+d}",
        score=f"{beside.score:+d}",
    )
    return f"**{title}**\n```\n" + "\n".join(rows) + "\n```"


class DailyCommands(app_commands.Group):
    def __init__(self, bot: SchnapsenBot) -> None:
        super().__init__(name="daily", description=_("The daily deal: today's deals, the same for everyone"))
        self.bot = bot

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        self.bot.runtime.remember_lang(interaction.user.id, language_of(interaction))
        self.bot.throttle.check(interaction)
        return True

    async def on_error(self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError) -> None:
        await report_error(interaction, error)

    @app_commands.command(name="play", description=_("Play today's deals alone with three AI players"))
    @app_commands.describe(where=_("In your direct messages, or in this channel where only you see it"))
    @app_commands.choices(where=PLACE_CHOICES)
    @app_commands.guild_only()
    async def play(self, interaction: Interaction, where: str | None = None) -> None:
        """Start today's attempt where the person asks (else where they keep their hand, ``/schnapsen prefs``);
        in the DM unless their DMs are closed, then in the channel. Asked again while an attempt played in a
        channel is open, it shows that attempt again (its message follows clicks only while their token lasts)."""
        from .components import show_hand  # here: components -> shellbuttons -> this module

        lang = language_of(interaction)
        if where is not None and where not in HAND_PLACES:  # typed by hand: untrusted
            raise UserError("error.daily_bad_place")
        await thinking(interaction)
        assert interaction.guild_id is not None
        service, user_id = self.bot.service, interaction.user.id
        attempt = await service.daily.attempt_today(user_id)
        if attempt is not None:
            table = None if attempt.finished else service.snapshot(attempt.table_id)
            if table is None or attempt.place != "channel" or table.guild_id != interaction.guild_id:
                raise UserError("error.daily_played")
            await answer(interaction, t(lang, "reply.daily_shown_again"))
            await show_hand(interaction, table, lang)
            return
        service.check_may_host(user_id)
        place = where or (await service.prefs.player_prefs(user_id)).hand_place
        intro, note = t(lang, "daily.intro", count=DAILY_DEALS), ""
        if place == "dm":
            try:  # told first, so that closed DMs are known before anything is made
                dm = (await interaction.user.send(intro)).channel
            except discord.Forbidden as err:
                if err.code != FORBIDDEN_DM:
                    raise
                place, note = "channel", t(lang, "reply.daily_dms_closed") + " "
        if place == "channel":
            # The table is keyed by the person's DM channel all the same (opening it works with DMs closed):
            # a key of theirs alone, to which nothing of this attempt is posted.
            dm = await interaction.user.create_dm()
        defaults = await service.guilds.guild_settings(interaction.guild_id)
        table = await service.daily.start(
            guild_id=interaction.guild_id,
            dm_channel_id=dm.id,
            user_id=user_id,
            name=interaction.user.display_name,
            deck=defaults.deck,
            language=lang,
            in_channel=place == "channel",
        )
        if place == "dm":
            await answer(interaction, t(lang, "reply.daily_started"))
            return
        await answer(interaction, f"{note}{intro}\n{t(lang, 'reply.daily_started_here')}")
        await show_hand(interaction, table, lang)

    @app_commands.command(name="board", description=_("Today's or this week's scores against par"))
    @app_commands.describe(period=_("Today or this week"), scope=_("This server, or every server"))
    @app_commands.choices(
        period=[app_commands.Choice(name=_("today"), value="today"), app_commands.Choice(name=_("this week"), value="week")],
        scope=[app_commands.Choice(name=_("this server"), value="server"), app_commands.Choice(name=_("every server"), value="all")],
    )
    @app_commands.guild_only()
    async def board(self, interaction: Interaction, period: str = "today", scope: str = "server") -> None:
        lang = language_of(interaction)
        if period not in BOARD_PERIODS or scope not in BOARD_SCOPES:  # typed by hand: untrusted
            raise UserError("error.daily_bad_board")
        await thinking(interaction)
        everywhere = scope == "all"
        board = await self.bot.service.daily.board(None if everywhere else interaction.guild_id, week=period == "week")
        text = board_text(lang, board, week=period == "week", everywhere=everywhere)
        streak = await self.bot.service.daily.streak(interaction.user.id)
        if streak:
            text += "\n" + t(lang, "daily.streak", count=streak)
        await answer(interaction, text[:2000])

    @app_commands.command(name="league", description=_("This month's league of the daily deal in this server"))
    @app_commands.describe(division=_("Which division (yours, if not given)"))
    @app_commands.guild_only()
    async def league(self, interaction: Interaction, division: app_commands.Range[int, 1, 1000] | None = None) -> None:
        lang = language_of(interaction)
        await thinking(interaction)
        assert interaction.guild_id is not None
        league = await self.bot.service.daily.league(interaction.guild_id)
        await answer(interaction, league_text(lang, league, division, interaction.user.id)[:2000])

    @app_commands.command(name="show", description=_("A deal you played today beside the AI's play of the same cards"))
    @app_commands.describe(deal=_("Which of today's deals"))
    async def show(self, interaction: Interaction, deal: app_commands.Range[int, 1, DAILY_DEALS]) -> None:
        lang = language_of(interaction)
        if not 1 <= deal <= DAILY_DEALS:  # typed by hand: untrusted
            raise UserError("error.daily_deal_not_played", deal=deal)
        await thinking(interaction)
        beside = await self.bot.service.daily.beside_par(interaction.user.id, deal - 1)
        await answer(interaction, beside_text(lang, beside)[:2000])

    @app_commands.command(name="seed", description=_("The seed a past day's deals were dealt from"))
    @app_commands.describe(day=_("The day, as YYYY-MM-DD (UTC)"))
    async def seed(self, interaction: Interaction, day: str) -> None:
        lang = language_of(interaction)
        await thinking(interaction)
        secret = await self.bot.service.daily.published_secret(day.strip()[:10])
        await answer(interaction, t(lang, "daily.seed_published", day=day.strip()[:10], seed=secret))

    @app_commands.command(name="visibility", description=_("Whether the board of every server shows you"))
    @app_commands.describe(everywhere=_("Show me on the board of every server"))
    async def visibility(self, interaction: Interaction, everywhere: bool) -> None:
        lang = language_of(interaction)
        await thinking(interaction)
        await self.bot.service.daily.show_everywhere(interaction.user.id, everywhere)
        await answer(interaction, t(lang, "reply.daily_shown_everywhere" if everywhere else "reply.daily_hidden_everywhere"))


class DailyCog(commands.Cog):
    """The daily group's home, and the jobs that compute par ahead and post results (in one process: the one
    keeping storage)."""

    def __init__(self, bot: SchnapsenBot) -> None:
        self.bot = bot
        self.commands = DailyCommands(bot)
        settings = bot.settings
        self.par = ParComputer(bot.db, bot.ai.worker, budget_ms=settings.ai_budget_ms, hard_cap_ms=settings.ai_hard_cap_ms)
        bot.service.daily.par = self.par  # an attempt asks for its day's par as it starts, in any process
        self._closing: dict[int, asyncio.Task[None]] = {}  # table id -> the job closing its abandoned attempt
        parent = bot.tree.get_command("schnapsen")
        assert isinstance(parent, app_commands.Group), "the /schnapsen group is added first"
        parent.add_command(self.commands)

    async def cog_load(self) -> None:
        shards = self.bot.settings.shards
        if shards is None or shards.keeps_storage:
            if self.bot.settings.daily_par_ahead:
                self.par_loop.change_interval(seconds=self.bot.settings.daily_interval)
                self.par_loop.start()
            self.post_loop.change_interval(seconds=self.bot.settings.daily_interval)
            self.post_loop.start()

    async def cog_unload(self) -> None:
        self.par_loop.cancel()
        self.post_loop.cancel()
        self.par.cancel()
        if self.bot.service.daily.par is self.par:
            self.bot.service.daily.par = None
        for job in list(self._closing.values()):
            job.cancel()

    @commands.Cog.listener()
    async def on_table_changed(self, before: object, after: TableSnapshot, events: tuple[TableEvent, ...]) -> None:
        """A person idle for a whole turn time (an hour) at their attempt has abandoned it: it ends with what
        they played, rather than the AI playing the rest for them."""
        if after.status == "closed" or not self.bot.service.daily.known_attempt(after.id):
            return
        if any(isinstance(event, TakenOver) for event in events) and after.id not in self._closing:
            table_id = after.id
            job = asyncio.get_running_loop().create_task(self.close_idle(table_id))
            self._closing[table_id] = job
            job.add_done_callback(lambda _: self._closing.pop(table_id, None))

    async def close_idle(self, table_id: int) -> None:
        """Close the abandoned attempt, retried with backoff until it is closed (a failure is logged at ERROR):
        until then the AI would play the person's seat on, and the attempt would score moves not theirs."""
        delay, tries = RETRY_FIRST, 1
        while True:
            try:
                await self.bot.service.close(table_id, reason_key="notice.closed_daily_idle")
                return
            except UserError:  # closed meanwhile
                return
            except Exception:
                log.error(
                    "closing the idle daily attempt at table %s failed (try %d); retrying in %.0f s",
                    table_id, tries, delay, exc_info=True,
                )  # fmt: skip
            await asyncio.sleep(delay)
            delay, tries = min(delay * 2, RETRY_MAX), tries + 1

    async def ensure_par(self) -> int:
        """Today's and tomorrow's par where not stored yet (tomorrow's is ready before its day starts), and
        yesterday's where that day was dealt (its last attempts may still run, its results wait for par); how
        many deals were computed. Each day's job is asked for at once, before anything is awaited; a job
        already running for a day (an attempt asked for it) is waited for, not repeated."""
        daily, now = self.bot.service.daily, self.bot.service.now()
        jobs = [self.par.request(day_of(now), daily.secret), self.par.request(day_of(now + 86_400), daily.secret)]
        yesterday = day_of(now - 86_400)
        if await self.bot.db.daily.known_secret(yesterday) is not None:  # never draws a secret for a day gone
            jobs.append(self.par.request(yesterday, daily.secret))
        await asyncio.wait(jobs)  # a failed job is logged by itself, and asked for again at the next look
        return sum(job.result() for job in jobs if not job.cancelled() and job.exception() is None)

    async def post_results(self, now: float | None = None) -> int:
        """Post the results of the day just over to each server's chosen channel; how many were posted. A
        failed post is logged and tried again at the next look."""
        posted = 0
        daily = self.bot.service.daily
        for results in await daily.results_to_post(self.bot.service.now() if now is None else now):
            try:
                await self._post(results)
                posted += 1
            except Exception:
                log.error(
                    "posting the daily results of %s to channel %s failed; tried again in %s s",
                    results.day, results.channel_id, self.bot.settings.daily_interval, exc_info=True,
                )
                await daily.post_failed(results)
        return posted

    async def post_league_finals(self) -> int:
        """Post last month's final league standings to each server's daily channel, once this month's divisions
        are seeded from them; how many were posted. A failed post is logged and tried again at the next look."""
        posted = 0
        daily = self.bot.service.daily
        for final in await daily.league_finals_to_post():
            try:
                lang = await self._channel_language(final.guild_id)
                channel = self.bot.get_partial_messageable(final.channel_id)
                text = league_final_text(lang, final.league)
                await channel.send(text[:2000], allowed_mentions=discord.AllowedMentions.none())
                posted += 1
            except Exception:
                log.error(
                    "posting the daily league's final standings of %s to channel %s failed; tried again in %s s",
                    final.league.month, final.channel_id, self.bot.settings.daily_interval, exc_info=True,
                )  # fmt: skip
                await daily.league_final_failed(final)
        return posted

    async def _channel_language(self, guild_id: int) -> str:
        defaults = await self.bot.service.guilds.guild_settings(guild_id)
        guild = self.bot.get_guild(guild_id)
        return defaults.language or language_for_locale(guild.preferred_locale if guild else None)

    async def _post(self, results: DayResults) -> None:
        lang = await self._channel_language(results.guild_id)
        board = Board((results.day,), results.standings, par_ready=True)
        text = board_text(lang, board, week=False, everywhere=False)
        text += "\n" + t(lang, "daily.seed_published", day=results.day, seed=results.secret)
        title = t(lang, "daily.board_today", day=results.day)
        rows = [BoardRow(n, s.display_name, s.score, s.played) for n, s in enumerate(results.standings, start=1)]
        empty = t(lang, "daily.board_empty")
        png = await asyncio.to_thread(render_daily_board, title, rows, empty, t(lang, "daily.deals_word"))
        file = discord.File(io.BytesIO(png), filename="daily.png", description=daily_board_alt_text(title, rows, empty))
        channel = self.bot.get_partial_messageable(results.channel_id)
        await channel.send(text[:2000], file=file, allowed_mentions=discord.AllowedMentions.none())

    @tasks.loop(seconds=600)  # every settings.daily_interval (set in cog_load); the first run at once
    async def par_loop(self) -> None:
        """Par ahead: at start-up (a restart does not leave today's attempts without it for an interval), then
        every interval (tomorrow's is in before its day starts)."""
        try:
            await self.ensure_par()
        except Exception:
            log.exception("computing the daily par failed; tried again in %s s", self.bot.settings.daily_interval)

    @tasks.loop(seconds=600)  # every settings.daily_interval (set in cog_load)
    async def post_loop(self) -> None:
        """Yesterday's results and last month's league standings, where they are due."""
        interval = self.bot.settings.daily_interval
        try:
            await self.post_results()
        except Exception:
            log.exception("looking for daily results to post failed; tried again in %s s", interval)
        try:
            await self.post_league_finals()
        except Exception:
            log.exception("looking for daily league standings to post failed; tried again in %s s", interval)

    @post_loop.before_loop
    async def _after_an_interval(self) -> None:
        # Start-up (restoring tables, their AI moves) first; tests call post_results themselves.
        await asyncio.sleep(self.bot.settings.daily_interval)
