"""The daily deal: each UTC day the same ``DAILY_DEALS`` deals for every person on this bot, played alone
with three AI seats and scored against the AI's own play of the same cards (par).

A day's deals come from its secret seed (``daily_days``, drawn when the day is first asked for and shown by no
command before the day is over): deal n is dealt from ``deal_seed(secret, n)`` with the dealer rotating from
``first_dealer(secret)``, so every attempt holds the same cards in the same seats. An attempt is an ordinary
stored table, the person in North: the core asks ``DailyPlan`` for each deal's seed (a table that is no
attempt draws at random as always) and closes the table after the last one. Par is the AI playing all four
seats of each deal (``play_par``, fixed seeds), computed once in the background and stored; a deal's score is
the person's team's signed game points minus par's for North-South (``signed_points``).

The pure parts (days, seeds, points, streaks) are doctested; ``DailyDeals`` starts attempts and reads boards.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import engine
from bot.cache import Lru
from bot.db import Database, TableRow
from bot.db.daily import DailyAttempt, DailyAttemptTaken, DailyPar, DailyStanding
from engine import Action

from . import dailyleague
from .dailyleague import Member, MonthScore, Placed
from .errors import UserError

if TYPE_CHECKING:
    from .core import TableCore
    from .dailypar import ParComputer
    from .table import TableSnapshot

DAILY_DEALS = 6
PERSON_SEAT = 0  # North: the person's team is North-South (team 0)
DAILY_STRENGTH = "pimc"  # every attempt's AI seats and par play alike, whatever a server chose for its tables
DAILY_PRESET = "standard"
# A Bummerl never ends within a day's deals (99 is the highest target): the attempt is its six deals.
DAILY_RULE_CHANGES = {"target": 99}
DAILY_TURN_SECONDS = 3600  # the person plays at their own pace; an hour idle ends the attempt (the shell closes it)
SECONDS_PER_DAY = 86_400
KNOWN_TABLES = 100_000  # tables remembered as attempts or not (an open attempt's moves keep it among them)


def day_of(now: float) -> str:
    """The UTC day of a Unix time.

    >>> day_of(0), day_of(86_399), day_of(86_400)
    ('1970-01-01', '1970-01-01', '1970-01-02')
    """
    return dt.datetime.fromtimestamp(now, dt.UTC).date().isoformat()


def day_over(day: str, now: float) -> bool:
    """Whether the UTC day has ended at ``now`` (its deals may then be shown).

    >>> day_over("1970-01-01", 86_399), day_over("1970-01-01", 86_400)
    (False, True)
    """
    return day < day_of(now)


def week_of(day: str) -> list[str]:
    """The days of the day's ISO week (Monday first) up to the day itself.

    >>> week_of("2026-12-03")
    ['2026-11-30', '2026-12-01', '2026-12-02', '2026-12-03']
    """
    date = dt.date.fromisoformat(day)
    monday = date - dt.timedelta(days=date.weekday())
    return [(monday + dt.timedelta(days=i)).isoformat() for i in range(date.weekday() + 1)]


def _derived(secret: int, label: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{secret}:{label}".encode()).digest()[:8], "big") >> 2


def deal_seed(secret: int, deal_no: int) -> int:
    """The seed of the day's deal ``deal_no`` (0 .. DAILY_DEALS - 1, a table's own numbering): known only to
    who knows the secret.

    >>> deal_seed(7, 0) == deal_seed(7, 0) != deal_seed(7, 1)
    True
    """
    return _derived(secret, f"deal:{deal_no}")


def first_dealer(secret: int) -> int:
    """Who deals the day's first deal; the dealer rotates clockwise from there, as at any table."""
    return _derived(secret, "dealer") % 4


def dealer_of(secret: int, deal_no: int) -> int:
    return (first_dealer(secret) + deal_no) % 4


def ai_seed(secret: int, deal_no: int, state: engine.DealState) -> int:
    """The seed of an AI decision at the position ``state`` of the day's deal ``deal_no``, for par and for an
    attempt's AI seats alike: the same position gets the same seed, so where a person plays as par did, the AI
    seats answer as they did in par (the same view, seed and budget give the same action), and par is the same
    wherever it is computed."""
    position = (
        state.to_act, state.trump, state.aufschlag_card, state.auction, state.doubling, state.tricks, state.trick
    )
    return _derived(secret, f"ai:{deal_no}:{position!r}")


