"""Server tournaments: the tournament, its sign-ups and teams, forbidden pairings, rounds, matches (each at a
card table of its own, `table_id`) and the organiser's log. The rules of pairing and ranking are pure, in
`bot.tournament`; these are the rows they are read from and written to. Everything is stored as it happens,
so a restart in the middle of a round finds every match, its table and the results so far."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from .core import Repository, Row
from .errors import StorageError

TournamentFormat = Literal["swiss", "elimination"]
TournamentStatus = Literal["signup", "running", "paused", "finished", "cancelled"]
MatchStatus = Literal["pending", "playing", "done"]
DecidedBy = Literal["play", "bye", "forfeit", "organiser"]
OPEN_TOURNAMENT_STATUSES: tuple[TournamentStatus, ...] = ("signup", "running", "paused")
TOURNAMENT_STATUSES: tuple[TournamentStatus, ...] = get_args(TournamentStatus)


class TournamentNotFound(StorageError):
    def __init__(self, tournament_id: int) -> None:
        super().__init__(f"no tournament with id {tournament_id}")
        self.tournament_id = tournament_id


class InTournament(StorageError):
    """The person plays in a tournament that is running (or paused): forgetting them waits for its end."""

    def __init__(self, tournament_id: int) -> None:
        super().__init__(f"the person plays in tournament {tournament_id}, which is running")
        self.tournament_id = tournament_id


class SignupClosed(StorageError):
    """The tournament takes no sign-ups (it started, ended or was cancelled)."""

    def __init__(self, tournament_id: int, status: str) -> None:
        super().__init__(f"tournament {tournament_id} is {status}: sign-up is closed")
        self.tournament_id = tournament_id
        self.status = status


@dataclass(frozen=True, slots=True)
class TournamentRow:
    id: int
    guild_id: int
    channel_id: int
    organiser_id: int
    name: str
    format: TournamentFormat
    swiss_rounds: int
    bummerl_per_match: int
    rules_json: str
    turn_seconds: int
    ai_stand_in: bool
    no_show_seconds: (
        int  # a team both of whose players the AI plays this long after its table opened forfeits
    )
    starts_at: int | None
    status: TournamentStatus
    signup_message_id: int | None
    created_at: int
    updated_at: int
    paused_at: int | None = None  # when the organiser paused it (None: not paused by the organiser)
    winner_team: int | None = None  # once finished

    @property
    def paused_by_organiser(self) -> bool:
        return self.status == "paused" and self.paused_at is not None


@dataclass(frozen=True, slots=True)
class SignupRow:
    tournament_id: int
    user_id: int
    display_name: str
    partner_id: int | None
    signed_at: int


@dataclass(frozen=True, slots=True)
class TeamRow:
    id: int
    tournament_id: int
    seed: int
    first_user_id: int
    second_user_id: int
    name: str
    removed: bool

    @property
    def members(self) -> tuple[int, int]:
        return (self.first_user_id, self.second_user_id)


@dataclass(frozen=True, slots=True)
class MatchRow:
    id: int
    tournament_id: int
    round: int
    slot: int
    first_team: int
    second_team: int | None  # None: a bye
    table_id: int | None
    status: MatchStatus
    winner_team: int | None  # None when done: both teams lost
    first_game_points: int
    second_game_points: int
    first_bummerl: int
    second_bummerl: int
    decided_by: DecidedBy | None
    ended_at: int | None
    paused_seconds: int = 0  # how long its no-show clock stood still while the tournament was paused

    @property
    def done(self) -> bool:
        return self.status == "done"


@dataclass(frozen=True, slots=True)
class LogRow:
    id: int
    tournament_id: int
    at: int
    actor_id: int
    action: str
    match_id: int | None
    reason: str


_TOURNAMENT_COLUMNS = (
    "id, guild_id, channel_id, organiser_id, name, format, swiss_rounds, bummerl_per_match, rules_json,"
    " turn_seconds, ai_stand_in, no_show_seconds, starts_at, status, signup_message_id, created_at, updated_at,"
    " paused_at, winner_team"
)
_TEAM_COLUMNS = "id, tournament_id, seed, first_user_id, second_user_id, name, removed"
_MATCH_COLUMNS = (
    "id, tournament_id, round, slot, first_team, second_team, table_id, status, winner_team, first_game_points,"
    " second_game_points, first_bummerl, second_bummerl, decided_by, ended_at, paused_seconds"
)


def _tournament(row: Row) -> TournamentRow:
    fields = dict(row)
    fields["ai_stand_in"] = bool(fields["ai_stand_in"])
    return TournamentRow(**fields)


def _team(row: Row) -> TeamRow:
    fields = dict(row)
    fields["removed"] = bool(fields["removed"])
    return TeamRow(**fields)


def _match(row: Row) -> MatchRow:
    return MatchRow(**dict(row))


class TournamentsRepo(Repository):
    """A server's tournaments, from sign-up to the last result."""

    async def create_tournament(
        self,
        *,
        guild_id: int,
        channel_id: int,
        organiser_id: int,
        name: str,
        format: TournamentFormat,
        swiss_rounds: int,
        bummerl_per_match: int,
        rules_json: str,
        turn_seconds: int,
        now: int,
        ai_stand_in: bool = False,
        starts_at: int | None = None,
        no_show_seconds: int = 300,
    ) -> TournamentRow:
        async with self._core.transaction():
            row = await self._core.fetch_one(
                f"""
                INSERT INTO tournaments (guild_id, channel_id, organiser_id, name, format, swiss_rounds,
                                         bummerl_per_match, rules_json, turn_seconds, ai_stand_in, starts_at,
                                         created_at, updated_at, no_show_seconds)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                RETURNING {_TOURNAMENT_COLUMNS}
                """,
                (
                    guild_id,
                    channel_id,
                    organiser_id,
                    name,
                    format,
                    swiss_rounds,
                    bummerl_per_match,
                    rules_json,
                    turn_seconds,
                    int(ai_stand_in),
                    starts_at,
                    now,
                    now,
                    no_show_seconds,
                ),
            )
        assert row is not None
        return _tournament(row)

    async def get_tournament(self, tournament_id: int) -> TournamentRow:
        row = await self._core.fetch_one(
            f"SELECT {_TOURNAMENT_COLUMNS} FROM tournaments WHERE id = ?", (tournament_id,)
        )
        if row is None:
            raise TournamentNotFound(tournament_id)
        return _tournament(row)

    async def open_tournaments(self, guild_id: int | None = None) -> list[TournamentRow]:
        """Tournaments in sign-up, running or paused, oldest first: of one guild, or of all (at start-up)."""
        where = "status IN ('signup', 'running', 'paused')"
        params: tuple[int, ...] = ()
        if guild_id is not None:
            where += " AND guild_id = ?"
            params = (guild_id,)
        rows = await self._core.fetch_all(
            f"SELECT {_TOURNAMENT_COLUMNS} FROM tournaments WHERE {where} ORDER BY id", params
        )
        return [_tournament(row) for row in rows]

    async def latest_tournament(self, guild_id: int, channel_id: int) -> TournamentRow | None:
        """The newest tournament of the channel: an open one before any finished or cancelled one."""
        row = await self._core.fetch_one(
            f"SELECT {_TOURNAMENT_COLUMNS} FROM tournaments WHERE guild_id = ? AND channel_id = ?"
            " ORDER BY CASE WHEN status IN ('signup', 'running', 'paused') THEN 0 ELSE 1 END, id DESC LIMIT 1",
            (guild_id, channel_id),
        )
        return None if row is None else _tournament(row)

    async def set_status(self, tournament_id: int, status: TournamentStatus, now: int) -> None:
        async with self._core.transaction():
            changed = await self._core.execute(
                "UPDATE tournaments SET status = ?, updated_at = ? WHERE id = ?", (status, now, tournament_id)
            )
        if not changed:
            raise TournamentNotFound(tournament_id)

    async def set_signup_message(self, tournament_id: int, message_id: int) -> None:
        async with self._core.transaction():
            await self._core.execute(
                "UPDATE tournaments SET signup_message_id = ? WHERE id = ?", (message_id, tournament_id)
            )

    # --- sign-up and teams -------------------------------------------------------------------------------

    async def sign_up(
        self, tournament_id: int, user_id: int, display_name: str, partner_id: int | None, now: int
    ) -> SignupRow:
        """Sign a person up (again: their partner and name are updated, their place in the order, `seq`, kept).
        Raises `SignupClosed` after the start."""
        async with self._core.transaction():
            status = await self._status(tournament_id)
            if status != "signup":
                raise SignupClosed(tournament_id, status)
            row = await self._core.fetch_one(
                """
                INSERT INTO tournament_signups (tournament_id, user_id, display_name, partner_id, signed_at, seq)
                VALUES (?1, ?2, ?3, ?4, ?5,  -- seq: one past the highest; the write lock keeps it unique
                        (SELECT COALESCE(MAX(seq), 0) + 1 FROM tournament_signups WHERE tournament_id = ?1))
                ON CONFLICT (tournament_id, user_id) DO UPDATE SET
                    display_name = excluded.display_name, partner_id = excluded.partner_id
                RETURNING tournament_id, user_id, display_name, partner_id, signed_at
                """,
                (tournament_id, user_id, display_name, partner_id, now),
            )
        assert row is not None
        return SignupRow(**dict(row))

    async def withdraw(self, tournament_id: int, user_id: int) -> bool:
        """Take a person's sign-up back before the start; False when they had none (or it started)."""
        async with self._core.transaction():
            if await self._status(tournament_id) != "signup":
                return False
            withdrawn = await self._core.execute(
                "DELETE FROM tournament_signups WHERE tournament_id = ? AND user_id = ?",
                (tournament_id, user_id),
            )
            await self._core.execute(  # whoever named them as partner is alone again
                "UPDATE tournament_signups SET partner_id = NULL WHERE tournament_id = ? AND partner_id = ?",
                (tournament_id, user_id),
            )
            return bool(withdrawn)

    async def signups(self, tournament_id: int) -> list[SignupRow]:
        rows = await self._core.fetch_all(
            "SELECT tournament_id, user_id, display_name, partner_id, signed_at FROM tournament_signups"
            " WHERE tournament_id = ? ORDER BY seq, user_id",  # as made: `signed_at` has seconds only
            (tournament_id,),
        )
        return [SignupRow(**dict(row)) for row in rows]

    async def add_teams(self, tournament_id: int, teams: Sequence[tuple[int, int, str]]) -> list[TeamRow]:
        """Store the teams (first member, second member, name), seeded in the order given."""
        async with self._core.transaction():
            for seed, (first, second, name) in enumerate(teams, start=1):
                await self._core.execute(
                    "INSERT INTO tournament_teams (tournament_id, seed, first_user_id, second_user_id, name)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (tournament_id, seed, first, second, name),
                )
        return await self.teams(tournament_id)

    async def teams(self, tournament_id: int) -> list[TeamRow]:
        """Every team, removed ones too, in seed order."""
        rows = await self._core.fetch_all(
            f"SELECT {_TEAM_COLUMNS} FROM tournament_teams WHERE tournament_id = ? ORDER BY seed",
            (tournament_id,),
        )
        return [_team(row) for row in rows]

    async def remove_team(
        self, tournament_id: int, team_id: int, *, actor_id: int, reason: str, now: int
    ) -> None:
        """The organiser removes a team: it is paired no more; its results so far stand. Logged."""
        async with self._core.transaction():
            await self._core.execute(
                "UPDATE tournament_teams SET removed = 1 WHERE id = ? AND tournament_id = ?",
                (team_id, tournament_id),
            )
            await self.add_log(tournament_id, actor_id=actor_id, action="remove", reason=reason, now=now)

    async def forbid(self, tournament_id: int, team_a: int, team_b: int, *, actor_id: int, now: int) -> None:
        """The organiser forbids two teams to be paired (Swiss). Logged."""
        first, second = sorted((team_a, team_b))
        async with self._core.transaction():
            await self._core.execute(
                "INSERT INTO tournament_forbidden (tournament_id, first_team, second_team) VALUES (?, ?, ?)"
                " ON CONFLICT DO NOTHING",
                (tournament_id, first, second),
            )
            await self.add_log(
                tournament_id,
                actor_id=actor_id,
                action="forbid",
                reason=f"teams {first} and {second}",
                now=now,
            )

    async def forbidden(self, tournament_id: int) -> list[tuple[int, int]]:
        rows = await self._core.fetch_all(
            "SELECT first_team, second_team FROM tournament_forbidden WHERE tournament_id = ?"
            " ORDER BY first_team, second_team",
            (tournament_id,),
        )
        return [(row["first_team"], row["second_team"]) for row in rows]

    # --- rounds and matches ------------------------------------------------------------------------------

    async def start_round(
        self, tournament_id: int, round_no: int, pairings: Sequence[tuple[int, int | None]], now: int
    ) -> list[MatchRow]:
        """Store a round and its matches in one transaction. A bye (second team None) is decided at once,
        won by its team."""
        async with self._core.transaction():
            await self._core.execute(
                "INSERT INTO tournament_rounds (tournament_id, round, started_at) VALUES (?, ?, ?)",
                (tournament_id, round_no, now),
            )
            for slot, (first, second) in enumerate(pairings):
                if second is None:
                    await self._core.execute(
                        "INSERT INTO tournament_matches (tournament_id, round, slot, first_team, status, winner_team,"
                        " decided_by, ended_at) VALUES (?, ?, ?, ?, 'done', ?, 'bye', ?)",
                        (tournament_id, round_no, slot, first, first, now),
                    )
                else:
                    await self._core.execute(
                        "INSERT INTO tournament_matches (tournament_id, round, slot, first_team, second_team)"
                        " VALUES (?, ?, ?, ?, ?)",
                        (tournament_id, round_no, slot, first, second),
                    )
            await self._core.execute(
                "UPDATE tournaments SET updated_at = ? WHERE id = ?", (now, tournament_id)
            )
        return await self.matches(tournament_id, round_no)

    async def end_round(self, tournament_id: int, round_no: int, now: int) -> bool:
        """Mark the round ended; False when it already was (another caller got there first)."""
        async with self._core.transaction():
            return bool(
                await self._core.execute(
                    "UPDATE tournament_rounds SET ended_at = ? WHERE tournament_id = ? AND round = ?"
                    " AND ended_at IS NULL",
                    (now, tournament_id, round_no),
                )
            )

    async def rounds(self, tournament_id: int) -> list[tuple[int, int, int | None]]:
        """(round, started_at, ended_at) of every round so far, in order."""
        rows = await self._core.fetch_all(
            "SELECT round, started_at, ended_at FROM tournament_rounds WHERE tournament_id = ? ORDER BY round",
            (tournament_id,),
        )
        return [(row["round"], row["started_at"], row["ended_at"]) for row in rows]

    async def matches(self, tournament_id: int, round_no: int | None = None) -> list[MatchRow]:
        """The matches of one round, or of all rounds, in round and slot order."""
        where, params = "tournament_id = ?", [tournament_id]
        if round_no is not None:
            where += " AND round = ?"
            params.append(round_no)
        rows = await self._core.fetch_all(
            f"SELECT {_MATCH_COLUMNS} FROM tournament_matches WHERE {where} ORDER BY round, slot", params
        )
        return [_match(row) for row in rows]

    async def match_at_table(self, table_id: int) -> MatchRow | None:
        row = await self._core.fetch_one(
            f"SELECT {_MATCH_COLUMNS} FROM tournament_matches WHERE table_id = ?", (table_id,)
        )
        return None if row is None else _match(row)

    async def set_match_table(self, match_id: int, table_id: int) -> bool:
        """The match is played at this card table from now on: True when it was waiting for one. False when it
        was decided meanwhile or has a table; a decided one without records it, for the drive to close."""
        async with self._core.transaction():
            row = await self._core.fetch_one(
                "UPDATE tournament_matches SET table_id = ?, status = CASE status WHEN 'pending' THEN 'playing'"
                " ELSE status END WHERE id = ? AND table_id IS NULL RETURNING status",
                (table_id, match_id),
            )
        return row is not None and row["status"] == "playing"

    async def add_bummerl(
        self, match_id: int, winner_team: int, first_points: int, second_points: int
    ) -> MatchRow:
        """Count a Bummerl of a match still being played: one more won by `winner_team`, and the game points
        each team scored in it."""
        async with self._core.transaction():
            row = await self._core.fetch_one(
                f"""
                UPDATE tournament_matches SET
                    first_bummerl = first_bummerl + CASE WHEN first_team = ?1 THEN 1 ELSE 0 END,
                    second_bummerl = second_bummerl + CASE WHEN second_team = ?1 THEN 1 ELSE 0 END,
                    first_game_points = first_game_points + ?2,
                    second_game_points = second_game_points + ?3
                WHERE id = ?4 AND status <> 'done'
                RETURNING {_MATCH_COLUMNS}
                """,
                (winner_team, first_points, second_points, match_id),
            )
            if row is None:
                row = await self._core.fetch_one(
                    f"SELECT {_MATCH_COLUMNS} FROM tournament_matches WHERE id = ?", (match_id,)
                )
        assert row is not None
        return _match(row)

    async def decide_match(
        self,
        match_id: int,
        winner_team: int | None,
        decided_by: DecidedBy,
        now: int,
        *,
        game_points: tuple[int, int] | None = None,
    ) -> bool:
        """End a match with its winner (None: both lost). Only a match not yet decided is; False when it was
        (a result arriving twice counts once). `game_points` replaces the counted ones (a forfeit: 0, 0)."""
        async with self._core.transaction():
            points_sql, params = "", [winner_team, decided_by, now]
            if game_points is not None:
                points_sql = ", first_game_points = ?, second_game_points = ?"
                params.extend(game_points)
            params.append(match_id)
            return bool(
                await self._core.execute(
                    "UPDATE tournament_matches SET status = 'done', winner_team = ?, decided_by = ?, ended_at = ?"
                    f"{points_sql} WHERE id = ? AND status <> 'done'",
                    params,
                )
            )

    async def set_result_by_hand(
        self,
        tournament_id: int,
        match_id: int,
        winner_team: int | None,
        *,
        actor_id: int,
        reason: str,
        now: int,
        game_points: tuple[int, int] | None = None,
        forfeit: bool = False,
    ) -> None:
        """The organiser sets a match's result, decided or not, with a reason kept in the log. `forfeit`: the
        loser did not play (no-show); its game points are then 0 for both unless given."""
        async with self._core.transaction():
            await self._core.execute(
                "UPDATE tournament_matches SET status = 'pending', decided_by = NULL WHERE id = ? AND tournament_id = ?",
                (match_id, tournament_id),
            )
            if forfeit and game_points is None:
                game_points = (0, 0)
            decided_by: DecidedBy = "forfeit" if forfeit else "organiser"
            await self.decide_match(match_id, winner_team, decided_by, now, game_points=game_points)
            await self.add_log(
                tournament_id, actor_id=actor_id, action="result", reason=reason, now=now, match_id=match_id
            )

    # --- the organiser's log -----------------------------------------------------------------------------

    async def add_log(
        self,
        tournament_id: int,
        *,
        actor_id: int,
        action: str,
        reason: str,
        now: int,
        match_id: int | None = None,
    ) -> None:
        async with self._core.transaction():
            await self._core.execute(
                "INSERT INTO tournament_log (tournament_id, at, actor_id, action, match_id, reason)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (tournament_id, now, actor_id, action, match_id, reason),
            )

    async def log(self, tournament_id: int) -> list[LogRow]:
        rows = await self._core.fetch_all(
            "SELECT id, tournament_id, at, actor_id, action, match_id, reason FROM tournament_log"
            " WHERE tournament_id = ? ORDER BY id",
            (tournament_id,),
        )
        return [LogRow(**dict(row)) for row in rows]

    async def forget_person(self, user_id: int, pseudonym: int, removed_name: str) -> int:
        """Inside the caller's transaction (bot/db/privacy.py): withdraw the person's sign-ups to tournaments
        not yet started; in ended ones (and teams removed from running ones) give them `pseudonym` and
        `removed_name`, their team's name rebuilt; as organiser or in the log, id 0. Rows changed. Raises
        `InTournament`, changing nothing, while they play in a running or paused tournament."""
        async with self._core.transaction():
            playing = await self._core.fetch_one(
                "SELECT t.id FROM tournament_teams m JOIN tournaments t ON t.id = m.tournament_id"
                " WHERE t.status IN ('running', 'paused') AND m.removed = 0"
                " AND ?1 IN (m.first_user_id, m.second_user_id)",
                (user_id,),
            )
            if playing is not None:
                raise InTournament(int(playing["id"]))
            changed = await self._core.execute(
                "DELETE FROM tournament_signups WHERE user_id = ? AND tournament_id IN"
                " (SELECT id FROM tournaments WHERE status = 'signup')",
                (user_id,),
            )
            changed += await self._core.execute(
                "UPDATE tournament_signups SET partner_id = NULL WHERE partner_id = ? AND tournament_id IN"
                " (SELECT id FROM tournaments WHERE status = 'signup')",
                (user_id,),
            )
            changed += await self._core.execute(
                "UPDATE tournament_signups SET user_id = ?1, display_name = ?2 WHERE user_id = ?3",
                (pseudonym, removed_name, user_id),
            )
            changed += await self._core.execute(
                "UPDATE tournament_signups SET partner_id = ?1 WHERE partner_id = ?2", (pseudonym, user_id)
            )
            teams = await self._core.fetch_all(
                f"SELECT {_TEAM_COLUMNS} FROM tournament_teams WHERE ?1 IN (first_user_id, second_user_id)",
                (user_id,),
            )
            for team in map(_team, teams):
                names = {
                    row["user_id"]: row["display_name"]
                    for row in await self._core.fetch_all(
                        "SELECT user_id, display_name FROM tournament_signups WHERE tournament_id = ?",
                        (team.tournament_id,),
                    )
                }
                members = [pseudonym if member == user_id else member for member in team.members]
                name = " & ".join(names.get(member, removed_name) for member in members)
                changed += await self._core.execute(
                    "UPDATE tournament_teams SET first_user_id = ?, second_user_id = ?, name = ? WHERE id = ?",
                    (members[0], members[1], name, team.id),
                )
            changed += await self._core.execute(
                "UPDATE tournaments SET organiser_id = 0 WHERE organiser_id = ?", (user_id,)
            )
            changed += await self._core.execute(
                "UPDATE tournament_log SET actor_id = 0 WHERE actor_id = ?", (user_id,)
            )
        return changed

    async def _status(self, tournament_id: int) -> TournamentStatus:
        row = await self._core.fetch_one("SELECT status FROM tournaments WHERE id = ?", (tournament_id,))
        if row is None:
            raise TournamentNotFound(tournament_id)
        status: TournamentStatus = row["status"]
        return status
