"""Running a server tournament, Discord-free: creating it, signing up, starting it (teams formed, the first
round paired), standings, the organiser's results by hand, and moving on to the next round once every match
of the round is decided. The rules of pairing and ranking are `bot.tournament`'s (pure); the rows are
`db.tournaments`'. A match is played at a card table the shell opens (bot/schnapsen/tournaments.py); its
Bummerl are counted by the subscriber `subscribers/tournament.py`.

Each step is one transaction and checks the stored state first, so a step repeated after a restart (or by
two callers at once) does its work once: a round is ended, and the next one paired, exactly once.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import engine
from bot.db import Database
from bot.db.tournaments import (
    MatchRow,
    SignupClosed,
    TeamRow,
    TournamentFormat,
    TournamentNotFound,
    TournamentRow,
)
from bot.tournament import (
    MatchResult,
    PairingImpossible,
    Signup,
    Standing,
    form_teams,
    next_round,
    standings,
    winner_of,
)

from . import rulesettings
from .core import TableCore
from .errors import UserError
from .table import TableSnapshot
from .tournament_controls import parse_start

log = logging.getLogger(__name__)

FIRST_TEAM_SIDE = 0  # the engine's team of the first team of a pairing: it sits North and South
SWISS_ROUNDS = (1, 15)
NAME_LIMIT = 80
def bummerl_needed(best_of: int) -> int:
    """Bummerl a team must win to win a match of `best_of`.

    >>> bummerl_needed(1), bummerl_needed(3)
    (1, 2)
    """
    return best_of // 2 + 1


def results_by_round(matches: Sequence[MatchRow]) -> list[list[MatchResult]]:
    """The decided matches as the pure core's results, round by round (undecided ones left out)."""
    rounds: dict[int, list[MatchResult]] = {}
    for match in matches:
        rounds.setdefault(match.round, [])
        if match.done:
            rounds[match.round].append(
                MatchResult(
                    match.first_team,
                    match.second_team,
                    match.winner_team,
                    match.first_game_points,
                    match.second_game_points,
                    forfeit=match.decided_by == "forfeit",
                )
            )
    return [rounds[number] for number in sorted(rounds)]


def absent_teams(table: TableSnapshot, *, stand_in: bool = True) -> tuple[bool, bool]:
    """Whether each team of a match's table (the first North and South, the second East and West) is absent:
    both its seats played by the AI (taken over while idle, or never taken by their person); without the
    AI's `stand_in` for one absent partner, either of its seats."""

    def played_by_ai(seat: int) -> bool:
        occupant = table.seats[seat]
        return occupant is None or occupant.user_id is None or occupant.ai_takeover

    together = all if stand_in else any
    return together((played_by_ai(0), played_by_ai(2))), together((played_by_ai(1), played_by_ai(3)))


def checked_reason(reason: str) -> str:
    """The organiser's reason for the log: required, on one line, at most 200 characters."""
    reason = " ".join(reason.split())[:200]
    if not reason:
        raise UserError("tournament.error.reason_needed")
    return reason


@dataclass(frozen=True, slots=True)
class Advanced:
    """What `advance` did: `ended_round` the round it ended (0: none, the round still plays), then either the
    next round's matches or, at the end, the winning team."""

    ended_round: int = 0
    matches: tuple[MatchRow, ...] = ()
    finished: bool = False
    winner: TeamRow | None = None


@dataclass(frozen=True, slots=True)
class Place:
    """Where a match's table opens: its channel (a thread the shell made for it, in `thread_parent_id`)."""

    channel_id: int
    thread_parent_id: int | None
    language: str


# The shell's part of opening a match: make its place (a thread) and give it back.
OpenPlace = Callable[[TournamentRow, MatchRow, str], Awaitable[Place]]


