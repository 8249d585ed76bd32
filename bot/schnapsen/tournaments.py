"""Server tournaments on Discord (issue 30): ``/schnapsen tournament create|join|start|standings|result``, each
match opened as a table in a thread of its own in the tournament's channel, and the rounds driven from what
is stored (``bot.game.tournaments.TournamentService.drive``).

The extension (``setup``) adds the command group to ``/schnapsen`` and a small cog that listens for table
changes: when a Bummerl ends at a match's table (the subscriber ``subscribers/tournament.py`` counted it in
the same transaction) or such a table closes, the tournament is driven on: the next Bummerl of a best of
three, the decided match's table closed, the next round paired and opened once every match has ended, the
standings posted as text. At start-up every running tournament is driven once, so a restart in the middle
of a round picks up where it stopped. A failed drive is logged at ERROR and retried with backoff.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.db.tournaments import MatchRow, TeamRow, TournamentRow
from bot.game.errors import UserError
from bot.game.events import BummerlEnded, TableClosed
from bot.game.table import TableSnapshot
from bot.game.tournament_controls import parse_start
from bot.game.tournaments import Advanced, Place, TournamentService
from bot.i18n import language_for_locale, t
from bot.tournament import Standing

from . import threads
from .replies import answer, language_of, report_error, thinking
from .tournament_controls import (
    MESSAGE_LIMIT,
    SIGNUP_EDIT_GAP,
    RunnerControls,
    organiser_commands,
    signup_text,
    when_text,
)
from .tournament_images import Picture, may_attach, picture_messages, pictures_for, standings_lines

if TYPE_CHECKING:
    from bot.client import SchnapsenBot

    Interaction = discord.Interaction[SchnapsenBot]

log = logging.getLogger(__name__)

NO_MENTIONS = discord.AllowedMentions.none()
RETRY_FIRST, RETRY_MAX = 1.0, 60.0
FORMAT_CHOICES = [
    app_commands.Choice(name=_("Swiss", key="command.choice.swiss"), value="swiss"),
    app_commands.Choice(name=_("Single elimination", key="command.choice.elimination"), value="elimination"),
]


def chunks(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    r"""``text`` in pieces of at most ``limit`` characters, cut at line ends (a longer line is cut).

    >>> chunks("aa\nbb\ncc", 5)
    ['aa\nbb', 'cc']
    """
    pieces: list[str] = []
    current = ""
    for line in text.split("\n"):
        while len(line) > limit:
            pieces.extend([current] if current else [])
            pieces.append(line[:limit])
            current, line = "", line[limit:]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > limit:
            pieces.append(current)
            candidate = line
        current = candidate
    return [*pieces, current] if current else pieces


def pairing_lines(
    lang: str, matches: tuple[MatchRow, ...] | list[MatchRow], teams: dict[int, TeamRow]
) -> str:
    """One line per match: its number (for the organiser's result) and both teams with their numbers."""

    def named(team_id: int) -> str:
        return f"#{teams[team_id].seed} {teams[team_id].name}"

    lines = [
        t(lang, "tournament.bye", team=named(match.first_team))
        if match.second_team is None
        else t(
            lang,
            "tournament.match",
            number=match.id,
            first=named(match.first_team),
            second=named(match.second_team),
        )
        for match in matches
    ]
    return "\n".join(f"• {line}" for line in lines)


def standings_text(
    lang: str, tournament: TournamentRow, table: list[tuple[Standing, TeamRow]], title: str
) -> str:
    """The standings, one line per team: rank, team and its number, points, Buchholz, game points."""
    if not table:
        return t(lang, "tournament.no_results", name=tournament.name)
    return title + "\n" + "\n".join(standings_lines(lang, table))


class TournamentCommands(app_commands.Group):
    """``/schnapsen tournament ...``: its callbacks are bound to this group."""

    def __init__(self, runner: TournamentRunner) -> None:
        super().__init__(
            name="tournament",
            description=_(
                "Server tournaments: sign up, play the rounds, see the standings",
                key="command.tournament.description",
            ),
            guild_only=True,
        )
        self.runner = runner
        for command in organiser_commands(runner):
            self.add_command(command)

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        interaction.client.throttle.check(interaction)
        return True

    async def on_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        await report_error(interaction, error)

    async def organised(self, interaction: Interaction) -> TournamentRow:
        """Acknowledge, then the channel's tournament if the user is its organiser (or manages the server)."""
        await thinking(interaction)
        tournament = await self.runner.here(interaction)
        may = await self.runner.may_organise(interaction)
        self.runner.tournaments.check_organiser(tournament, interaction.user.id, may)
        return tournament

    @app_commands.command(
        name="create",
        description=_("Create a tournament in this channel (Manage Server)", key="command.tournament.create"),
    )
    @app_commands.choices(format=FORMAT_CHOICES)
    @app_commands.describe(
        name=_("The tournament's name", key="command.option.tournament_name"),
        format=_("Swiss (rounds paired by score) or single elimination", key="command.option.format"),
        rounds=_("Rounds of a Swiss tournament", key="command.option.rounds"),
        best_of_three=_("Each match is best of three Bummerl (else one)", key="command.option.best_of_three"),
        preset=_("Rules preset"),
        target=_("Game points that win a Bummerl (6 to 99; 24 by default)"),
        turn_time=_("Seconds per turn"),
        no_show_minutes=_(
            "Minutes after which a team the AI plays for entirely loses by forfeit (0: never; 5 by default)",
            key="command.option.no_show_minutes",
        ),
        start=_(
            "When it starts itself: YYYY-MM-DD HH:MM or HH:MM (UTC), or minutes or hours from now (90, 2h)",
            key="command.option.start",
        ),
        ai_stand_in=_(
            "May the AI stand in for one absent partner (else the team forfeits); yes by default",
            key="command.option.ai_stand_in",
        ),
    )
    async def create(
        self,
        interaction: Interaction,
        name: app_commands.Range[str, 1, 80],
        format: str = "swiss",
        rounds: app_commands.Range[int, 1, 15] = 3,
        best_of_three: bool = False,
        preset: str | None = None,
        target: app_commands.Range[int, 6, 99] | None = None,
        turn_time: app_commands.Range[int, 15, 3600] | None = None,
        no_show_minutes: app_commands.Range[int, 0, 60] = 5,
        start: app_commands.Range[str, 1, 40] | None = None,
        ai_stand_in: bool = True,
    ) -> None:
        if not await self.runner.may_organise(interaction):
            raise UserError("tournament.error.manager_only")
        starts_at = None if start is None else parse_start(start, self.runner.tournaments.now())
        channel = interaction.channel
        if not threads.opens_threads_in(channel):
            raise UserError("tournament.error.needs_text_channel")
        for permission, needs in threads.REQUIRED_PERMISSIONS:
            if not getattr(interaction.app_permissions, permission):
                raise UserError(needs)
        await thinking(interaction)
        assert interaction.guild_id is not None and isinstance(channel, discord.TextChannel)
        bot = interaction.client
        defaults = await bot.service.guilds.guild_settings(interaction.guild_id)
        tournament = await self.runner.tournaments.create(
            guild_id=interaction.guild_id,
            channel_id=channel.id,
            organiser_id=interaction.user.id,
            name=name,
            format=format,  # type: ignore[arg-type]  # checked by the service: untrusted
            swiss_rounds=rounds,
            best_of=3 if best_of_three else 1,
            preset=preset or defaults.preset,
            rule_changes={**defaults.rule_changes, **({"target": target} if target is not None else {})},
            turn_seconds=turn_time or defaults.turn_seconds,
            no_show_seconds=no_show_minutes * 60,
            ai_stand_in=ai_stand_in,
            starts_at=starts_at,
        )
        lang = await self.runner.channel_language(tournament)
        sent = await channel.send(signup_text(lang, tournament, []), allowed_mentions=NO_MENTIONS)
        await bot.db.tournaments.set_signup_message(tournament.id, sent.id)
        reply = t(language_of(interaction), "reply.tournament_created", name=tournament.name)
        if starts_at is not None:
            reply += " " + when_text(language_of(interaction), starts_at)
            self.runner.watch_start(tournament.id)
        await answer(interaction, reply)

    @app_commands.command(
        name="join",
        description=_(
            "Sign up for this channel's tournament, alone or with a partner", key="command.tournament.join"
        ),
    )
    @app_commands.describe(partner=_("Your partner (you two play as a team)", key="command.option.partner"))
    async def join(self, interaction: Interaction, partner: discord.Member | None = None) -> None:
        lang = language_of(interaction)
        await thinking(interaction)
        tournament = await self.runner.here(interaction)
        runner = self.runner.tournaments
        if partner is not None and (partner.bot or partner.id == interaction.user.id):
            raise UserError("tournament.error.bad_partner")
        await runner.sign_up(
            tournament, interaction.user.id, interaction.user.display_name, partner.id if partner else None
        )
        if partner is None:
            self.runner.signup_changed(tournament.id)
            await answer(interaction, t(lang, "reply.tournament_joined", name=tournament.name))
            return
        signed = {s.user_id: s for s in await interaction.client.db.tournaments.signups(tournament.id)}
        if partner.id not in signed:  # signed up with them: the team has both names from the start
            await runner.sign_up(tournament, partner.id, partner.display_name, interaction.user.id)
        self.runner.signup_changed(tournament.id)
        await answer(
            interaction,
            t(lang, "reply.tournament_joined_with", name=tournament.name, partner=partner.display_name),
        )

    @app_commands.command(
        name="withdraw",
        description=_("Take your sign-up back before the start", key="command.tournament.withdraw"),
    )
    async def withdraw(self, interaction: Interaction) -> None:
        await thinking(interaction)
        tournament = await self.runner.here(interaction)
        await self.runner.tournaments.withdraw(tournament, interaction.user.id)
        self.runner.signup_changed(tournament.id)
        await answer(
            interaction, t(language_of(interaction), "reply.tournament_withdrawn", name=tournament.name)
        )

    @app_commands.command(
        name="start",
        description=_("Close the sign-up and start round 1 (the organiser)", key="command.tournament.start"),
    )
    async def start(self, interaction: Interaction) -> None:
        tournament = await self.organised(interaction)
        async with self.runner.lock(tournament.id):  # not at the same time as its scheduled start
            await self.runner.begin(tournament)
        await answer(
            interaction, t(language_of(interaction), "reply.tournament_started", name=tournament.name)
        )

    @app_commands.command(
        name="standings",
        description=_("The standings of this channel's tournament", key="command.tournament.standings"),
    )
    async def standings(self, interaction: Interaction) -> None:
        lang = language_of(interaction)
        await thinking(interaction)
        tournament = await self.runner.here(interaction)
        table = await self.runner.tournaments.standings(tournament.id)
        rounds = await interaction.client.db.tournaments.rounds(tournament.id)
        ended = max((number for number, _, ended_at in rounds if ended_at is not None), default=0)
        title = t(lang, "tournament.standings_title", name=tournament.name, round=ended)
        if interaction.app_permissions.attach_files:  # the images, their text as their descriptions
            pictures = await pictures_for(interaction.client.db, lang, tournament, table, ended)
            if pictures:
                for number, message in enumerate(picture_messages(pictures)):
                    await answer(interaction, None if number else title, files=[p.file() for p in message])
                return
        for piece in chunks(standings_text(lang, tournament, table, title)):  # a large field needs several
            await answer(interaction, piece)

    @app_commands.command(
        name="result",
        description=_(
            "Set a match's result by hand, with a reason (the organiser)", key="command.tournament.result"
        ),
    )
    @app_commands.describe(
        match=_("The match's number (as the pairings show it)", key="command.option.match"),
        winner=_("The winning team's number (none: both lose)", key="command.option.winner"),
        reason=_("Why (kept in the tournament's log)", key="command.option.reason"),
        forfeit=_("The loser did not show up (a forfeit)", key="command.option.forfeit"),
    )
    async def result(
        self,
        interaction: Interaction,
        match: int,
        reason: app_commands.Range[str, 1, 200],
        winner: int | None = None,
        forfeit: bool = False,
    ) -> None:
        tournament = await self.organised(interaction)
        runner = self.runner.tournaments
        if tournament.status not in ("running", "paused"):
            raise UserError("tournament.error.not_running")
        await runner.set_result(
            tournament, match, winner, actor_id=interaction.user.id, reason=reason, forfeit=forfeit
        )
        # A result lifts the pause the tournament made itself for want of pairings, not the organiser's.
        if tournament.status == "paused" and not tournament.paused_by_organiser:
            await interaction.client.db.tournaments.set_status(tournament.id, "running", runner.now())
        await answer(interaction, t(language_of(interaction), "reply.tournament_result"))
        self.runner.schedule(tournament.id)

    @app_commands.command(
        name="cancel",
        description=_("Call the tournament off (the organiser)", key="command.tournament.cancel"),
    )
    @app_commands.describe(reason=_("Why (kept in the tournament's log)", key="command.option.reason"))
    async def cancel(self, interaction: Interaction, reason: app_commands.Range[str, 1, 200]) -> None:
        tournament = await self.organised(interaction)
        runner = self.runner.tournaments
        await runner.cancel(
            interaction.client.service, tournament, actor_id=interaction.user.id, reason=reason
        )
        lang = await self.runner.channel_language(tournament)
        await self.runner.post(tournament, t(lang, "tournament.cancelled", name=tournament.name))
        self.runner.signup_changed(tournament.id)
        await answer(interaction, t(language_of(interaction), "reply.tournament_done"))

    @app_commands.command(
        name="remove",
        description=_("Take a team out of the tournament (the organiser)", key="command.tournament.remove"),
    )
    @app_commands.describe(
        team=_("The team's number (as the standings show it)", key="command.option.team"),
        reason=_("Why (kept in the tournament's log)", key="command.option.reason"),
    )
    async def remove(
        self, interaction: Interaction, team: int, reason: app_commands.Range[str, 1, 200]
    ) -> None:
        tournament = await self.organised(interaction)
        runner = self.runner.tournaments
        await runner.remove_team(tournament, team, actor_id=interaction.user.id, reason=reason)
        await answer(interaction, t(language_of(interaction), "reply.tournament_done"))

    @app_commands.command(
        name="forbid",
        description=_(
            "Two teams shall not meet in a later Swiss round (the organiser)", key="command.tournament.forbid"
        ),
    )
    @app_commands.describe(
        first=_("The team's number (as the standings show it)", key="command.option.team"),
        second=_("The other team's number", key="command.option.other_team"),
    )
    async def forbid(self, interaction: Interaction, first: int, second: int) -> None:
        tournament = await self.organised(interaction)
        runner = self.runner.tournaments
        await runner.forbid(tournament, first, second, actor_id=interaction.user.id)
        await answer(interaction, t(language_of(interaction), "reply.tournament_done"))

class TournamentRunner(RunnerControls, commands.Cog):
    """Drives each running tournament from its stored state, one drive per tournament at a time."""

    def __init__(self, bot: SchnapsenBot) -> None:
        self.bot = bot
        self.tournaments = TournamentService(bot.db)
        self.group = TournamentCommands(self)
        self._locks: dict[int, asyncio.Lock] = {}
        self._jobs: set[asyncio.Task[None]] = set()
        self._watched: set[int] = set()  # matches with a no-show timer in this process
        self._start_timers: set[int] = set()  # tournaments waiting for their scheduled start in this process
        self._signup_dirty: set[int] = set()  # sign-up messages to edit
        self._signup_editing: set[int] = set()  # sign-up messages with an editor running
        self.signup_edit_gap = SIGNUP_EDIT_GAP
        # The timers' clock (a test gives the fake's) and the event that wakes them to look at it again.
        self.clock = time.time
        self._clock_moved = asyncio.Event()

    async def cog_load(self) -> None:
        parent = self.bot.tree.get_command("schnapsen")
        assert isinstance(parent, app_commands.Group), "load bot.schnapsen.cog first"
        parent.add_command(self.group, override=True)
        for tournament in await self.bot.db.tournaments.open_tournaments():
            if not self.bot.service.directory.owns_guild(tournament.guild_id):
                continue
            if tournament.status == "running":
                self.schedule(tournament.id)
            elif tournament.status == "signup" and tournament.starts_at is not None:
                self.watch_start(tournament.id)  # a start time already past starts it at once

    async def cog_unload(self) -> None:
        parent = self.bot.tree.get_command("schnapsen")
        if isinstance(parent, app_commands.Group):
            parent.remove_command(self.group.name)
        for job in self._jobs:
            job.cancel()

    @commands.Cog.listener()
    async def on_table_changed(
        self, before: TableSnapshot | None, after: TableSnapshot, events: tuple[Any, ...]
    ) -> None:
        if any(isinstance(event, BummerlEnded | TableClosed) for event in events):
            self._start(self._drive_table(after.id))

    async def _drive_table(self, table_id: int) -> None:
        # Retried like the drive itself: a failed read here would leave the round waiting until a restart.
        match = await self._retried(
            f"table {table_id}: its tournament match",
            lambda: self.bot.db.tournaments.match_at_table(table_id),
        )
        if match is not None:
            await self.drive(match.tournament_id)

    def schedule(self, tournament_id: int) -> None:
        self._start(self.drive(tournament_id))

    def _start(self, work: Any) -> None:
        job = asyncio.get_running_loop().create_task(work)
        self._jobs.add(job)
        job.add_done_callback(self._jobs.discard)

    async def drive(self, tournament_id: int) -> None:
        """Drive the tournament on, retried with backoff until it succeeds; then post each ended round's
        standings (and the final result)."""
        async with self.lock(tournament_id):
            await self.bot.wait_until_ready()
            reports = await self._retried(
                f"tournament {tournament_id}: drive",
                lambda: self.tournaments.drive(self.bot.service, tournament_id, self.open_place),
            )
            for report in reports:
                await self._retried(
                    f"tournament {tournament_id}: standings",
                    lambda report=report: self.announce(tournament_id, report),
                )
            tournament = await self._retried(
                f"tournament {tournament_id}: read", lambda: self.tournaments.get(tournament_id)
            )
            if tournament is not None and tournament.status == "paused" and reports:
                lang = await self.channel_language(tournament)
                await self.post(tournament, t(lang, "tournament.paused", name=tournament.name))
            if tournament is not None and tournament.status == "running":
                await self._watch(tournament)

    def lock(self, tournament_id: int) -> asyncio.Lock:
        return self._locks.setdefault(tournament_id, asyncio.Lock())

    async def begin(self, tournament: TournamentRow) -> None:
        """Close the sign-up and start round 1: post the pairings, update the sign-up message, drive it."""
        teams, left, matches = await self.tournaments.begin(tournament)
        lang = await self.channel_language(tournament)
        by_id = {team.id: team for team in teams}
        text = (
            t(lang, "tournament.round_paired", name=tournament.name, round=1)
            + "\n"
            + pairing_lines(lang, matches, by_id)
        )
        if left:
            names = {s.user_id: s.display_name for s in await self.bot.db.tournaments.signups(tournament.id)}
            text += "\n" + t(
                lang, "tournament.left_out", names=", ".join(names.get(user, "?") for user in left)
            )
        self.signup_changed(tournament.id)
        self.schedule(tournament.id)
        await self._retried(
            f"tournament {tournament.id}: round 1's pairings",
            lambda: self.post(tournament, text, nonce=f"tr{tournament.id}.1"),
        )

    async def _retried(self, what: str, work: Any) -> Any:
        delay = RETRY_FIRST
        attempt = 1
        while True:
            try:
                return await work()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.error("%s failed (attempt %d); retrying in %.1f s", what, attempt, delay, exc_info=True)
                await asyncio.sleep(delay)
                delay, attempt = min(delay * 2, RETRY_MAX), attempt + 1

    async def here(self, interaction: Interaction) -> TournamentRow:
        assert interaction.guild_id is not None
        channel = interaction.channel
        channel_id = interaction.channel_id or 0
        if isinstance(channel, discord.Thread) and channel.parent_id is not None:
            channel_id = channel.parent_id  # a match's thread answers for its tournament
        return await self.tournaments.here(interaction.guild_id, channel_id)

    async def channel_language(self, tournament: TournamentRow) -> str:
        settings = await self.bot.db.settings.get_guild_settings(tournament.guild_id)
        guild = self.bot.get_guild(tournament.guild_id)
        return settings.language or language_for_locale(guild.preferred_locale if guild else None)

    async def _channel(self, channel_id: int) -> Any:
        return self.bot.get_channel(channel_id) or await self.bot.fetch_channel(channel_id)

    async def post(
        self, tournament: TournamentRow, text: str, *, nonce: str | None = None, pictures: list[Picture] | None = None
    ) -> None:
        channel = await self._channel(tournament.channel_id)
        messages = picture_messages(pictures or [])  # the first goes with the text, the others after it
        pieces: list[str | None] = [*chunks(text), *([None] * (len(messages) - 1))]
        for number, piece in enumerate(pieces):
            options: dict[str, Any] = {"allowed_mentions": NO_MENTIONS}
            if nonce is not None:  # a post repeated after a lost answer shows once
                options["nonce"] = f"{nonce}.{number}"
            if messages and (number == 0 or piece is None):
                options["files"] = [picture.file() for picture in messages.pop(0)]
            await channel.send(piece, **options)

    async def open_place(self, tournament: TournamentRow, match: MatchRow, language: str) -> Place:
        """A public thread in the tournament's channel for the match, its four players mentioned in it."""
        channel = await self._channel(tournament.channel_id)
        teams = {team.id: team for team in await self.bot.db.tournaments.teams(tournament.id)}
        assert match.second_team is not None
        first, second = teams[match.first_team], teams[match.second_team]
        lang = await self.channel_language(tournament)
        name = f"{tournament.name} · {match.round} · {first.name} – {second.name}"[: threads.NAME_LIMIT]
        thread = await channel.create_thread(
            name=name,
            type=discord.ChannelType.public_thread,
            auto_archive_duration=threads.ARCHIVE_AFTER_MINUTES,
            reason="a Schnapsen tournament match",
        )
        people = " ".join(f"<@{user}>" for user in (*first.members, *second.members))
        text = t(lang, "tournament.match_thread", name=tournament.name, round=match.round, first=first.name,
                 second=second.name, people=people)  # fmt: skip
        # This message pings its four players, on purpose (like the idle warning): their match is ready.
        players = [discord.Object(user) for user in (*first.members, *second.members) if user > 0]
        await thread.send(
            text, allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=players)
        )
        return Place(thread.id, channel.id, lang)

    async def announce(self, tournament_id: int, report: Advanced) -> None:
        """After a round: its standings (as images where they can be drawn and attached, else as text); then
        the next round's pairings, or the winners."""
        tournament = await self.bot.db.tournaments.get_tournament(tournament_id)
        lang = await self.channel_language(tournament)
        table = await self.tournaments.standings(tournament_id)
        title = t(lang, "tournament.standings_title", name=tournament.name, round=report.ended_round)
        pictures: list[Picture] = []
        if may_attach(await self._channel(tournament.channel_id)):
            pictures = await pictures_for(self.bot.db, lang, tournament, table, report.ended_round)
        text = title if pictures else standings_text(lang, tournament, table, title)
        if report.finished and report.winner is not None:
            text += "\n" + t(lang, "tournament.finished", name=tournament.name, team=report.winner.name)
        elif report.matches:
            teams = {team.id: team for team in await self.bot.db.tournaments.teams(tournament_id)}
            text += "\n" + t(
                lang, "tournament.round_paired", name=tournament.name, round=report.ended_round + 1
            )
            text += "\n" + pairing_lines(lang, report.matches, teams)
        # A post repeated after a lost answer shows once; its nonce names what it announces. A round that
        # could not be paired is announced again when the organiser lets it go on: the pause gets its own,
        # told apart by the pause's time (a round's pairing keeps "tr<id>.<round>" for the restart case).
        nonce = f"tr{tournament_id}.{report.ended_round + 1}"
        if not (report.matches or report.finished):
            nonce = f"tp{tournament_id}.{tournament.updated_at:x}"
        try:
            await self.post(tournament, text, nonce=nonce, pictures=pictures)
        except discord.Forbidden:
            if not pictures:
                raise
            # Attach Files taken away since the check: the standings as text rather than retried for ever.
            log.warning("tournament %s: its images were refused; the standings go out as text", tournament_id)
            text = standings_text(lang, tournament, table, title) + text.removeprefix(title)
            await self.post(tournament, text, nonce=nonce)


async def setup(bot: SchnapsenBot) -> None:
    """The extension's entry, loaded after ``bot.schnapsen.cog`` (its ``/schnapsen`` group gets ours)."""
    await bot.add_cog(TournamentRunner(bot))
