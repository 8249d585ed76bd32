"""The organiser's controls of a server tournament on Discord (issue 30): the sign-up message that lists who
signed up, the start at a stored time, the pause and resume, the AI stand-in switch and the organisers' role.

``organiser_commands`` makes the commands ``/schnapsen tournament pause|resume|options|organiser-role`` that
``TournamentCommands`` adds to its group; ``RunnerControls`` is the runner's part: its timers (the scheduled
start, the no-show deadlines and the gap between two edits of a sign-up message) run on the runner's
``clock`` and are woken by ``clock_moved`` to read the stored state again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _

import engine
from bot.db.tournaments import SignupRow, TeamRow, TournamentRow
from bot.game.errors import UserError
from bot.game.tournament_controls import signup_roster
from bot.game.tournaments import TournamentService
from bot.i18n import t

from .replies import answer, language_of, thinking

if TYPE_CHECKING:
    from bot.client import SchnapsenBot

    from .tournaments import TournamentRunner

    Interaction = discord.Interaction[SchnapsenBot]

log = logging.getLogger(__name__)

MESSAGE_LIMIT = 2000  # Discord's limit for a message's text
# Seconds between two edits of a sign-up message: a burst of joins is one edit (the bot's token has a budget).
SIGNUP_EDIT_GAP = 5.0


def manages_server(interaction: Interaction) -> bool:
    return bool(interaction.permissions and interaction.permissions.manage_guild)


def format_text(lang: str, tournament: TournamentRow) -> str:
    best_of = (
        t(lang, "tournament.best_of_three")
        if tournament.bummerl_per_match == 3
        else t(lang, "tournament.one_bummerl")
    )
    target = engine.ruleset_from_json(json.loads(tournament.rules_json)).target
    if tournament.format == "swiss":
        kind = t(lang, "tournament.swiss", count=tournament.swiss_rounds)
    else:
        kind = t(lang, "tournament.elimination")
    return t(lang, "tournament.format", kind=kind, best_of=best_of, target=target)


def when_text(lang: str, starts_at: int) -> str:
    """A start time as Discord shows it to each reader, in their own time zone, and how far off it is."""
    return t(lang, "tournament.starts_at", when=f"<t:{starts_at}:F>", relative=f"<t:{starts_at}:R>")


def signup_text(
    lang: str, tournament: TournamentRow, signups: list[SignupRow], teams: list[TeamRow] | None = None
) -> str:
    """The sign-up message: the tournament, how it starts, whether the AI may stand in, and who signed up
    (teams, then people waiting for a partner); once started, the teams formed. Kept under Discord's limit."""
    organiser = f"<@{tournament.organiser_id}>"
    lines: list[str]
    if tournament.status == "signup":
        lines = [t(lang, "tournament.signup", name=tournament.name, format=format_text(lang, tournament),
                   organiser=organiser)]  # fmt: skip
        if tournament.starts_at is not None:
            lines.append(when_text(lang, tournament.starts_at))
    else:
        lines = [
            t(lang, "tournament.signup_closed", name=tournament.name, format=format_text(lang, tournament))
        ]
    lines.append(t(lang, "tournament.stand_in_yes" if tournament.ai_stand_in else "tournament.stand_in_no"))
    entries: list[str]
    if teams is not None:
        entries = [f"#{team.seed} {team.name}" for team in teams if not team.removed]
    else:
        paired, waiting = signup_roster(signups)
        entries = [f"{a.display_name} & {b.display_name}" for a, b in paired] + [
            t(lang, "tournament.waiting_partner", name=single.display_name) for single in waiting
        ]
    lines.append(t(lang, "tournament.signed_up" if teams is None else "tournament.teams_formed"))
    body = "\n".join(lines)
    for number, entry in enumerate(entries):
        line = f"\n• {entry}"
        more = "\n" + t(lang, "tournament.and_more", count=len(entries) - number)
        if len(body) + len(line) + len(more) > MESSAGE_LIMIT:
            return body + more
        body += line
    return body