def signed_points(result: engine.DealResult, team: int) -> int:
    """The deal's game points for ``team``: what it won, or minus what the other team won.

    >>> signed_points(engine.DealResult(0, 2, 1, 2, "66", True), 0)
    2
    >>> signed_points(engine.DealResult(0, 2, 1, 2, "66", True), 1)
    -2
    """
    return result.game_points if result.winner == team else -result.game_points


def streak(days: Sequence[str], today: str) -> int:
    """Consecutive days played, ending today (or yesterday, while today is still open).

    >>> streak(["2026-12-03", "2026-12-02", "2026-11-30"], "2026-12-03")
    2
    >>> streak(["2026-12-02", "2026-12-01"], "2026-12-03")
    2
    >>> streak(["2026-11-30"], "2026-12-03")
    0
    """
    played = set(days)
    date = dt.date.fromisoformat(today)
    if today not in played:
        date -= dt.timedelta(days=1)
    count = 0
    while date.isoformat() in played:
        count += 1
        date -= dt.timedelta(days=1)
    return count


def daily_rules() -> engine.Ruleset:
    from .rulesettings import ruleset_of

    return ruleset_of(DAILY_PRESET, DAILY_RULE_CHANGES)


Decide = Callable[[engine.PlayerView, int], Awaitable[Action]]


async def play_par(secret: int, deal_no: int, decide: Decide) -> DailyPar:
    """The AI playing all four seats of the day's deal ``deal_no`` (each decision from its seat's view alone,
    with its own fixed seed): North-South's signed game points and the line of play."""
    dealer = dealer_of(secret, deal_no)
    state = engine.new_deal(daily_rules(), dealer, engine.deal_hands(deal_seed(secret, deal_no), dealer))
    line: list[str] = []
    while not state.finished:
        seat = state.to_act
        assert seat is not None
        action = await decide(engine.view_for(state, seat), ai_seed(secret, deal_no, state))
        state, _ = engine.apply(state, seat, action)
        line.append(engine.format_action(seat, action))
    assert state.result is not None
    return DailyPar(deal_no, signed_points(state.result, PERSON_SEAT % 2), tuple(line))


class DailyPlan:
    """The core's deal plan (``bot.game.events.DealPlan``): an attempt's deals are the day's, and end after
    the last; any other table draws its seed at random."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def __call__(self, row: TableRow, deal_no: int, new_seed: Callable[[], int]) -> int | None:
        attempt = await self.db.daily.attempt_of_table(row.id)
        if attempt is None:
            return new_seed()
        if deal_no >= DAILY_DEALS:
            return None
        secret = await self.db.daily.known_secret(attempt.day)
        assert secret is not None  # an attempt's day is stored before it
        return deal_seed(secret, deal_no)


@dataclass(frozen=True, slots=True)
class DealBeside:
    """One finished deal of a person's attempt beside the AI's play of the same cards (par)."""

    deal_no: int
    deck: str
    played: tuple[str, ...]  # the attempt's actions, record notation
    points: int  # the person's team's signed game points
    par: DailyPar

    @property
    def score(self) -> int:
        return self.points - self.par.points


@dataclass(frozen=True, slots=True)
class DayResults:
    """A day's results as a server's channel is shown them, once the day is over (its seed is public then)."""

    guild_id: int
    channel_id: int
    day: str
    secret: int
    standings: tuple[DailyStanding, ...]


@dataclass(frozen=True, slots=True)
class Board:
    days: tuple[str, ...]
    standings: tuple[DailyStanding, ...]
    par_ready: bool  # the (last) day's par is stored: until then nobody's score counts


@dataclass(frozen=True, slots=True)
class LeagueFinal:
    """A month's final league standings as a server's daily channel is shown them, once the next month's
    divisions are seeded from them."""

    guild_id: int
    channel_id: int
    league: League
    seeds: str  # the month whose divisions it seeded (its claim is kept with that month's ladder)


@dataclass(frozen=True, slots=True)
class League:
    """A server's league of the month as it stands: its divisions, best first."""

    month: str
    divisions: tuple[tuple[Placed, ...], ...]
    settled: bool  # seeded from a finished month (False: last month's attempts still run, the seeding may move)


