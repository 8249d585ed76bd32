"""The table service: every change to a table goes through here, under that table's lock.

Order of work for an action: check (seat, turn, version, legality) -> engine.apply -> store everything the
action changes in ONE transaction -> only then publish the table's new snapshot. The Discord shell announces
afterwards, so nothing is ever announced that is not stored. Snapshots are immutable: the service replaces a
table's snapshot after every commit and hands the new one back; nobody changes one in place.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import logging
import random
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import engine
from bot.db import (
    RATING_MIN_GAMES,
    AlreadySeated,
    BummerlRow,
    ChannelBusy,
    Database,
    DealResultRow,
    Forgotten,
    GuildSettings,
    LeaderboardEntry,
    LeaderboardPage,
    LeaderboardSort,
    OutboxEntry,
    Player,
    PlayerDealStats,
    PlayerPrefs,
    SeatRow,
    SeatTaken,
    TableRow,
    Tally,
)
from bot.db.inbox import CLICKS_CHANNEL, InboxClick
from bot.db.privacy import PSEUDONYM_CEILING
from bot.db.retention import retention_cutoff
from bot.shards import ShardRange, shard_of
from bot.vocabulary import AI_STRENGTHS, DECK_STYLES, HAND_ORDERS, HAND_PLACES, LANGUAGES
from engine import Action
from engine.events import BummerlWon, Event

from . import ratings, rulesettings
from .coach import ReviewSubject
from .errors import UserError, one_of
from .profile import ProfileQueries
from .table import TableSnapshot, log_events, logged, restore, rules_of, seats_by_number

AI_NAMES = ("Sepp", "Resi", "Ferdl", "Mitzi")
log = logging.getLogger(__name__)


@dataclass(slots=True)
class HandedClick:
    """A click taken from the click inbox while it runs (bot/schnapsen/routing.py): ``deleted`` once the move
    it made deleted it from the inbox, in the move's own transaction."""

    id: int
    deleted: bool = False


# The handed click being run in this task (and the tasks it starts), if any.
HANDED_CLICK: contextvars.ContextVar[HandedClick | None] = contextvars.ContextVar("handed_click", default=None)
COMMAND_HASH_KEY = "command_hash"
REMEMBERED_PREFS = 10_000  # people whose choices are kept in memory (least recently used forgotten)
KNOWN_FOREIGN_TABLES = 10_000  # tables of other processes whose shard is kept in memory (least recently used forgotten)


@dataclass(frozen=True)
class Outcome:
    """What one accepted action did, for the shell to announce (what it owes Discord is in the outbox)."""

    table: TableSnapshot
    seat: int
    action: Action
    events: tuple[Event, ...]
    finished_deal: engine.DealState | None  # the deal this action finished, if any
    bummerl: BummerlWon | None
    new_deal: bool  # a new deal was dealt after this action
    # The table as it stood when the finished deal ended (for its result message), if a deal ended.
    deal_end: TableSnapshot | None = None


@dataclass(frozen=True)
class Restored:
    """What start-up found: the tables served again, and those set aside because they no longer replay."""

    tables: list[TableSnapshot]
    set_aside: list[int]
    repaired: list[int]