def organiser_commands(runner: TournamentRunner) -> list[app_commands.Command[Any, ..., None]]:
    """The organiser's commands besides results, made for one runner's group (a command has one parent)."""

    @app_commands.command(
        name="pause",
        description=_(
            "Pause: no new round or match table; running tables finish their Bummerl (the organiser)",
            key="command.tournament.pause",
        ),
    )
    @app_commands.describe(reason=_("Why (kept in the tournament's log)", key="command.option.reason"))
    async def pause(interaction: Interaction, reason: app_commands.Range[str, 1, 200] | None = None) -> None:
        tournament = await runner.group.organised(interaction)
        async with runner.lock(tournament.id):  # a drive pass under way ends first: nothing opens after
            await runner.tournaments.pause(tournament, actor_id=interaction.user.id, reason=reason or "")
        runner.clock_moved()  # the no-show timers look again: they stand still while paused
        lang = await runner.channel_language(tournament)
        await runner.post(tournament, t(lang, "tournament.paused_by_organiser", name=tournament.name))
        await answer(interaction, t(language_of(interaction), "reply.tournament_done"))

    @app_commands.command(
        name="resume",
        description=_("Go on after a pause (the organiser)", key="command.tournament.resume"),
    )
    @app_commands.describe(reason=_("Why (kept in the tournament's log)", key="command.option.reason"))
    async def resume(interaction: Interaction, reason: app_commands.Range[str, 1, 200] | None = None) -> None:
        tournament = await runner.group.organised(interaction)
        await runner.tournaments.resume(tournament, actor_id=interaction.user.id, reason=reason or "")
        lang = await runner.channel_language(tournament)
        await runner.post(tournament, t(lang, "tournament.resumed", name=tournament.name))
        await answer(interaction, t(language_of(interaction), "reply.tournament_done"))
        runner.schedule(tournament.id)

    @app_commands.command(
        name="options",
        description=_(
            "Before the start: when it starts itself, and whether the AI may stand in (the organiser)",
            key="command.tournament.options",
        ),
    )
    @app_commands.describe(
        start=_(
            "When it starts itself: YYYY-MM-DD HH:MM or HH:MM (UTC), minutes or hours from now (90, 2h), or none",
            key="command.option.start_or_none",
        ),
        ai_stand_in=_(
            "May the AI stand in for one absent partner (else the team forfeits)",
            key="command.option.ai_stand_in",
        ),
    )
    async def options(
        interaction: Interaction,
        start: app_commands.Range[str, 1, 40] | None = None,
        ai_stand_in: bool | None = None,
    ) -> None:
        tournament = await runner.group.organised(interaction)
        changed = await runner.tournaments.set_options(
            tournament, actor_id=interaction.user.id, ai_stand_in=ai_stand_in, start=start
        )
        lang = language_of(interaction)
        reply = t(lang, "tournament.stand_in_yes" if changed.ai_stand_in else "tournament.stand_in_no")
        if changed.starts_at is not None:
            reply += " " + when_text(lang, changed.starts_at)
            runner.watch_start(tournament.id)
        runner.signup_changed(tournament.id)
        await answer(interaction, reply)

    @app_commands.command(
        name="organiser-role",
        description=_(
            "Name the organisers' role, whose members may run tournaments (Manage Server)",
            key="command.tournament.organiser_role",
        ),
    )
    @app_commands.describe(role=_("The role (left out: Manage Server only)", key="command.option.role"))
    async def organiser_role(interaction: Interaction, role: discord.Role | None = None) -> None:
        if not manages_server(interaction):
            raise UserError("tournament.error.manage_server_only")
        await thinking(interaction)
        assert interaction.guild_id is not None
        await interaction.client.db.tournament_controls.set_organiser_role(
            interaction.guild_id, None if role is None else role.id
        )
        lang = language_of(interaction)
        if role is None:
            await answer(interaction, t(lang, "reply.organiser_role_cleared"))
        else:
            await answer(interaction, t(lang, "reply.organiser_role_set", role=role.mention))

    return [pause, resume, options, organiser_role]