class DailyDeals:
    """Starting a person's attempt at today's deals, and the boards (``service.daily``)."""

    def __init__(self, core: TableCore, db: Database) -> None:
        self.core = core
        self.db = db
        # Table id -> is it an attempt (asked once per table); every AI move of an attempt keeps it recent.
        self._daily_tables = Lru[int, bool](KNOWN_TABLES)
        # Attempts played in a server channel (ephemerally, ``place`` "channel"), by table and by the table's channel
        # (the person's DM, known before the table is opened): nothing of them is posted to that channel.
        self._in_channel = Lru[int, bool](KNOWN_TABLES)
        self._private_channels = Lru[int, bool](KNOWN_TABLES)
        rng = random.SystemRandom()
        self.new_secret = lambda: rng.getrandbits(62)
        # Par's computer, given by the shell, which has the AI worker (bot/schnapsen/daily.py); None: par only
        # as the shell computes it.
        self.par: ParComputer | None = None

    def today(self) -> str:
        return day_of(self.core.now())

    async def secret(self, day: str) -> int:
        """The day's secret seed, drawn and stored the first time anyone asks for the day."""
        return await self.db.daily.day_secret(day, self.new_secret(), self.core.now())

    async def is_attempt(self, table_id: int) -> bool:
        known = self._daily_tables.get(table_id)
        if known is None:
            known = await self.db.daily.attempt_of_table(table_id) is not None
            self._daily_tables[table_id] = known
        return known

    def known_attempt(self, table_id: int) -> bool:
        """Whether the table is known to be an attempt (started here, or open at start-up), without storage."""
        return self._daily_tables.get(table_id, False)

    def in_channel(self, table_id: int) -> bool:
        """Whether the table is an attempt played in a server channel, as one ephemeral message only its player
        sees (known: started here, or open at start-up): no table message, notice or result is posted for it."""
        return self._in_channel.get(table_id, False)

    async def played_in_channel(self, table_id: int) -> bool:
        """``in_channel``, asking storage for a table not known here (an attempt closed before a restart whose
        last results or notice are still owed)."""
        known = self._in_channel.get(table_id)
        if known is None:
            attempt = await self.db.daily.attempt_of_table(table_id)
            known = self._in_channel[table_id] = attempt is not None and attempt.place == "channel"
        return known

    def keeps_private(self, channel_id: int) -> bool:
        """Whether ``channel_id`` is the table channel of an attempt played in a server channel: nothing of it
        is posted there (it is the person's DM, perhaps closed; the attempt shows in their ephemeral message)."""
        return self._private_channels.get(channel_id, False)

    async def remember_open_attempts(self) -> None:
        for table_id, channel_id, place in await self.db.daily.open_attempt_tables():
            self._daily_tables[table_id] = True
            self._in_channel[table_id] = self._private_channels[channel_id] = place == "channel"

    async def ai_player(self, table: TableSnapshot, strength: str, seed: int) -> tuple[str, int]:
        """The strength and seed of an AI move at ``table``: an attempt's AI seats play as par does (its
        strength, the position's seed); other tables as their server chose, with the seed given."""
        if not await self.is_attempt(table.id) or table.deal is None:
            return strength, seed
        attempt = await self.db.daily.attempt_of_table(table.id)
        secret = None if attempt is None else await self.db.daily.known_secret(attempt.day)
        if secret is None:
            return DAILY_STRENGTH, seed
        return DAILY_STRENGTH, ai_seed(secret, table.deal_no, table.deal)

    async def start(
        self,
        *,
        guild_id: int,
        dm_channel_id: int,
        user_id: int,
        name: str,
        deck: str,
        language: str,
        in_channel: bool = False,
    ) -> TableSnapshot:
        """Open and start the person's attempt at today's deals: a table keyed by their DM channel with the bot
        (a channel holds one table, a DM is theirs alone), the person in North, AI players in the other seats;
        played in that DM, or (``in_channel``) as an ephemeral message in a server channel, seen by them alone.
        Refused when they have an attempt today already (finished or not). The day's par is asked for at once
        (the first attempt of the day computes it, in the background), so it is in before the last deal ends."""
        day = self.today()
        if await self.db.daily.attempt(day, user_id) is not None:
            raise UserError("error.daily_played")
        secret = await self.secret(day)
        self._private_channels[dm_channel_id] = in_channel  # before the table is opened: its lobby posts nothing
        table = await self.core.open_table(
            guild_id=guild_id,
            channel_id=dm_channel_id,
            host_id=user_id,
            host_name=name,
            preset=DAILY_PRESET,
            deck=deck,
            turn_seconds=DAILY_TURN_SECONDS,
            language=language,
            rule_changes=DAILY_RULE_CHANGES,
            first_dealer=first_dealer(secret),
        )
        try:
            await self.db.daily.start_attempt(
                day=day,
                user_id=user_id,
                guild_id=guild_id,
                table_id=table.id,
                display_name=name,
                now=self.core.now(),
                place="channel" if in_channel else "dm",
            )
        except DailyAttemptTaken:  # a second command at the same moment: only one attempt
            await self.core.discard_new_table(table.id)
            raise UserError("error.daily_played") from None
        self._daily_tables[table.id] = True
        self._in_channel[table.id] = in_channel
        if self.par is not None:  # the day's par, asked for now (background work: the table's moves go first)
            self.par.request(day, self.secret)
        return await self.core.start(table.id, user_id)

    async def attempt_today(self, user_id: int) -> DailyAttempt | None:
        return await self.db.daily.attempt(self.today(), user_id)

    async def sealed(self, table_id: int) -> bool:
        """Whether the table is an attempt at a day not yet over: nobody may see its deals but its player."""
        attempt = await self.db.daily.attempt_of_table(table_id)
        return attempt is not None and not day_over(attempt.day, self.core.now())

    async def board(self, guild_id: int | None, *, week: bool = False, limit: int = 10) -> Board:
        today = self.today()
        days = tuple(week_of(today)) if week else (today,)
        standings = await self.db.daily.standings(days, guild_id, limit)
        par_ready = len(await self.db.daily.par(today)) == DAILY_DEALS
        return Board(days, tuple(standings), par_ready)

    async def beside_par(self, user_id: int, deal_no: int, *, table_id: int | None = None) -> DealBeside:
        """The person's deal ``deal_no`` of today's attempt (at ``table_id``, when given) beside par: only a deal
        they finished (they have seen its cards), only once par is stored."""
        attempt = await self.attempt_today(user_id)
        if attempt is None or table_id not in (None, attempt.table_id):
            raise UserError("error.daily_not_played")
        points = await self.db.daily.deals_of(attempt.table_id)
        if deal_no not in points:
            raise UserError("error.daily_deal_not_played", deal=deal_no + 1)
        par = next((p for p in await self.db.daily.par(attempt.day) if p.deal_no == deal_no), None)
        if par is None:
            raise UserError("error.daily_par_pending")
        row = await self.db.tables.get_table(attempt.table_id)
        record = await self.db.records.load_record(attempt.table_id)
        stored = next(deal for deal in record.deals if deal.deal_no == deal_no)
        assert row is not None
        return DealBeside(deal_no, row.deck, stored.actions, points[deal_no], par)

    async def published_secret(self, day: str) -> int:
        """A day's secret seed, once the day is over (before, nobody may learn its deals)."""
        try:
            valid = dt.date.fromisoformat(day).isoformat() == day
        except ValueError:
            valid = False
        if not valid:
            raise UserError("error.daily_bad_day")
        if not day_over(day, self.core.now()):
            raise UserError("error.daily_day_not_over")
        secret = await self.db.daily.known_secret(day)
        if secret is None:
            raise UserError("error.daily_no_such_day")
        return secret

    async def set_channel(self, guild_id: int, channel_id: int) -> None:
        await self.db.daily.set_channel(guild_id, channel_id, self.core.now())

    async def results_to_post(self, now: float) -> list[DayResults]:
        """Yesterday's results (the last day over at ``now``) for each server that chose a channel for them and
        has not had them yet, each claimed for this caller; none before that day's par is complete. A caller
        whose post fails gives its claim back (``post_failed``), so the next look tries again."""
        day = day_of(now - SECONDS_PER_DAY)
        par = await self.db.daily.par(day)
        secret = await self.db.daily.known_secret(day)
        if len(par) < DAILY_DEALS or secret is None:
            return []
        due = []
        for guild_id, channel_id in await self.db.daily.unposted(day):
            if await self.db.daily.reserve_post(guild_id, day, int(now)):
                standings = await self.db.daily.standings([day], guild_id)
                due.append(DayResults(guild_id, channel_id, day, secret, tuple(standings)))
        return due

    async def post_failed(self, results: DayResults) -> None:
        await self.db.daily.release_post(results.guild_id, results.day)

    async def show_everywhere(self, user_id: int, shown: bool) -> None:
        """Whether the board across all servers shows the person (their own server's always does)."""
        await self.db.daily.set_hidden(user_id, not shown, self.core.now())

    async def streak(self, user_id: int) -> int:
        return streak(await self.db.daily.days_played(user_id), self.today())

    # --- monthly leagues (the rules: bot/game/dailyleague.py) ------------------------------------------

    async def league(self, guild_id: int, month: str | None = None, *, store: bool = True) -> League:
        """The server's league of the month (this month's when None) as it stands. ``store=False`` (a web page
        view) reads only: a month's ladder not stored yet is worked out in memory, the same as the stored one
        would be, and left for the bot's own work to store."""
        month = month or dailyleague.month_of(self.today())
        seeded, settled = await self._ladder(guild_id, month, store=store)
        ladder = dailyleague.ladder_with_newcomers(seeded, await self._month_players(guild_id, month))
        table = dailyleague.standings(ladder, await self._month_scores(guild_id, month))
        return League(month, tuple(tuple(division) for division in table), settled)

    async def _month_players(self, guild_id: int, month: str) -> list[Member]:
        days = dailyleague.days_of_month(month)
        return [Member(*player) for player in await self.db.daily.month_players(guild_id, days[0], days[-1])]

    async def _month_scores(self, guild_id: int, month: str) -> dict[int, MonthScore]:
        days = dailyleague.days_of_month(month)
        everyone = await self.db.daily.standings(days, guild_id, limit=1_000_000)
        return {s.user_id: MonthScore(s.score, s.days) for s in everyone}

    async def _ladder(self, guild_id: int, month: str, *, store: bool = True) -> tuple[list[Member], bool]:
        """The month's ladder as seeded from the month before (stored once that month's attempts are all
        over, unless ``store`` is False; a month not stored before is built from the one before it first), and
        whether it is settled."""
        stored = await self.db.daily.league_ladder(guild_id, month)
        if stored is not None:
            return [Member(*member) for member in stored], True
        before = dailyleague.previous_month(month)
        players = await self._month_players(guild_id, before)
        if not players:  # nobody played here the month before: everyone starts at the bottom, as they come
            if store:
                await self.db.daily.store_league_ladder(guild_id, month, [], self.core.now())
            return [], True
        seeded, settled = await self._ladder(guild_id, before, store=store)
        ladder = dailyleague.ladder_with_newcomers(seeded, players)
        ladder = dailyleague.next_ladder(ladder, await self._month_scores(guild_id, before))
        days = dailyleague.days_of_month(before)
        settled = settled and not await self.db.daily.attempts_open_between(guild_id, days[0], days[-1])
        if settled and store:
            members = [(m.user_id, m.display_name) for m in ladder]
            await self.db.daily.store_league_ladder(guild_id, month, members, self.core.now())
        return ladder, settled

    async def league_finals_to_post(self) -> list[LeagueFinal]:
        """Last month's final standings for each server with a results channel whose league had anyone last
        month, once this month's divisions are settled (seeded from them), each claimed for this caller; a
        caller whose post fails gives its claim back (``league_final_failed``)."""
        month = dailyleague.month_of(self.today())
        before = dailyleague.previous_month(month)
        due = []
        for guild_id, channel_id in await self.db.daily.channels():
            if not await self._month_players(guild_id, before):
                continue
            _, settled = await self._ladder(guild_id, month)
            if settled and await self.db.daily.claim_league_announcement(guild_id, month, self.core.now()):
                due.append(LeagueFinal(guild_id, channel_id, await self.league(guild_id, before), month))
        return due

    async def league_final_failed(self, final: LeagueFinal) -> None:
        await self.db.daily.release_league_announcement(final.guild_id, final.seeds)