class TableService(ProfileQueries):
    def __init__(
        self,
        db: Database,
        *,
        clock: Callable[[], float] = time.time,
        seed_source: Callable[[], int] | None = None,
        shards: ShardRange | None = None,
    ) -> None:
        self.db = db
        # The Discord shards this process holds (bot/shards.py): it serves their guilds' tables. None: every
        # guild's tables are ours.
        self.shards = shards
        self.sharded = shards is not None
        self.clock = clock
        rng = random.SystemRandom()
        self.new_seed = seed_source or (lambda: rng.getrandbits(62))
        self._tables: dict[int, TableSnapshot] = {}  # table id -> the open table's current snapshot
        self._locks: dict[int, asyncio.Lock] = {}
        self._prefs: OrderedDict[int, PlayerPrefs] = OrderedDict()  # user id -> their choices, as stored
        # Tables another process serves, by id -> their shard (a table never changes guild): a DM click for one
        # is handed on, and an outbox entry of one passed over, without asking storage whose it is.
        self._foreign_shards: OrderedDict[int, int] = OrderedDict()

    def owns_guild(self, guild_id: int) -> bool:
        return self.shards is None or self.shards.owns_guild(guild_id)

    def now(self) -> int:
        return int(self.clock())

    def lock(self, table_id: int) -> asyncio.Lock:
        lock = self._locks.get(table_id)
        if lock is None:
            lock = asyncio.Lock()
            if table_id in self._tables:  # a closed table's lock is not kept: everything on it is refused anyway
                self._locks[table_id] = lock
        return lock

    # --- loading ---------------------------------------------------------------------------------

    async def restore_all(self) -> Restored:
        """Rebuild every open table from the database (on start-up), one by one.

        A table whose record no longer replays is set aside (closed, its channel told with the record
        attached) so that one bad table never keeps the bot from starting. A table left in a state from
        which no step leads on (an older version stored a deal's end and the next deal in two transactions)
        is repaired: the missing next deal is dealt, or the finished Bummerl is marked finished. Ratings a
        migration left to compute are computed first.
        """
        if (rated := await ratings.rebuild_if_pending(self.db)) is not None:
            log.info("ratings computed from the stored results after a migration: %d Bummerl rated", rated)
        restored, set_aside, repaired = [], [], []
        for row in await self.db.tables.list_open_tables():
            if not self.owns_guild(row.guild_id):
                continue  # another process holds this guild's shard: it restores and drives the table
            try:
                table = await self._load(row)
            except Exception:
                log.error("table %s: its stored record does not replay; setting it aside", row.id, exc_info=True)
                await self._set_aside(row)
                set_aside.append(row.id)
                continue
            if (fixed := await self._repair(table)) is not None:
                repaired.append(table.id)
                table = fixed
            restored.append(table)
        return Restored(restored, set_aside, repaired)

    async def _load(self, row: TableRow) -> TableSnapshot:
        seats = await self.db.seats.seats_of(row.id)
        record = await self.db.records.load_record(row.id)
        return self._publish(restore(row, seats, record))

    async def _set_aside(self, row: TableRow) -> None:
        self._tables.pop(row.id, None)
        async with self.db.transaction():
            await self.db.tables.set_status(row.id, "closed", self.now())
            payload: dict[str, object] = {"channel_id": row.channel_id, "lang": row.language}
            await self.db.outbox.add_announcement(row.id, "set_aside", _archiving(payload, row), self.now())

    async def _repair(self, table: TableSnapshot) -> TableSnapshot | None:
        """The repaired table, or None when it needed no repair."""
        if table.status != "playing" or (table.deal is not None and not table.deal.finished):
            return None
        async with self.lock(table.id):
            if table.last_bummerl is not None:
                log.warning("table %s: its Bummerl ended but the table was still playing; marked finished", table.id)
                async with self.db.transaction():
                    await self.db.tables.set_status(table.id, "finished", self.now())
                return await self._refresh(table)
            log.warning("table %s: its last deal ended but no next deal was stored; dealing it now", table.id)
            async with self.db.transaction():
                dealt = await self._deal_next(table)
            return await self._refresh(dealt.applied_to(table))

    async def table_at_deal_end(self, table_id: int, deal_no: int) -> TableSnapshot:
        """The table as it stood when deal ``deal_no`` ended, rebuilt from storage (for a result owed since
        before a restart). Works for closed tables too."""
        row = await self.db.tables.get_table(table_id)
        if row is None:
            raise UserError("error.table_gone")
        return restore(row, await self.db.seats.seats_of(table_id), await self.db.records.load_record(table_id), up_to_deal=deal_no)

    async def finished_deal(self, guild_id: int, table_id: int, deal_no: int) -> TableSnapshot:
        """The table as it stood when deal ``deal_no`` ended, for "Show the deal": only a finished deal of a
        table of ``guild_id``, only while the guild allows deal review; read from the stored record, so it
        works for closed tables and after a restart. Every refusal is the user's error and shows nothing."""
        row = await self.db.tables.get_table(table_id)
        if row is None or row.guild_id != guild_id:  # another guild's table is as good as none
            raise UserError("error.review_no_deal")
        if not (await self.db.settings.get_guild_settings(guild_id)).deal_review:
            raise UserError("error.review_off")
        record = await self.db.records.load_record(table_id)
        stored = next((deal for deal in record.deals if deal.deal_no == deal_no), None)
        if stored is None:
            raise UserError("error.review_no_deal")
        if not stored.finished:
            raise UserError("error.review_not_finished")
        if not stored.actions:  # the closed table's action log was pruned (RETENTION_DAYS)
            raise UserError("error.review_pruned")
        table = restore(row, await self.db.seats.seats_of(table_id), record, up_to_deal=deal_no)
        if table.deal_no != deal_no or table.deal is None or not table.deal.finished:
            raise UserError("error.review_not_finished")
        return table

    def table_in_channel(self, channel_id: int) -> TableSnapshot | None:
        return next((table for table in self.open_tables() if table.row.channel_id == channel_id), None)

    def table_of_user(self, user_id: int) -> TableSnapshot | None:
        return next((table for table in self.open_tables() if table.seat_of(user_id) is not None), None)

    def snapshot(self, table_id: int) -> TableSnapshot | None:
        """The open table as it stands, or None when there is no such open table."""
        table = self._tables.get(table_id)
        return None if table is None or table.status == "closed" else table

    def open_tables(self) -> list[TableSnapshot]:
        return [table for table in self._tables.values() if table.status != "closed"]

    def get(self, table_id: int) -> TableSnapshot:
        """The open table, or the user's error that it is gone."""
        table = self.snapshot(table_id)
        if table is None:
            raise UserError("error.table_gone")
        return table

    def _guild_transaction(self, table: TableSnapshot) -> AbstractAsyncContextManager[None]:
        """A transaction for a change that writes only the table's rows and its guild's statistics, tallies
        and ratings, and checks nothing across guilds (a move, an idle warning, a hand message): on
        PostgreSQL it overlaps with other processes' changes in other guilds."""
        return self.db.transaction(guild_id=table.row.guild_id)

    def _publish(self, table: TableSnapshot) -> TableSnapshot:
        """Make ``table`` the table's current snapshot (only ever after its change was committed)."""
        self._tables[table.id] = table
        return table

    async def _refresh(self, table: TableSnapshot) -> TableSnapshot:
        """Publish ``table`` with its row and seats read back after a committed change (the engine state is
        unaffected)."""
        row = await self.db.tables.get_table(table.id)
        assert row is not None
        seats = seats_by_number(await self.db.seats.seats_of(table.id))
        return self._publish(replace(table, row=row, rules=rules_of(row), seats=seats))

    def _forget(self, table_id: int) -> None:
        """A closed table leaves memory, its lock too (whoever still waits on it finds the table gone)."""
        self._tables.pop(table_id, None)
        self._locks.pop(table_id, None)

    async def _notice(
        self, table: TableSnapshot, key: str, *, mention: int | None = None, closes: bool = False, **values: object
    ) -> None:
        """Owe a notice in the table's channel (inside the caller's transaction). ``closes``: the notice that
        the table closed, after which the table's own thread is archived."""
        payload: dict[str, object] = {
            "channel_id": table.row.channel_id,
            "lang": table.row.language,
            "key": key,
            "values": values,
        }
        if mention is not None:
            payload["mention"] = mention
        if closes:
            payload = _archiving(payload, table.row)
        await self.db.outbox.add_announcement(table.id, "notice", payload, self.now())

    # --- lobby -----------------------------------------------------------------------------------

    async def open_table(
        self,
        *,
        guild_id: int,
        channel_id: int,
        host_id: int,
        host_name: str,
        preset: str,
        deck: str,
        turn_seconds: int,
        language: str,
        thread_parent_id: int | None = None,
        practice: bool = False,
        rule_changes: Mapping[str, Any] | None = None,
    ) -> TableSnapshot:
        """Open a lobby in ``channel_id`` with the host in North. ``thread_parent_id``: the channel is a thread
        the bot opened there for this table (it is archived when the table closes). ``rule_changes``: the
        settings changed from ``preset`` (the server's, in the record's form; bot/game/rulesettings.py)."""
        rules = rulesettings.ruleset_of(preset, rule_changes or {})
        deck_chosen = one_of(deck, DECK_STYLES, "error.bad_deck", deck=deck)
        language_chosen = one_of(language, LANGUAGES)
        check_turn_seconds(turn_seconds)
        self.check_may_host(host_id)
        try:
            async with self.db.transaction():
                row = await self.db.tables.create_table(
                    guild_id=guild_id,
                    channel_id=channel_id,
                    host_id=host_id,
                    rules_json=json.dumps(engine.ruleset_to_json(rules)),
                    deck=deck_chosen,
                    turn_seconds=turn_seconds,
                    language=language_chosen,
                    first_dealer=random.randrange(4),
                    now=self.now(),
                    thread_parent_id=thread_parent_id,
                    practice=practice,
                )
                await self.db.seats.take_seat(row.id, 0, host_id, host_name)
        except ChannelBusy:
            raise UserError("error.channel_busy") from None
        except AlreadySeated as err:
            raise UserError("error.already_seated", channel=0) from err
        return await self._load(row)

    def check_may_host(self, user_id: int) -> None:
        """A person seated at an open table cannot open another (checked before a thread is made for one)."""
        if (busy := self.table_of_user(user_id)) is not None:
            raise UserError("error.already_seated", channel=busy.row.channel_id)

    async def next_table_id(self) -> int:
        """The id the next table will most likely get (to name its thread before it exists)."""
        return await self.db.tables.next_table_id()

    async def discard_new_table(self, table_id: int) -> None:
        """Undo ``open_table`` for a lobby whose thread could not be used: it leaves storage and memory as if
        it had never been opened (a lobby that has moved on meanwhile is closed instead)."""
        async with self.lock(table_id):
            if not await self.db.tables.delete_new_table(table_id):
                async with self.db.transaction():
                    await self.db.tables.set_status(table_id, "closed", self.now())
            self._forget(table_id)

    async def take_seat(self, table_id: int, user_id: int, name: str, seat: int | None) -> TableSnapshot:
        async with self.lock(table_id):
            table = self.get(table_id)
            if table.status != "lobby":
                raise UserError("error.not_in_lobby")
            if table.seat_of(user_id) is not None:
                raise UserError("error.already_here")
            if (other := self.table_of_user(user_id)) is not None:
                raise UserError("error.already_seated", channel=other.row.channel_id)
            free = [i for i, s in enumerate(table.seats) if s is None or s.user_id is None]
            if seat is None:
                if not free:
                    raise UserError("error.table_full")
                seat = free[0]
            if seat not in free:
                raise UserError("error.seat_taken")
            try:
                async with self.db.transaction():
                    if table.seats[seat] is not None:
                        await self.db.seats.leave_seat(table.id, seat)  # an AI makes room for a person
                    await self.db.seats.take_seat(table.id, seat, user_id, name)
                    await self.db.tables.bump_version(table.id, self.now())
            except (SeatTaken, AlreadySeated):
                raise UserError("error.seat_taken") from None
            return await self._refresh(table)

    async def add_ai(self, table_id: int, user_id: int, seat: int | None) -> TableSnapshot:
        async with self.lock(table_id):
            table = self.get(table_id)
            if table.status != "lobby":
                raise UserError("error.not_in_lobby")
            if table.seat_of(user_id) is None:
                raise UserError("error.not_seated_here")
            empty = [i for i, s in enumerate(table.seats) if s is None]
            if not empty:
                raise UserError("error.table_full")
            target = empty[0] if seat is None or seat not in empty else seat
            async with self.db.transaction():
                await self.db.seats.set_ai_seat(table.id, target, AI_NAMES[target])
                await self.db.tables.bump_version(table.id, self.now())
            return await self._refresh(table)

    async def leave(self, table_id: int, user_id: int) -> tuple[TableSnapshot, SeatRow]:
        """In the lobby the seat empties; during a game the AI takes the seat over for good. A leaving host
        hands the role to the next person at the table; when nobody is left, the table closes. Returns the
        table and the seat as it was when they left (its hand message is theirs to retire)."""
        async with self.lock(table_id):
            table = self.get(table_id)
            seat = table.seat_of(user_id)
            occupant = table.seats[seat] if seat is not None else None
            if seat is None or occupant is None:
                raise UserError("error.not_seated_here")
            others = [s for s in table.humans() if s.user_id != user_id]
            async with self.db.transaction():
                if table.status == "lobby":
                    await self.db.seats.leave_seat(table.id, seat)
                else:
                    await self.db.seats.set_ai_seat(table.id, seat, f"{AI_NAMES[seat]} ({occupant.display_name})")
                await self.db.tables.bump_version(table.id, self.now())
                if not others:
                    await self.db.tables.set_status(table.id, "closed", self.now())
                    await self._notice(table, "notice.closed_abandoned", closes=True)
                elif user_id == table.row.host_id:
                    heir = min(others, key=lambda s: (s.seat - seat) % 4)  # the next person round the table
                    assert heir.user_id is not None
                    await self.db.tables.set_host(table.id, heir.user_id, self.now())
                    await self._notice(table, "notice.new_host", name=heir.display_name)
            table = await self._refresh(table)
            if table.status == "closed":
                self._forget(table.id)
            return table, occupant

    def _hosts_lobby(self, table_id: int, user_id: int) -> TableSnapshot:
        """The table, when it is a lobby and ``user_id`` its host; the user's error otherwise."""
        table = self.get(table_id)
        if table.status != "lobby":
            raise UserError("error.not_in_lobby")
        if user_id != table.row.host_id:
            raise UserError("error.host_only")
        return table

    async def set_practice(self, table_id: int, user_id: int, practice: bool) -> TableSnapshot:
        """The host makes the lobby a practice table (hints; no statistic or rating) or a normal one."""
        async with self.lock(table_id):
            table = self._hosts_lobby(table_id, user_id)
            async with self.db.transaction():
                await self.db.tables.set_practice(table.id, practice)
                await self.db.tables.bump_version(table.id, self.now())
            return await self._refresh(table)

    async def set_table_rules(
        self,
        table_id: int,
        user_id: int,
        *,
        preset: str | None = None,
        reset: bool = False,
        changes: Mapping[str, Any] | None = None,
    ) -> TableSnapshot:
        """The host changes the lobby's rules: ``preset`` switches the preset and keeps the settings changed
        from it, ``reset`` drops those first, ``changes`` (setting -> value as the command offers it, None:
        not given) apply last. A table that has started keeps its rules: refused with ``error.rules_locked``."""
        async with self.lock(table_id):
            table = self.get(table_id)
            if table.status != "lobby":
                raise UserError("error.rules_locked")
            if user_id != table.row.host_id:
                raise UserError("error.host_only")
            kept = {} if reset else rulesettings.changes_from_preset(table.rules)
            given = rulesettings.checked_changes(changes or {})
            rules = rulesettings.ruleset_of(preset or table.rules.preset, {**kept, **given})
            async with self.db.transaction():
                if not await self.db.tables.set_lobby_rules(table.id, json.dumps(engine.ruleset_to_json(rules)), self.now()):
                    raise UserError("error.rules_locked")
                await self.db.tables.bump_version(table.id, self.now())
            row = await self.db.tables.get_table(table.id)
            assert row is not None
            return await self._load(row)  # the match is rebuilt with the new rules

    async def start(self, table_id: int, user_id: int) -> TableSnapshot:
        """The host starts: empty seats get AI players, and the first deal is dealt."""
        async with self.lock(table_id):
            table = self._hosts_lobby(table_id, user_id)
            async with self.db.transaction():
                for seat, occupant in enumerate(table.seats):
                    if occupant is None:
                        await self.db.seats.set_ai_seat(table.id, seat, AI_NAMES[seat])
                await self.db.tables.set_status(table.id, "playing", self.now())
                dealt = await self._deal_next(table)
            return await self._refresh(dealt.applied_to(table))

    async def rematch(self, table_id: int, user_id: int, version: int | None = None) -> TableSnapshot:
        """After a Bummerl: the same seats play on; the dealer rotation simply continues."""
        async with self.lock(table_id):
            table = self.get(table_id)
            if table.status != "finished":
                raise UserError("error.no_rematch_now")
            if table.seat_of(user_id) is None:
                raise UserError("error.not_seated_here")
            if version is not None and version != table.version:
                raise UserError("error.stale")
            async with self.db.transaction():
                await self.db.tables.set_status(table.id, "playing", self.now())
                dealt = await self._deal_next(table)
            return await self._refresh(dealt.applied_to(table))

    async def close(
        self, table_id: int, *, reason_key: str = "notice.closed_by", finished_at_version: int | None = None
    ) -> TableSnapshot:
        """Close the table. ``finished_at_version``: only a finished table at exactly that position (the
        Close button after a Bummerl); without it (the host's confirmed stop, the sweeper) any open table."""
        async with self.lock(table_id):
            table = self.get(table_id)
            if finished_at_version is not None:
                if table.status != "finished":
                    raise UserError("error.not_finished")
                if finished_at_version != table.version:
                    raise UserError("error.stale")
            async with self.db.transaction():
                await self.db.tables.set_status(table.id, "closed", self.now())
                await self._notice(table, reason_key, closes=True)
            table = await self._refresh(table)
            self._forget(table.id)
            return table

    async def _deal_next(self, table: TableSnapshot) -> Dealt:
        """Store the next deal inside the caller's transaction; the caller applies the result to memory only
        after the commit."""
        seed = self.new_seed()
        dealer = table.match.next_dealer
        hands = engine.deal_hands(seed, dealer)
        deal_no = table.deal_no + 1
        await self.db.records.start_deal(table.id, deal_no, dealer, seed, hands, self.now())
        await self.db.tables.bump_version(table.id, self.now())
        for seat in range(4):
            await self.db.seats.set_dm_message(table.id, seat, None, None)
        return Dealt(engine.new_deal(table.rules, dealer, hands), deal_no, dealer)

    # --- playing ---------------------------------------------------------------------------------

    async def act(
        self, table_id: int, seat: int, action: Action, version: int, *, user_id: int | None
    ) -> Outcome:
        """Apply one action for ``seat``. ``user_id`` None means the AI acts for the seat.

        Raises UserError (stale button, not your seat/turn, illegal) and changes nothing then. The action,
        the deal's result, statistics, tallies, what must be announced and the next deal (or the table's new
        status) are stored in ONE transaction; memory changes only after it committed.
        """
        async with self.lock(table_id):
            table = self.get(table_id)
            deal = table.deal
            if table.status != "playing" or deal is None or deal.finished:
                raise UserError("error.no_deal_running")
            occupant = table.seats[seat]
            if user_id is not None and (occupant is None or occupant.user_id != user_id):
                raise UserError("error.not_your_seat")
            if version != table.version:
                raise UserError("error.stale")
            try:
                new_state, events = engine.apply(deal, seat, action)
            except engine.RulesError as err:
                raise UserError(f"rules.{err.code}", message=err.message) from None
            # The commit and the snapshot published after it must not be torn apart by a cancellation.
            return await asyncio.shield(self._commit_action(table, seat, action, user_id, new_state, events))

    async def _commit_action(
        self,
        table: TableSnapshot,
        seat: int,
        action: Action,
        user_id: int | None,
        new_state: engine.DealState,
        events: tuple[Event, ...],
    ) -> Outcome:
        occupant = table.seats[seat]
        text = engine.format_action(seat, action)
        finished = new_state if new_state.finished else None
        match, bummerl, dealt = table.match, None, None
        now = self.now()
        back = user_id is not None and occupant is not None and (occupant.ai_takeover or occupant.warned)
        async with self._guild_transaction(table):
            seq = await self.db.records.append_action(table.id, table.deal_no, text, now)
            new_version = await self.db.tables.bump_version(table.id, now)
            if (handed := HANDED_CLICK.get()) is not None:
                await self.db.inbox.click_done(handed.id)  # stored with its move: a crash never runs it twice
            if back:
                await self.db.seats.set_takeover(table.id, seat, False)  # acting takes an idle seat back
                await self.db.seats.set_warned(table.id, seat, False)
            if finished is not None:
                match, bummerl = await self._store_finished_deal(table, finished)
                if bummerl is not None:
                    await self.db.tables.set_status(table.id, "finished", now)
                else:
                    ahead = replace(table, match=match)  # the next deal's dealer follows the new match state
                    dealt = await self._deal_next(ahead)
        if handed is not None:
            handed.deleted = True
        # DEBUG: an INFO line per click would be millions of lines a day on a busy bot.
        log.debug("accepted table=%d deal=%d seq=%d action=%s", table.id, table.deal_no, seq, text)
        played = replace(
            table,
            row=replace(table.row, version=new_version, updated_at=now),
            deal=new_state,
            match=match,
            log=log_events(table.log, events),
            last_bummerl=bummerl if finished is not None else table.last_bummerl,
        )
        # The table as it stood when the deal ended (before the next deal), for its result message.
        deal_end = None if finished is None else replace(played, row=table.row)
        after = played if dealt is None else dealt.applied_to(played)
        if finished is not None or back:  # seats, status or the version of a new deal changed: read them back
            try:
                after = await self._refresh(after)
            except BaseException:
                self._publish(after)  # the change is stored: what is held must not stay behind it
                raise
        else:  # the common case, a card or a bid: only the version moved (no need to read it back)
            self._publish(after)
        return Outcome(after, seat, action, events, finished, bummerl, dealt is not None, deal_end)

    async def _store_finished_deal(
        self, table: TableSnapshot, deal: engine.DealState
    ) -> tuple[engine.MatchState, BummerlWon | None]:
        """Inside the action's transaction: the result, the statistics, the Bummerl, its tally and ratings, and
        what the end of the deal must announce (its result message with the rating changes, the last edit of
        its hand messages)."""
        result = deal.result
        assert result is not None and deal.contract is not None and deal.declarer is not None
        now = self.now()
        await self.db.records.record_deal_result(
            DealResultRow(
                table.id,
                table.deal_no,
                deal.contract.id,
                deal.declarer,
                result.winner,
                result.game_points,
                result.multiplier,
                result.reason,
                now,
            )
        )
        players = [
            PlayerDealStats(
                s.user_id,
                s.display_name,
                won=(s.seat & 1) == result.winner,
                game_points=result.game_points if (s.seat & 1) == result.winner else 0,
                declared=s.seat == deal.declarer and deal.contract is not engine.Contract.NORMAL,
                made=s.seat == deal.declarer and deal.contract is not engine.Contract.NORMAL and result.made,
            )
            for s in table.humans()
            if s.user_id is not None and not s.ai_takeover  # humans() has a user id; said again for the types
        ]
        practice = table.row.practice  # a practice deal counts for no statistic, tally or rating
        if not practice:
            await self.db.stats.add_deal_stats(table.row.guild_id, players)
        match, bummerl = engine.score_deal(table.match, result)
        tally = None
        rating_changes: list[dict[str, object]] = []
        if bummerl is not None and not practice:

            def pair(team: int) -> tuple[Player, Player]:
                a, b = table.seats[team], table.seats[team + 2]
                assert a is not None and b is not None
                return (Player(a.user_id, a.display_name), Player(b.user_id, b.display_name))

            winners, losers = pair(bummerl.winner), pair(1 - bummerl.winner)
            settings = await self.db.settings.get_guild_settings(table.row.guild_id)
            row = BummerlRow(
                table.row.guild_id,
                table.id,
                winners,
                losers,
                bummerl.kind,
                bummerl.count,
                bummerl.score[bummerl.winner],
                bummerl.score[1 - bummerl.winner],
                now,
                ai_strength=settings.ai_strength,
            )
            bummerl_id = await self.db.stats.record_bummerl(row)
            by_person = {c.player_id: c for c in await ratings.rate_bummerl(self.db, row, bummerl_id, settings)}
            rating_changes = [  # every person's change in seat order, for the result message
                {"name": s.display_name, "delta": change.delta, "shown": change.after.shown}
                for s in table.humans()
                if s.user_id is not None and (change := by_person.get(s.user_id)) is not None
            ]
            tally = await self.db.stats.get_tally(
                table.row.guild_id, table.team_key(bummerl.winner), table.team_key(1 - bummerl.winner)
            )
        await self.db.outbox.add_announcement(
            table.id,
            "result",
            {
                "channel_id": table.row.channel_id,
                "lang": table.row.language,
                "deal_no": table.deal_no,
                "tally": tally,
                "ratings": rating_changes,
            },
            now,
        )
        for s in table.humans():  # the finished deal's hand messages get a last edit, without buttons
            if s.dm_channel_id is not None and s.dm_message_id is not None:
                await self.db.outbox.add_announcement(
                    table.id,
                    "final_hand",
                    {
                        "deal_no": table.deal_no,
                        "seat": s.seat,
                        "user_id": s.user_id,
                        "channel_id": s.dm_channel_id,
                        "message_id": s.dm_message_id,
                    },
                    now,
                )
        return match, bummerl

    # --- announcements -----------------------------------------------------------------------------

    async def pending_announcements(self, table_id: int | None = None) -> list[OutboxEntry]:
        """What stored changes still owe, for the tables this process serves (all of them without shards)."""
        entries = await self.db.outbox.pending_announcements(table_id)
        if not self.sharded:
            return entries
        ours = {table: await self.owns_table(table) for table in {entry.table_id for entry in entries}}
        return [entry for entry in entries if ours[entry.table_id]]

    async def owns_table(self, table_id: int) -> bool:
        """Whether this process serves the table (its guild is on our shards); a table that no longer exists
        is nobody's."""
        table = self._tables.get(table_id)
        if table is not None:
            return self.owns_guild(table.row.guild_id)
        if table_id in self._foreign_shards:
            return False
        row = await self.db.tables.get_table(table_id)
        if row is None:
            return False
        if self.owns_guild(row.guild_id):
            return True
        self._remember_foreign(table_id, row.guild_id)
        return False

    def _remember_foreign(self, table_id: int, guild_id: int) -> int:
        """Keep the shard of a table another process serves (a table never changes guild); returns it."""
        assert self.shards is not None
        shard = self._foreign_shards[table_id] = shard_of(guild_id, self.shards.count)
        while len(self._foreign_shards) > KNOWN_FOREIGN_TABLES:
            self._foreign_shards.popitem(last=False)
        return shard

    # --- clicks for a table another process serves ---------------------------------------------------

    async def hand_click_to_owner(self, table_id: int, interaction: dict[str, object]) -> bool:
        """Store a click (Discord's interaction payload) for the process serving its table, and wake that
        process; False when no other process serves the table (it is ours, or unknown, or found closed)."""
        if self.shards is None or table_id in self._tables:
            return False
        shard = self._foreign_shards.get(table_id)
        if shard is None:
            row = await self.db.tables.get_table(table_id)
            if row is None or row.status == "closed" or self.owns_guild(row.guild_id):
                return False
            shard = self._remember_foreign(table_id, row.guild_id)
        else:
            self._foreign_shards.move_to_end(table_id)
        # A remembered table may be closed by now: its owner runs the click, and the usual checks answer it.
        await self.db.inbox.post_click(table_id, shard, interaction, self.now())
        return True

    async def clicks_handed_to_us(self, limit: int = 100) -> list[InboxClick]:
        """Clicks other processes received for our tables, oldest first (at most ``limit``)."""
        return [] if self.shards is None else await self.db.inbox.clicks_for(self.shards.ids, limit=limit)

    async def click_handled(self, click_id: int) -> None:
        await self.db.inbox.click_done(click_id)

    @staticmethod
    def running_handed_click(click: HandedClick) -> contextlib.AbstractContextManager[None]:
        """Around running a click taken from the inbox: a move it makes deletes it in the move's own
        transaction and marks it deleted (the caller deletes a click that made no move)."""
        return _context_set(HANDED_CLICK, click)

    async def listen_for_clicks(
        self, on_click: Callable[[], None], on_lost: Callable[[], None]
    ) -> Callable[[], Awaitable[None]] | None:
        """Call ``on_click`` whenever a click is handed to one of our shards (PostgreSQL's NOTIFY), until the
        returned function is awaited; ``on_lost`` when the listening connection fails. None where storage
        cannot notify: the caller looks for clicks now and then instead."""
        if self.shards is None:
            return None
        ours = {str(shard) for shard in self.shards.ids}

        def on_notice(shard: str) -> None:
            if shard in ours:
                on_click()

        return await self.db.listen(CLICKS_CHANNEL, on_notice, on_lost)

    async def announcement_delivered(self, entry_id: int) -> None:
        await self.db.outbox.announcement_delivered(entry_id)

    # --- idle players ------------------------------------------------------------------------------

    async def mark_warned(self, table_id: int, seat: int, version: int) -> TableSnapshot | None:
        """The idle player is warned (once per turn); None when the turn has moved on."""

        async def warn(table: TableSnapshot, occupant: SeatRow) -> None:
            await self.db.seats.set_warned(table_id, seat, True)
            seconds = round(table.row.turn_seconds / 3)
            await self._notice(table, "notice.idle_warning", mention=occupant.user_id, seconds=seconds)

        return await self._while_idle(table_id, seat, version, warn)

    async def take_over(self, table_id: int, seat: int, version: int) -> TableSnapshot | None:
        """The idle player's seat is played by the AI until they click again; None when the turn has moved on."""

        async def replace_by_ai(table: TableSnapshot, occupant: SeatRow) -> None:
            await self.db.seats.set_takeover(table_id, seat, True)
            await self._notice(table, "notice.taken_over", name=occupant.display_name)

        return await self._while_idle(table_id, seat, version, replace_by_ai)

    async def _while_idle(
        self,
        table_id: int,
        seat: int,
        version: int,
        write: Callable[[TableSnapshot, SeatRow], Awaitable[None]],
    ) -> TableSnapshot | None:
        """Store ``write`` for a person still to act at ``version``; None (nothing written) when the turn
        has moved on or the seat holds nobody."""
        async with self.lock(table_id):
            table = self._tables.get(table_id)
            occupant = None if table is None else table.seats[seat]
            if table is None or table.version != version or occupant is None or occupant.user_id is None:
                return None
            async with self._guild_transaction(table):
                await write(table, occupant)
            return await self._refresh(table)

    async def reclaim(self, table_id: int, user_id: int) -> TableSnapshot | None:
        """A player the AI stood in for clicked one of their buttons: they play again themselves (None when
        the AI did not stand in for them)."""
        async with self.lock(table_id):
            table = self._tables.get(table_id)
            seat = None if table is None else table.seat_of(user_id)
            occupant = None if table is None or seat is None else table.seats[seat]
            if table is None or seat is None or occupant is None or not occupant.ai_takeover:
                return None
            async with self._guild_transaction(table):
                await self.db.seats.set_takeover(table_id, seat, False)
                await self.db.seats.set_warned(table_id, seat, False)
            return await self._refresh(table)

    async def export_record(self, table_id: int, *, include_unfinished: bool = True) -> engine.GameRecord:
        """The table's game record (written out with its ``to_json``). A running deal's hands stay hidden
        unless ``include_unfinished`` (a set-aside table's deals are over, so its last deal is included too)."""
        record = await self.db.records.load_record(table_id)
        return record.to_game_record(include_unfinished=include_unfinished)

    async def review_subject(
        self, table_id: int, deal_no: int, user_id: int, *, guild_id: int | None, channel_id: int | None
    ) -> ReviewSubject:
        """A finished deal of the table and the seat ``user_id`` holds there, for "Review my play" (the table
        may be closed since). Refused for anybody not seated at the table, a deal not finished (or pruned),
        and a button used anywhere but the table's own channel."""
        row = await self.db.tables.get_table(table_id)
        if row is None:
            raise UserError("error.table_gone")
        if guild_id != row.guild_id or channel_id != row.channel_id:
            raise UserError("error.wrong_channel")
        seat = next((s.seat for s in await self.db.seats.seats_of(table_id) if s.user_id == user_id), None)
        if seat is None:
            raise UserError("coach.not_your_deal")
        stored = await self.db.records.load_record(table_id)
        index = next((i for i, d in enumerate(stored.deals) if d.deal_no == deal_no and d.finished), None)
        if index is None or not stored.deals[index].actions:
            raise UserError("coach.deal_not_over")
        record = replace(stored, deals=stored.deals[: index + 1]).to_game_record()
        return ReviewSubject(record, index, seat, row.deck)

    # --- housekeeping ------------------------------------------------------------------------------------

    async def prune_old_action_logs(self, retention_days: int) -> int:
        """Drop the action logs of tables closed more than ``retention_days`` ago (0: keep them forever);
        statistics, tallies and finished Bummerl stay. Returns how many tables were pruned."""
        cutoff = retention_cutoff(self.now(), retention_days)
        return 0 if cutoff is None else await self.db.retention.prune_closed_tables(cutoff)

    async def command_hash(self) -> str | None:
        """The digest of the slash commands as last synced with Discord."""
        return await self.db.meta.get(COMMAND_HASH_KEY)

    async def set_command_hash(self, digest: str) -> None:
        await self.db.meta.set(COMMAND_HASH_KEY, digest)

    # --- settings, tallies and the leaderboard ------------------------------------------------------------

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        return await self.db.settings.get_guild_settings(guild_id)

    async def update_guild_settings(
        self,
        guild_id: int,
        *,
        language: str | None = None,
        preset: str | None = None,
        deck: str | None = None,
        turn_seconds: int | None = None,
        ai_strength: str | None = None,
        ai_delay_ms: int | None = None,
        rated_min_people: int | None = None,
        table_threads: bool | None = None,
        deal_review: bool | None = None,
    ) -> GuildSettings:
        """Change the server defaults that are given (None keeps one); an unknown value changes nothing."""
        current = await self.db.settings.get_guild_settings(guild_id)
        if turn_seconds is not None:
            check_turn_seconds(turn_seconds)
        if ai_delay_ms is not None and not 0 <= ai_delay_ms <= 10_000:
            raise UserError("error.bad_choice", value=ai_delay_ms)
        if rated_min_people is not None and not 1 <= rated_min_people <= 4:
            raise UserError("error.bad_choice", value=rated_min_people)
        updated = GuildSettings(
            guild_id=guild_id,
            language=current.language if language is None else one_of(language, LANGUAGES),
            preset=current.preset if preset is None else one_of(preset, tuple(engine.PRESETS), "error.bad_preset", preset=preset),
            deck=current.deck if deck is None else one_of(deck, DECK_STYLES, "error.bad_deck", deck=deck),
            turn_seconds=current.turn_seconds if turn_seconds is None else turn_seconds,
            ai_strength=current.ai_strength if ai_strength is None else one_of(ai_strength, AI_STRENGTHS),
            ai_delay_ms=current.ai_delay_ms if ai_delay_ms is None else ai_delay_ms,
            rated_min_people=current.rated_min_people if rated_min_people is None else rated_min_people,
            table_threads=current.table_threads if table_threads is None else table_threads,
            deal_review=current.deal_review if deal_review is None else deal_review,
            rule_changes=current.rule_changes,  # changed by update_guild_rules only
        )
        await self.db.settings.save_guild_settings(updated)
        return updated

    async def update_guild_rules(
        self,
        guild_id: int,
        *,
        preset: str | None = None,
        reset: bool = False,
        changes: Mapping[str, Any] | None = None,
    ) -> GuildSettings:
        """Change the rules new tables of the guild get: as ``set_table_rules`` does for a lobby (tables
        already open keep theirs). Nothing is stored when a value is refused."""
        current = await self.db.settings.get_guild_settings(guild_id)
        kept = {} if reset else dict(current.rule_changes)
        given = rulesettings.checked_changes(changes or {})
        chosen = current.preset if preset is None else preset
        rules = rulesettings.ruleset_of(chosen, {**kept, **given})
        # Settings that equal the preset's are dropped, so that what is stored is what differs.
        updated = replace(current, preset=rules.preset, rule_changes=rulesettings.changes_from_preset(rules))
        await self.db.settings.save_guild_settings(updated)
        return updated

    async def tally_between(self, guild_id: int, pair: tuple[int, int], opponents: tuple[int, int]) -> tuple[int, int]:
        return await self.db.stats.get_tally(guild_id, pair, opponents)

    async def tallies_of_pair(self, guild_id: int, pair: tuple[int, int]) -> list[Tally]:
        return await self.db.stats.tallies_of_pair(guild_id, pair)

    async def leaderboard(
        self, guild_id: int, sort: LeaderboardSort, min_games: int, offset: int, limit: int
    ) -> LeaderboardPage:
        return await self.db.stats.leaderboard(guild_id, sort, min_games, offset, limit)

    async def rank_of(
        self, guild_id: int, user_id: int, sort: LeaderboardSort, min_games: int
    ) -> LeaderboardEntry | None:
        return await self.db.stats.rank_of(guild_id, user_id, sort, min_games)

    async def default_leaderboard_sort(self, guild_id: int) -> LeaderboardSort:
        """By rating once some person of the guild has the rating board's minimum of rated Bummerl, else by
        Bummerl won."""
        return "rating" if await self.db.ratings.has_rated_person(guild_id, RATING_MIN_GAMES) else "bummerl"

    # --- messages ------------------------------------------------------------------------------------

    async def set_table_message(self, table_id: int, message_id: int) -> TableSnapshot | None:
        """Remember the table's message (of a closed table too; only an open one has a snapshot to return)."""
        async with self.lock(table_id):
            async with self.db.transaction():
                await self.db.tables.set_table_message(table_id, message_id)
            table = self._tables.get(table_id)
            if table is None:
                return None
            return self._publish(replace(table, row=replace(table.row, table_message_id=message_id)))

    async def forget_dm(self, table_id: int, seat: int, message_id: int) -> TableSnapshot | None:
        """The seat's hand message is gone: the next send puts up a new one. None if nothing changed."""
        async with self.lock(table_id):
            table = self._tables.get(table_id)
            occupant = None if table is None else table.seats[seat]
            if table is None or occupant is None or occupant.dm_message_id != message_id:
                return None
            async with self._guild_transaction(table):
                await self.db.seats.set_dm_message(table_id, seat, None, None)
            return self._publish(_with_seat(table, replace(occupant, dm_channel_id=None, dm_message_id=None)))

    async def set_dm(
        self, table_id: int, seat: int, user_id: int, deal_no: int, channel_id: int, message_id: int
    ) -> TableSnapshot | None:
        """Remember the seat's hand message for deal ``deal_no``; None when ``user_id`` no longer holds the
        seat or that deal is over (the caller then retires the message)."""
        async with self.lock(table_id):
            table = self._tables.get(table_id)
            occupant = None if table is None else table.seats[seat]
            if table is None or occupant is None or occupant.user_id != user_id or table.deal_no != deal_no:
                return None
            async with self._guild_transaction(table):
                await self.db.seats.set_dm_message(table_id, seat, channel_id, message_id)
            return self._publish(_with_seat(table, replace(occupant, dm_channel_id=channel_id, dm_message_id=message_id)))

    async def set_dms_closed(self, table_id: int, seat: int, user_id: int) -> TableSnapshot | None:
        """The player's DMs are closed (at the deal's first send or on any later edit): their hand is shown
        ephemerally in the channel from now on, and the channel is told once. None if nothing changed."""
        async with self.lock(table_id):
            table = self._tables.get(table_id)
            occupant = None if table is None else table.seats[seat]
            if table is None or occupant is None or occupant.user_id != user_id or occupant.dms_closed:
                return None
            async with self._guild_transaction(table):
                await self.db.seats.set_dms_closed(table_id, seat, True)
                await self.db.seats.set_dm_message(table_id, seat, None, None)
                await self._notice(table, "notice.dms_closed", mention=user_id)
            return await self._refresh(table)

    # --- a person's own choices (/schnapsen prefs) --------------------------------------------------------

    async def player_prefs(self, user_id: int) -> PlayerPrefs:
        """Where the person's hand lives and in which order it is shown (read once, then from memory)."""
        prefs = self.cached_prefs(user_id)
        if prefs is None:
            prefs = await self.db.prefs.get_player_prefs(user_id)
            self._remember_prefs(prefs)
        return prefs

    def cached_prefs(self, user_id: int) -> PlayerPrefs | None:
        """The person's choices if they were read already (the shell's synchronous paths), else None."""
        prefs = self._prefs.get(user_id)
        if prefs is not None:
            self._prefs.move_to_end(user_id)
        return prefs

    async def set_player_prefs(
        self, user_id: int, *, hand_place: str | None = None, hand_order: str | None = None
    ) -> PlayerPrefs:
        """Change the choices that are given (None keeps one); an unknown value changes nothing."""
        current = await self.player_prefs(user_id)
        updated = PlayerPrefs(
            user_id,
            hand_place=current.hand_place if hand_place is None else one_of(hand_place, HAND_PLACES),
            hand_order=current.hand_order if hand_order is None else one_of(hand_order, HAND_ORDERS),
        )
        await self.db.prefs.save_player_prefs(updated, self.now())
        self._remember_prefs(updated)
        return updated

    async def forget_person(self, user_id: int) -> Forgotten:
        """``/schnapsen forget-me``: delete what is the person's alone and take their name and id out of the
        records others played (bot/db/privacy.py), in one transaction. Refused while they sit at an open
        table: they leave it first (a lobby would show their name, a game would go on with it)."""
        if self.table_of_user(user_id) is not None:
            raise UserError("error.forget_seated")
        pseudonym = PSEUDONYM_CEILING - random.SystemRandom().getrandbits(52)
        try:
            forgotten = await self.db.privacy.forget_person(user_id, pseudonym)
        except AlreadySeated:  # at a table another process serves
            raise UserError("error.forget_seated") from None
        self._prefs.pop(user_id, None)
        # No id in the log: the person asked to be forgotten.
        log.info("forgot a person on request: %s", forgotten)
        return forgotten

    def _remember_prefs(self, prefs: PlayerPrefs) -> None:
        self._prefs[prefs.user_id] = prefs
        self._prefs.move_to_end(prefs.user_id)
        while len(self._prefs) > REMEMBERED_PREFS:
            self._prefs.popitem(last=False)