class TournamentService:
    def __init__(self, db: Database, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.clock = clock

    def now(self) -> int:
        return int(self.clock())

    # --- before the start ----------------------------------------------------------------------------

    async def create(
        self,
        *,
        guild_id: int,
        channel_id: int,
        organiser_id: int,
        name: str,
        format: TournamentFormat,
        swiss_rounds: int,
        best_of: int,
        preset: str,
        rule_changes: dict[str, object],
        turn_seconds: int,
        no_show_seconds: int = 300,
        ai_stand_in: bool = True,
        starts_at: int | None = None,
    ) -> TournamentRow:
        """A tournament taking sign-ups in the channel. Every value is checked (they come from a command).
        `starts_at` (parsed by `parse_start`): when it closes the sign-up and starts itself."""
        name = " ".join(name.split())[:NAME_LIMIT]
        if not name:
            raise UserError("tournament.error.bad_name")
        if format not in ("swiss", "elimination"):
            raise UserError("error.bad_choice")
        low, high = SWISS_ROUNDS
        if format == "swiss" and not low <= swiss_rounds <= high:
            raise UserError("tournament.error.bad_rounds", low=low, high=high)
        if best_of not in (1, 3):
            raise UserError("error.bad_choice")
        if not 0 <= no_show_seconds <= 3600:
            raise UserError("error.bad_choice")
        if any(t.channel_id == channel_id for t in await self.db.tournaments.open_tournaments(guild_id)):
            raise UserError("tournament.error.channel_busy")
        rules = rulesettings.ruleset_of(preset, rulesettings.checked_changes(rule_changes))
        return await self.db.tournaments.create_tournament(
            guild_id=guild_id,
            channel_id=channel_id,
            organiser_id=organiser_id,
            name=name,
            format=format,
            swiss_rounds=swiss_rounds if format == "swiss" else 0,
            bummerl_per_match=best_of,
            rules_json=json.dumps(engine.ruleset_to_json(rules)),
            turn_seconds=turn_seconds,
            now=self.now(),
            no_show_seconds=no_show_seconds,
            ai_stand_in=ai_stand_in,
            starts_at=starts_at,
        )

    async def set_options(
        self, tournament: TournamentRow, *, actor_id: int, ai_stand_in: bool | None, start: str | None
    ) -> TournamentRow:
        """The organiser changes, before the start, whether the AI may stand in for an absent partner and
        when the tournament starts itself (`start` "none": only by hand). What is not given stays."""
        if tournament.status != "signup":
            raise UserError("tournament.error.started")
        starts_at = tournament.starts_at
        if start is not None:
            starts_at = (
                None if start.strip().lower() in ("none", "-", "0") else parse_start(start, self.now())
            )
        stand_in = tournament.ai_stand_in if ai_stand_in is None else ai_stand_in
        changed = await self.db.tournament_controls.set_options(
            tournament.id, ai_stand_in=stand_in, starts_at=starts_at, actor_id=actor_id, now=self.now()
        )
        if not changed:
            raise UserError("tournament.error.started")
        return await self.db.tournaments.get_tournament(tournament.id)

    async def pause(self, tournament: TournamentRow, *, actor_id: int, reason: str) -> None:
        """The organiser pauses the tournament (logged): no new round is paired and no match's table opens;
        running tables finish their Bummerl; the no-show clocks stand still until `resume`."""
        reason = " ".join(reason.split())[:200] or "-"
        if not await self.db.tournament_controls.pause(
            tournament.id, actor_id=actor_id, reason=reason, now=self.now()
        ):
            raise UserError("tournament.error.not_running")

    async def resume(self, tournament: TournamentRow, *, actor_id: int, reason: str) -> None:
        """The organiser resumes a paused tournament (logged); no-show clocks go on with their time left."""
        reason = " ".join(reason.split())[:200] or "-"
        if not await self.db.tournament_controls.resume(
            tournament.id, actor_id=actor_id, reason=reason, now=self.now()
        ):
            raise UserError("tournament.error.not_paused")

    async def here(self, guild_id: int, channel_id: int) -> TournamentRow:
        """The channel's tournament (an open one first), or the user's error that there is none."""
        tournament = await self.db.tournaments.latest_tournament(guild_id, channel_id)
        if tournament is None:
            raise UserError("tournament.error.none_here")
        return tournament

    async def sign_up(
        self, tournament: TournamentRow, user_id: int, name: str, partner_id: int | None
    ) -> None:
        if partner_id == user_id:
            partner_id = None
        try:
            await self.db.tournaments.sign_up(tournament.id, user_id, name, partner_id, self.now())
        except SignupClosed:
            raise UserError("tournament.error.signup_closed") from None

    async def withdraw(self, tournament: TournamentRow, user_id: int) -> None:
        """Take a person's sign-up back before the start (a partner they named stays signed up, alone)."""
        if tournament.status != "signup":
            raise UserError("tournament.error.signup_closed")
        if not await self.db.tournaments.withdraw(tournament.id, user_id):
            raise UserError("tournament.error.not_signed_up")

    # --- running it ----------------------------------------------------------------------------------

    @staticmethod
    def check_organiser(tournament: TournamentRow, user_id: int, manages_server: bool) -> None:
        if user_id != tournament.organiser_id and not manages_server:
            raise UserError("tournament.error.organiser_only")

    async def begin(self, tournament: TournamentRow) -> tuple[list[TeamRow], list[int], tuple[MatchRow, ...]]:
        """Close the sign-up: teams formed from it (seeded in sign-up order), the first round paired. Returns
        the teams, the people left without a partner and the first round's matches."""
        db = self.db.tournaments
        async with self.db.transaction():
            current = await db.get_tournament(tournament.id)
            if current.status != "signup":
                raise UserError("tournament.error.started")
            signups = await db.signups(tournament.id)
            names = {s.user_id: s.display_name for s in signups}
            pairs, left = form_teams([Signup(s.user_id, s.partner_id) for s in signups])
            if len(pairs) < 2:
                raise UserError("tournament.error.too_few_teams")
            teams = await db.add_teams(
                tournament.id,
                [(a, b, f"{names.get(a, str(a))} & {names.get(b, str(b))}") for a, b in pairs],
            )
            await db.set_status(tournament.id, "running", self.now())
            first = next_round(current.format, current.swiss_rounds, [t.id for t in teams], [])
            assert first is not None
            matches = await db.start_round(tournament.id, 1, [(p.first, p.second) for p in first], self.now())
        return teams, left, tuple(matches)

    async def advance(self, tournament_id: int) -> Advanced:
        """When every match of the current round is decided: end it and pair the next, or finish the
        tournament. Does nothing (returns `Advanced()`) while a match still plays or when it is not running."""
        db = self.db.tournaments
        async with self.db.transaction():
            tournament = await db.get_tournament(tournament_id)
            if tournament.status != "running":
                return Advanced()
            matches = await db.matches(tournament_id)
            rounds = await db.rounds(tournament_id)
            if not rounds or not all(m.done for m in matches):
                return Advanced()
            current = rounds[-1][0]
            # An ended round with no next one: pairing it failed (the tournament paused itself) and the
            # organiser has since let it go on; it is paired again now.
            if rounds[-1][2] is None:
                await db.end_round(tournament_id, current, self.now())
            teams = await db.teams(tournament_id)
            seeds = [team.id for team in teams]
            played = results_by_round(matches)
            active = {team.id for team in teams if not team.removed}
            try:
                pairings = next_round(
                    tournament.format,
                    tournament.swiss_rounds,
                    seeds,
                    played,
                    active,
                    await db.forbidden(tournament_id),
                )
            except (PairingImpossible, ValueError) as err:
                # No Swiss pairing keeps the hard rules, or a bracket match has no winner (both forfeited):
                # the organiser must decide. Nothing is paired meanwhile.
                await db.set_status(tournament_id, "paused", self.now())
                await db.add_log(
                    tournament_id, actor_id=0, action="status", reason=f"paused: {err}", now=self.now()
                )
                return Advanced(ended_round=current)
            if pairings is None:
                winner = winner_of(tournament.format, seeds, played)
                await self.db.tournament_controls.finish(tournament_id, winner, self.now())
                return Advanced(
                    ended_round=current,
                    finished=True,
                    winner=next((t for t in teams if t.id == winner), None),
                )
            new = await db.start_round(
                tournament_id, current + 1, [(p.first, p.second) for p in pairings], self.now()
            )
        return Advanced(ended_round=current, matches=tuple(new))

    async def standings(self, tournament_id: int) -> list[tuple[Standing, TeamRow]]:
        """The standings of the decided matches so far, with each team's row (removed teams not listed)."""
        teams = await self.db.tournaments.teams(tournament_id)
        by_id = {team.id: team for team in teams}
        played = [r for rr in results_by_round(await self.db.tournaments.matches(tournament_id)) for r in rr]
        listed = [team.id for team in teams if not team.removed]
        return [(standing, by_id[standing.team]) for standing in standings(listed, played)]

    async def set_result(
        self,
        tournament: TournamentRow,
        match_id: int,
        winner_seed: int | None,
        *,
        actor_id: int,
        reason: str,
        forfeit: bool,
    ) -> MatchRow:
        """The organiser decides a match by hand (`winner_seed` None: both lose), with a reason for the log.

        A match of an ended Swiss round may be corrected (the standings follow; the rounds paired since stand);
        in an elimination bracket the round after it already pairs its winner, so it is refused."""
        reason = checked_reason(reason)
        matches = await self.db.tournaments.matches(tournament.id)
        match = next((m for m in matches if m.id == match_id), None)
        if match is None or match.second_team is None:
            raise UserError("tournament.error.no_such_match")
        if tournament.format == "elimination" and match.round < max(m.round for m in matches):
            raise UserError("tournament.error.bracket_moved_on")
        teams = {team.seed: team.id for team in await self.db.tournaments.teams(tournament.id)}
        winner = None if winner_seed is None else teams.get(winner_seed)
        if winner_seed is not None and winner not in (match.first_team, match.second_team):
            raise UserError("tournament.error.not_in_match")
        await self.db.tournaments.set_result_by_hand(
            tournament.id, match.id, winner, actor_id=actor_id, reason=reason, now=self.now(), forfeit=forfeit
        )
        updated = next(m for m in await self.db.tournaments.matches(tournament.id) if m.id == match_id)
        return updated

    async def cancel(
        self, tables: TableCore, tournament: TournamentRow, *, actor_id: int, reason: str
    ) -> None:
        """The organiser calls the tournament off: no more rounds; the tables of undecided matches close.
        The results so far stay stored; the reason is kept in the log."""
        reason = checked_reason(reason)
        if tournament.status not in ("signup", "running", "paused"):
            raise UserError("tournament.error.not_running")
        async with self.db.transaction():
            await self.db.tournaments.set_status(tournament.id, "cancelled", self.now())
            await self.db.tournaments.add_log(
                tournament.id,
                actor_id=actor_id,
                action="status",
                reason=f"cancelled: {reason}",
                now=self.now(),
            )
        for match in await self.db.tournaments.matches(tournament.id):
            if match.table_id is not None and tables.snapshot(match.table_id) is not None:
                await tables.close(match.table_id, reason_key="notice.closed_by")

    async def remove_team(
        self, tournament: TournamentRow, seed: int, *, actor_id: int, reason: str
    ) -> TeamRow:
        """The organiser takes a team out: it is paired no more (a match it is playing is the organiser's to
        decide); its results stay and count in its opponents' Buchholz. Logged with the reason."""
        reason = checked_reason(reason)
        if tournament.status not in ("running", "paused"):
            raise UserError("tournament.error.not_running")
        team = await self._team_numbered(tournament, seed)
        await self.db.tournaments.remove_team(
            tournament.id, team.id, actor_id=actor_id, reason=reason, now=self.now()
        )
        return team

    async def forbid(
        self, tournament: TournamentRow, first_seed: int, second_seed: int, *, actor_id: int
    ) -> None:
        """The organiser forbids two teams to meet in any later Swiss round. Logged."""
        if tournament.status not in ("running", "paused") or tournament.format != "swiss":
            raise UserError("tournament.error.not_running")
        first = await self._team_numbered(tournament, first_seed)
        second = await self._team_numbered(tournament, second_seed)
        if first.id == second.id:
            raise UserError("tournament.error.no_such_team")
        await self.db.tournaments.forbid(
            tournament.id, first.id, second.id, actor_id=actor_id, now=self.now()
        )

    async def _team_numbered(self, tournament: TournamentRow, seed: int) -> TeamRow:
        team = next((t for t in await self.db.tournaments.teams(tournament.id) if t.seed == seed), None)
        if team is None:
            raise UserError("tournament.error.no_such_team")
        return team

    def no_show_deadline(self, tables: TableCore, tournament: TournamentRow, match: MatchRow) -> int | None:
        """When the match's teams must have shown up (unix seconds): its table's opening plus the tournament's
        `no_show_seconds`; None when there is nothing to check (no check, decided, no open table)."""
        if tournament.status != "running":  # paused: the clocks stand still
            return None
        if not tournament.no_show_seconds or match.done or match.table_id is None:
            return None
        table = tables.snapshot(match.table_id)
        if table is None:
            return None
        return table.row.created_at + tournament.no_show_seconds + match.paused_seconds

    async def forfeit_no_shows(self, tables: TableCore, tournament_id: int, match_id: int) -> tuple[int, ...]:
        """At the no-show deadline: a team both of whose players the AI plays loses the match by forfeit
        (both such teams: both lose), logged like a result set by hand (actor 0); so does a team with one
        absent partner when the organiser does not let the AI stand in. The absent teams' ids."""
        tournament = await self.db.tournaments.get_tournament(tournament_id)
        match = next((m for m in await self.db.tournaments.matches(tournament_id) if m.id == match_id), None)
        if tournament.status != "running" or match is None or match.done or match.second_team is None:
            return ()
        table = tables.snapshot(match.table_id) if match.table_id is not None else None
        if table is None or table.status != "playing":
            return ()
        first_gone, second_gone = absent_teams(table, stand_in=tournament.ai_stand_in)
        absent = tuple(
            team for team, gone in ((match.first_team, first_gone), (match.second_team, second_gone)) if gone
        )
        if not absent:
            return ()
        winner = None if len(absent) == 2 else (match.second_team if first_gone else match.first_team)
        reason = f"no-show: played by the AI {tournament.no_show_seconds} s after the table opened"
        if not tournament.ai_stand_in:
            reason += " (no AI stand-in)"
        return absent if await self._forfeit(tournament_id, match.id, winner, reason) else ()

    async def _forfeit(self, tournament_id: int, match_id: int, winner: int | None, reason: str) -> bool:
        """The bot's own forfeit (actor 0, logged), never over a result the organiser set meanwhile."""
        async with self.db.transaction():
            if not await self.db.tournaments.decide_match(match_id, winner, "forfeit", self.now(), game_points=(0, 0)):
                return False
            await self.db.tournaments.add_log(
                tournament_id, actor_id=0, action="result", reason=reason, now=self.now(), match_id=match_id
            )
        return True

    async def get(self, tournament_id: int) -> TournamentRow | None:
        try:
            return await self.db.tournaments.get_tournament(tournament_id)
        except TournamentNotFound:
            return None

    # --- the matches' tables -------------------------------------------------------------------------

    async def drive(self, tables: TableCore, tournament_id: int, open_place: OpenPlace) -> list[Advanced]:
        """Bring a running tournament up to date with its stored state, whatever happened before (a restart
        included): every match of the round gets its table, seated and started; a best-of-three match plays
        its next Bummerl; a decided match's table is closed; a round whose matches are all decided is ended
        and the next one paired, or the tournament finished. Returns each round ended (for the standings
        the shell posts). The caller runs one drive per tournament at a time."""
        reports: list[Advanced] = []
        while True:
            tournament = await self.db.tournaments.get_tournament(tournament_id)
            if tournament.status != "running":
                return reports
            rounds = await self.db.tournaments.rounds(tournament_id)
            # First the tables of decided matches of any round: a match decided just before its round was
            # ended (by hand, while the last pass ran) is closed before the next round seats its players.
            for match in await self.db.tournaments.matches(tournament_id):
                if match.done and match.table_id is not None and tables.snapshot(match.table_id) is not None:
                    await tables.close(match.table_id, reason_key="notice.closed_finished")
            for match in await self.db.tournaments.matches(tournament_id, rounds[-1][0] if rounds else 0):
                try:
                    await self._drive_match(tables, tournament, match, open_place)
                except UserError as err:
                    # A table that cannot be opened (its host sits at another open table): the match waits
                    # for the organiser's result; the others go on.
                    log.warning("tournament %s: match %s cannot go on: %s", tournament_id, match.id, err.key)
            advanced = await self.advance(tournament_id)
            if advanced.ended_round:
                reports.append(advanced)
            if not advanced.matches:
                return reports

    async def _drive_match(
        self, tables: TableCore, tournament: TournamentRow, match: MatchRow, open_place: OpenPlace
    ) -> None:
        table = tables.snapshot(match.table_id) if match.table_id is not None else None
        if match.done or match.second_team is None:  # decided: its table was closed above
            return
        # Read again: the organiser may have decided it while the tables of the round's earlier matches opened.
        if match.table_id is None and await self._decided(match):
            return
        plan = await self.seat_plan(tournament, match)
        if match.table_id is None:
            # The host sits North: a first-team player who is free (not seated at another open table).
            free = [tables.table_of_user(user) is None for user, _ in plan]
            if not free[0] and free[2]:
                plan = [plan[2], plan[1], plan[0], plan[3]]
            elif not free[0]:
                # Neither first-team player can sit down: the team has not shown up (nor, maybe, the other).
                winner = None if not (free[1] or free[3]) else match.second_team
                reason = "no-show: seated at other tables when the match opened"
                await self._forfeit(tournament.id, match.id, winner, reason)
                return
            await self._open_table(tables, tournament, match, plan, open_place)
        elif table is None:
            # Its table was closed before the match was decided (a stop): the organiser decides it by hand.
            return
        elif table.status == "lobby":
            await self._seat_and_start(tables, table, plan)
        elif table.status == "finished":  # a Bummerl ended and the match goes on (best of three)
            await tables.rematch(table.id, plan[0][0])

    async def seat_plan(self, tournament: TournamentRow, match: MatchRow) -> list[tuple[int, str]]:
        """(person, name) per seat: the first team North and South, the second East and West."""
        assert match.second_team is not None
        teams = {team.id: team for team in await self.db.tournaments.teams(tournament.id)}
        names = {s.user_id: s.display_name for s in await self.db.tournaments.signups(tournament.id)}
        first, second = teams[match.first_team], teams[match.second_team]
        order = (first.first_user_id, second.first_user_id, first.second_user_id, second.second_user_id)
        return [(user, names.get(user, str(user))) for user in order]

    async def _open_table(
        self,
        tables: TableCore,
        tournament: TournamentRow,
        match: MatchRow,
        plan: list[tuple[int, str]],
        open_place: OpenPlace,
    ) -> None:
        settings = await self.db.settings.get_guild_settings(tournament.guild_id)
        rules = engine.ruleset_from_json(json.loads(tournament.rules_json))
        place = await open_place(tournament, match, settings.language or "en")
        host, host_name = plan[0]
        table = await tables.open_table(
            guild_id=tournament.guild_id,
            channel_id=place.channel_id,
            thread_parent_id=place.thread_parent_id,
            host_id=host,
            host_name=host_name,
            preset=rules.preset,
            rule_changes=rulesettings.changes_from_preset(rules),
            deck=settings.deck,
            turn_seconds=tournament.turn_seconds,
            language=place.language,
        )
        try:
            waiting = await self.db.tournaments.set_match_table(match.id, table.id)
        except Exception:
            # Not on record, so no later drive would know it: closed now, or its host would stay seated.
            await tables.close(table.id, reason_key="notice.closed_finished")
            raise
        if not waiting:
            # Decided while its thread was made (or another table got it first): nobody plays here. Closed
            # now, so that its players are free for their next match; a failed close is retried by the drive
            # (the table is recorded on the decided match).
            log.info("tournament %s: match %s decided as its table %s opened", tournament.id, match.id, table.id)
            await tables.close(table.id, reason_key="notice.closed_finished")
            return
        await self._seat_and_start(tables, table, plan)

    async def _decided(self, match: MatchRow) -> bool:
        stored = await self.db.tournaments.matches(match.tournament_id, match.round)
        return any(m.id == match.id and m.done for m in stored)

    async def _seat_and_start(
        self, tables: TableCore, table: TableSnapshot, plan: list[tuple[int, str]]
    ) -> None:
        host = table.host_id
        if plan[2][0] == host:  # the first team's second player hosts: its first sat elsewhere at the opening
            plan = [plan[2], plan[1], plan[0], plan[3]]
        for seat, (user, name) in enumerate(plan):
            if table.seats[seat] is not None:
                continue
            try:
                table = await tables.take_seat(table.id, user, name, seat)
            except UserError as err:  # seated at another open table: the AI plays the seat from the start
                log.warning(
                    "table %s: %s could not take seat %s (%s); the AI plays it", table.id, user, seat, err.key
                )
        await tables.start(table.id, host)