class RunnerControls:
    """The organiser's controls in ``TournamentRunner``, which holds the state named here."""

    bot: SchnapsenBot
    tournaments: TournamentService
    clock: Callable[[], float]
    signup_edit_gap: float
    _clock_moved: asyncio.Event
    _watched: set[int]
    _start_timers: set[int]
    _signup_dirty: set[int]
    _signup_editing: set[int]

    if TYPE_CHECKING:

        def _start(self, work: Any) -> None: ...
        def lock(self, tournament_id: int) -> asyncio.Lock: ...
        async def _retried(self, what: str, work: Any) -> Any: ...
        async def begin(self, tournament: TournamentRow) -> None: ...
        async def drive(self, tournament_id: int) -> None: ...
        async def post(self, tournament: TournamentRow, text: str, *, nonce: str | None = None) -> None: ...
        async def channel_language(self, tournament: TournamentRow) -> str: ...
        async def _channel(self, channel_id: int) -> Any: ...

    async def may_organise(self, interaction: Interaction) -> bool:
        """Manage Server, or the role the server named for tournament organisers."""
        if manages_server(interaction):
            return True
        assert interaction.guild_id is not None
        role = await self.bot.db.tournament_controls.organiser_role(interaction.guild_id)
        roles = getattr(interaction.user, "roles", ())
        return role is not None and any(held.id == role for held in roles)

    # --- timers on the runner's clock ----------------------------------------------------------------

    def clock_moved(self) -> None:
        """Wake every timer to look at the clock and the stored state again (a stored time changed, a
        tournament paused, or a test moved the clock on)."""
        moved, self._clock_moved = self._clock_moved, asyncio.Event()
        moved.set()

    async def _sleep_until(self, when: float) -> None:
        """Until `when` on the runner's clock, or until `clock_moved` (the caller looks again either way)."""
        left = when - self.clock()
        if left > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._clock_moved.wait(), left)

    async def _wait(self, seconds: float) -> None:
        """`seconds` on the runner's clock."""
        until = self.clock() + seconds
        while self.clock() < until:
            await self._sleep_until(until)

    # --- the scheduled start ------------------------------------------------------------------------

    def watch_start(self, tournament_id: int) -> None:
        """Start the tournament at its stored start time (one timer per tournament in this process; a timer
        already running reads the new time)."""
        if tournament_id in self._start_timers:
            self.clock_moved()
            return
        self._start_timers.add(tournament_id)
        self._start(self._start_when_due(tournament_id))

    async def _start_when_due(self, tournament_id: int) -> None:
        try:
            while True:
                tournament = await self._retried(
                    f"tournament {tournament_id}: read", lambda: self.tournaments.get(tournament_id)
                )
                if tournament is None or tournament.status != "signup" or tournament.starts_at is None:
                    return
                if self.clock() < tournament.starts_at:
                    await self._sleep_until(tournament.starts_at)
                    continue
                async with self.lock(tournament_id):
                    await self._retried(
                        f"tournament {tournament_id}: scheduled start",
                        lambda: self._begin_on_time(tournament_id),
                    )
                return
        finally:
            self._start_timers.discard(tournament_id)

    async def _begin_on_time(self, tournament_id: int) -> None:
        """The start time came: close the sign-up and pair round 1; with too few teams, say so and leave the
        start to the organiser (the stored start time is cleared, logged)."""
        await self.bot.wait_until_ready()
        tournament = await self.bot.db.tournaments.get_tournament(tournament_id)
        if (
            tournament.status != "signup"
            or tournament.starts_at is None
            or self.clock() < tournament.starts_at
        ):
            return
        try:
            await self.begin(tournament)
        except UserError as err:
            await self.bot.db.tournament_controls.set_options(
                tournament_id, ai_stand_in=tournament.ai_stand_in, starts_at=None, actor_id=0,
                now=self.tournaments.now(),
            )  # fmt: skip
            lang = await self.channel_language(tournament)
            await self.post(tournament, t(lang, "tournament.not_started", name=tournament.name,
                                          why=t(lang, err.key, **err.values)))  # fmt: skip
            self.signup_changed(tournament_id)

    # --- the sign-up message -------------------------------------------------------------------------

    def signup_changed(self, tournament_id: int) -> None:
        """Someone joined or withdrew, or the sign-up closed: the sign-up message is edited, at once when no
        edit was made in the last `signup_edit_gap` seconds, else once at the end of that gap."""
        self._signup_dirty.add(tournament_id)
        if tournament_id not in self._signup_editing:
            self._signup_editing.add(tournament_id)
            self._start(self._edit_signup_message(tournament_id))

    async def _edit_signup_message(self, tournament_id: int) -> None:
        try:
            while tournament_id in self._signup_dirty:
                self._signup_dirty.discard(tournament_id)
                await self._retried(
                    f"tournament {tournament_id}: sign-up message", lambda: self._show_signups(tournament_id)
                )
                await self._wait(self.signup_edit_gap)
        finally:
            self._signup_editing.discard(tournament_id)

    async def _show_signups(self, tournament_id: int) -> None:
        db = self.bot.db.tournaments
        tournament = await db.get_tournament(tournament_id)
        if tournament.signup_message_id is None:
            return
        lang = await self.channel_language(tournament)
        signups = await db.signups(tournament_id)
        teams = None if tournament.status == "signup" else await db.teams(tournament_id)
        channel = await self._channel(tournament.channel_id)
        try:
            await channel.get_partial_message(tournament.signup_message_id).edit(
                content=signup_text(lang, tournament, signups, teams),
                allowed_mentions=discord.AllowedMentions.none(),
            )
        except discord.NotFound:  # deleted by someone: nothing to keep up to date
            log.warning("tournament %s: its sign-up message is gone", tournament_id)

    async def _watch(self, tournament: TournamentRow) -> None:
        """A timer per match being played, to its no-show deadline (once per match in this process)."""
        for match in await self.bot.db.tournaments.matches(tournament.id):
            deadline = self.tournaments.no_show_deadline(self.bot.service, tournament, match)
            if deadline is not None and match.id not in self._watched:
                self._watched.add(match.id)
                self._start(self._no_show_at(tournament.id, match.id))

    async def _deadline_of(self, tournament_id: int, match_id: int) -> float | None:
        tournament = await self.bot.db.tournaments.get_tournament(tournament_id)
        match = next(
            (m for m in await self.bot.db.tournaments.matches(tournament_id) if m.id == match_id), None
        )
        return (
            None if match is None else self.tournaments.no_show_deadline(self.bot.service, tournament, match)
        )

    async def _no_show_at(self, tournament_id: int, match_id: int) -> None:
        """At the deadline a team the AI plays for (entirely, or partly without the AI stand-in) loses by
        forfeit; the channel is told and the tournament driven on. The deadline is read again on every wake:
        a pause stops the timer (the resume starts a new one, with the paused time added)."""
        try:
            while True:
                deadline = await self._retried(
                    f"tournament {tournament_id}: no-show deadline of match {match_id}",
                    lambda: self._deadline_of(tournament_id, match_id),
                )
                if deadline is None:  # decided, closed, or paused
                    return
                if self.clock() >= deadline:
                    break
                await self._sleep_until(deadline)
            async with self.lock(tournament_id):
                absent = await self._retried(
                    f"tournament {tournament_id}: no-show check of match {match_id}",
                    lambda: self.tournaments.forfeit_no_shows(self.bot.service, tournament_id, match_id),
                )
        finally:
            self._watched.discard(match_id)
        if not absent:
            return
        tournament = await self.bot.db.tournaments.get_tournament(tournament_id)
        teams = {team.id: team.name for team in await self.bot.db.tournaments.teams(tournament_id)}
        lang = await self.channel_language(tournament)
        names = ", ".join(teams[team] for team in absent)
        await self._retried(
            f"tournament {tournament_id}: no-show notice",
            lambda: self.post(
                tournament, t(lang, "tournament.no_show", name=tournament.name, number=match_id, teams=names)
            ),
        )
        await self.drive(tournament_id)