@contextlib.contextmanager
def _context_set(var: contextvars.ContextVar[HandedClick | None], value: HandedClick) -> Iterator[None]:
    token = var.set(value)
    try:
        yield
    finally:
        var.reset(token)


def _with_seat(table: TableSnapshot, occupant: SeatRow) -> TableSnapshot:
    seats = list(table.seats)
    seats[occupant.seat] = occupant
    return replace(table, seats=seats_by_number(s for s in seats if s is not None))


def _archiving(payload: dict[str, object], row: TableRow) -> dict[str, object]:
    """A table's last announcement, which archives the thread the bot opened for it once delivered."""
    return payload if row.thread_parent_id is None else {**payload, "archive_thread": row.channel_id}


def check_turn_seconds(seconds: int) -> None:
    """A turn time from 15 s to an hour (a table's, or a server's default for new tables)."""
    if not 15 <= seconds <= 3600:
        raise UserError("error.bad_turn_time")


class Dealt(NamedTuple):
    """A deal stored inside a transaction, to be published only after the commit."""

    state: engine.DealState
    deal_no: int
    dealer: int

    def applied_to(self, table: TableSnapshot) -> TableSnapshot:
        return replace(
            table, deal=self.state, deal_no=self.deal_no, log=logged(table.log, "log.new_deal", dealer=self.dealer)
        )
