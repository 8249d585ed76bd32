"""The table core: every change to a table goes through here, under that table's lock.

Order of work for a change: check (seat, turn, version, legality) -> engine.apply -> store the change and what
its subscribers make of its events in ONE transaction -> only then publish the table's new snapshot and tell
the listeners (before, after, events). Nothing is ever announced that is not stored. Snapshots are immutable:
the core replaces a table's snapshot after every commit and hands the new one back.

The core knows no subscriber: they are handed in (bot/game/subscribers/__init__.py registers them) and see
each change's domain events (bot/game/events.py) inside its transaction.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NamedTuple

import engine
from bot.db import AlreadySeated, ChannelBusy, Database, SeatRow, SeatTaken, TableRow
from bot.vocabulary import DECK_STYLES, LANGUAGES
from engine import Action
from engine.events import Event

from . import events as ev
from . import rulesettings
from .errors import UserError, check_turn_seconds, one_of
from .events import Change, DealPlan, Listener, Outcome, Subscriber, random_deals
from .table import TableSnapshot, log_events, logged, restore, rules_of, seats_by_number

if TYPE_CHECKING:  # the inbox's module reaches this one through the shard directory
    from .inbox import HandedClick

AI_NAMES = ("Sepp", "Resi", "Ferdl", "Mitzi")
log = logging.getLogger(__name__)


class TableCore:
    def __init__(
        self,
        db: Database,
        *,
        subscribers: Iterable[Callable[[Database], Subscriber]] = (),
        clock: Callable[[], float] = time.time,
        seed_source: Callable[[], int] | None = None,
        deal_plan: DealPlan = random_deals,
    ) -> None:
        self.db = db
        self.deal_plan = deal_plan
        self.clock = clock
        rng = random.SystemRandom()
        self.new_seed = seed_source or (lambda: rng.getrandbits(62))
        self.subscribers = tuple(make(db) for make in subscribers)
        self._listeners: list[Listener] = []
        self._tables: dict[int, TableSnapshot] = {}  # table id -> the table's current snapshot
        self._locks: dict[int, asyncio.Lock] = {}

    def now(self) -> int:
        return int(self.clock())

    def lock(self, table_id: int) -> asyncio.Lock:
        lock = self._locks.get(table_id)
        if lock is None:
            lock = asyncio.Lock()
            if table_id in self._tables:  # a closed table's lock is not kept: everything on it is refused anyway
                self._locks[table_id] = lock
        return lock

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Tell ``listener`` of every change published from now on (the shell redraws from that alone), until
        the returned function is called."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    # --- the tables held -----------------------------------------------------------------------------

    def held(self, table_id: int) -> TableSnapshot | None:
        """The table's current snapshot, closed or not, while it is held."""
        return self._tables.get(table_id)

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

    def table_in_channel(self, channel_id: int) -> TableSnapshot | None:
        return next((table for table in self.open_tables() if table.row.channel_id == channel_id), None)

    def table_of_user(self, user_id: int) -> TableSnapshot | None:
        return next((table for table in self.open_tables() if table.seat_of(user_id) is not None), None)

    # --- storing, publishing -------------------------------------------------------------------------

    async def store(
        self,
        row: TableRow,
        *steps: Callable[[], Awaitable[Sequence[ev.TableEvent]]],
        guild_only: bool = False,
    ) -> tuple[ev.TableEvent, ...]:
        """Run each step and the subscribers on its events, in one transaction; the change's events. A later
        step builds on what the subscribers wrote for an earlier one (the next deal follows the stored result).
        ``guild_only``: the change writes only the table's rows and its guild's statistics, tallies and ratings,
        and checks nothing across guilds (a move, an idle warning, a hand message): on PostgreSQL it overlaps
        with other processes' changes in other guilds."""
        changes: tuple[ev.TableEvent, ...] = ()
        async with self.db.transaction(guild_id=row.guild_id if guild_only else None):
            for step in steps:
                events = tuple(await step())
                if events:  # a step that did nothing (no deal ended) has nothing to subscribe to
                    now = self.now()
                    for subscriber in self.subscribers:
                        events += tuple(await subscriber(Change(row, events, now)))
                changes += events
        return changes

    def publish(
        self, table: TableSnapshot, before: TableSnapshot | None = None, events: tuple[ev.TableEvent, ...] = ()
    ) -> TableSnapshot:
        """Make ``table`` the table's current snapshot (only ever after its change was committed) and tell the
        listeners of the change's ``events`` (none: a snapshot loaded, nothing happened)."""
        self._tables[table.id] = table
        if events:
            for listener in self._listeners:
                try:
                    listener(before, table, events)
                except Exception:  # the change is stored and published; a listener's failure is its own
                    log.exception("table %s: a listener of its changes failed", table.id)
        return table

    async def refresh(
        self, table: TableSnapshot, before: TableSnapshot | None = None, events: tuple[ev.TableEvent, ...] = ()
    ) -> TableSnapshot:
        """Publish ``table`` with its row and seats read back after a committed change (the engine state is
        unaffected)."""
        row = await self.db.tables.get_table(table.id)
        assert row is not None
        seats = seats_by_number(await self.db.seats.seats_of(table.id))
        return self.publish(replace(table, row=row, rules=rules_of(row), seats=seats), before, events)

    async def load(
        self, row: TableRow, before: TableSnapshot | None = None, events: tuple[ev.TableEvent, ...] = ()
    ) -> TableSnapshot:
        """Publish the table replayed from storage."""
        seats = await self.db.seats.seats_of(row.id)
        record = await self.db.records.load_record(row.id)
        return self.publish(restore(row, seats, record), before, events)

    def forget(self, table_id: int) -> None:
        """A closed table leaves memory, its lock too (whoever still waits on it finds the table gone)."""
        self._tables.pop(table_id, None)
        self._locks.pop(table_id, None)

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
        first_dealer: int | None = None,
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
                    first_dealer=random.randrange(4) if first_dealer is None else first_dealer,
                    now=self.now(),
                    thread_parent_id=thread_parent_id,
                    practice=practice,
                )
                await self.db.seats.take_seat(row.id, 0, host_id, host_name)
        except ChannelBusy:
            raise UserError("error.channel_busy") from None
        except AlreadySeated as err:
            raise UserError("error.already_seated", channel=0) from err
        return await self.load(row, None, (ev.TableOpened(host_id),))

    def check_may_host(self, user_id: int) -> None:
        """A person seated at an open table cannot open another (checked before a thread is made for one)."""
        if (busy := self.table_of_user(user_id)) is not None:
            raise UserError("error.already_seated", channel=busy.row.channel_id)

    async def discard_new_table(self, table_id: int) -> None:
        """Undo ``open_table`` for a lobby whose thread could not be used: it leaves storage and memory as if
        it had never been opened (a lobby that has moved on meanwhile is closed instead)."""
        async with self.lock(table_id):
            if not await self.db.tables.delete_new_table(table_id):
                async with self.db.transaction():
                    await self.db.tables.set_status(table_id, "closed", self.now())
            self.forget(table_id)

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
            chosen = seat

            async def sit() -> list[ev.TableEvent]:
                if table.seats[chosen] is not None:
                    await self.db.seats.leave_seat(table.id, chosen)  # an AI makes room for a person
                await self.db.seats.take_seat(table.id, chosen, user_id, name)
                await self.db.tables.bump_version(table.id, self.now())
                return [ev.SeatTaken(chosen, user_id)]

            try:
                events = await self.store(table.row, sit)
            except (SeatTaken, AlreadySeated):
                raise UserError("error.seat_taken") from None
            return await self.refresh(table, table, events)

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

            async def seat_ai() -> list[ev.TableEvent]:
                await self.db.seats.set_ai_seat(table.id, target, AI_NAMES[target])
                await self.db.tables.bump_version(table.id, self.now())
                return [ev.SeatTaken(target, None)]

            return await self.refresh(table, table, await self.store(table.row, seat_ai))

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

            async def stand_up() -> list[ev.TableEvent]:
                assert seat is not None and occupant is not None
                events: list[ev.TableEvent] = [ev.SeatLeft(occupant)]
                if table.status == "lobby":
                    await self.db.seats.leave_seat(table.id, seat)
                else:
                    await self.db.seats.set_ai_seat(table.id, seat, f"{AI_NAMES[seat]} ({occupant.display_name})")
                await self.db.tables.bump_version(table.id, self.now())
                if not others:
                    await self.db.tables.set_status(table.id, "closed", self.now())
                    events.append(ev.TableClosed("notice.closed_abandoned"))
                elif user_id == table.row.host_id:
                    heir = min(others, key=lambda s: (s.seat - seat) % 4)  # the next person round the table
                    assert heir.user_id is not None
                    await self.db.tables.set_host(table.id, heir.user_id, self.now())
                    events.append(ev.HostChanged(heir.user_id, heir.display_name))
                return events

            after = await self.refresh(table, table, await self.store(table.row, stand_up))
            if after.status == "closed":
                self.forget(table.id)
            return after, occupant

    async def set_practice(self, table_id: int, user_id: int, practice: bool) -> TableSnapshot:
        """The host makes the lobby a practice table (hints; no statistic or rating) or a normal one."""
        async with self.lock(table_id):
            table = hosted_lobby(self.get(table_id), user_id)

            async def write() -> list[ev.TableEvent]:
                await self.db.tables.set_practice(table.id, practice)
                await self.db.tables.bump_version(table.id, self.now())
                return [ev.LobbyChanged()]

            return await self.refresh(table, table, await self.store(table.row, write))

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

            async def write() -> list[ev.TableEvent]:
                if not await self.db.tables.set_lobby_rules(table.id, json.dumps(engine.ruleset_to_json(rules)), self.now()):
                    raise UserError("error.rules_locked")
                await self.db.tables.bump_version(table.id, self.now())
                return [ev.LobbyChanged()]

            events = await self.store(table.row, write)
            row = await self.db.tables.get_table(table.id)
            assert row is not None
            return await self.load(row, table, events)  # the match is rebuilt with the new rules

    async def start(self, table_id: int, user_id: int) -> TableSnapshot:
        """The host starts: empty seats get AI players, and the first deal is dealt."""
        async with self.lock(table_id):
            table = hosted_lobby(self.get(table_id), user_id)
            return await self._deal_first(table, rematch=False)

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
            return await self._deal_first(table, rematch=True)

    async def _deal_first(self, table: TableSnapshot, *, rematch: bool) -> TableSnapshot:
        """Start (empty seats get AI players) or play on after a Bummerl: the table plays, a deal is dealt."""
        dealt: list[Dealt] = []

        async def write() -> list[ev.TableEvent]:
            for seat, occupant in enumerate(table.seats):
                if occupant is None:
                    await self.db.seats.set_ai_seat(table.id, seat, AI_NAMES[seat])
            await self.db.tables.set_status(table.id, "playing", self.now())
            if (first := await self.deal_next(table)) is None:
                raise UserError("error.no_rematch_now")  # its planned deals are all played
            dealt.append(first)
            return [ev.TableStarted(rematch), ev.DealDealt(first.deal_no, first.dealer)]

        events = await self.store(table.row, write)
        return await self.refresh(dealt[0].applied_to(table), table, events)

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

            async def write() -> list[ev.TableEvent]:
                await self.db.tables.set_status(table.id, "closed", self.now())
                return [ev.TableClosed(reason_key)]

            events = await self.store(table.row, write)
            closed = await self.refresh(table, table, events)
            self.forget(table.id)
            return closed

    async def deal_next(self, table: TableSnapshot) -> Dealt | None:
        """Store the next deal inside the caller's transaction (None: the table's planned deals are over); the
        caller applies the result to memory only after the commit."""
        deal_no = table.deal_no + 1
        if (seed := await self.deal_plan(table.row, deal_no, self.new_seed)) is None:
            return None
        dealer = table.match.next_dealer
        hands = engine.deal_hands(seed, dealer)
        await self.db.records.start_deal(table.id, deal_no, dealer, seed, hands, self.now())
        await self.db.tables.bump_version(table.id, self.now())
        await self.db.seats.clear_dm_messages(table.id)
        return Dealt(engine.new_deal(table.rules, dealer, hands), deal_no, dealer)

    # --- playing ---------------------------------------------------------------------------------

    async def act(
        self,
        table_id: int,
        seat: int,
        action: Action,
        version: int,
        *,
        user_id: int | None,
        handed: HandedClick | None = None,
        ahead: Callable[[TableSnapshot], None] | None = None,
    ) -> Outcome:
        """Apply one action for ``seat``. ``user_id`` None means the AI acts for the seat; ``handed``: the
        click was handed over by another process (it leaves the inbox with the move); ``ahead``: told the table the
        move makes, once it is found legal and before its commit (its version counted; work need not wait).

        Raises UserError (stale button, not your seat/turn, illegal) and changes nothing then, except that
        a person the AI stood in for has their seat back. The action, what its subscribers write (the deal's
        result, statistics, tallies, what must be announced) and the next deal (or the table's new status)
        are stored in ONE transaction; memory changes only after it committed.
        """
        async with self.lock(table_id):
            table = self.get(table_id)
            occupant = table.seats[seat]
            theirs = user_id is not None and occupant is not None and occupant.user_id == user_id
            try:
                new_state, events = checked_move(table, seat, action, version, user_id)
            except UserError:
                if theirs and occupant is not None and occupant.ai_takeover:  # their click says they are back

                    async def take_back() -> list[ev.TableEvent]:
                        await self.db.seats.set_takeover(table.id, seat, False)
                        await self.db.seats.set_warned(table.id, seat, False)
                        return [ev.SeatReclaimed(seat)]

                    await self.refresh(table, table, await self.store(table.row, take_back, guild_only=True))
                raise
            back = theirs and occupant is not None and (occupant.ai_takeover or occupant.warned)
            # The commit and the snapshot published after it must not be torn apart by a cancellation.
            return await asyncio.shield(
                self._commit_action(table, seat, action, new_state, events, back, handed, ahead)
            )

    async def _commit_action(
        self,
        table: TableSnapshot,
        seat: int,
        action: Action,
        new_state: engine.DealState,
        events: tuple[Event, ...],
        back: bool,
        handed: HandedClick | None,
        ahead: Callable[[TableSnapshot], None] | None,
    ) -> Outcome:
        text = engine.format_action(seat, action)
        finished = new_state if new_state.finished else None
        match, bummerl = table.match, None
        if finished is not None:
            assert finished.result is not None
            match, bummerl = engine.score_deal(table.match, finished.result)
        now = self.now()
        played = replace(
            table, deal=new_state, match=match, log=log_events(table.log, events),
            last_bummerl=bummerl if finished is not None else table.last_bummerl,
        )  # fmt: skip
        # The table as it stood when the deal ended (before the next deal), for its result message.
        deal_end = None if finished is None else played
        # Its version counted as the write counts it: then the snapshot made ahead is the one published.
        moved = replace(played, row=replace(table.row, version=table.version + 1, updated_at=now))
        if ahead is not None:
            try:
                ahead(moved)
            except Exception:  # work ahead is only ever a head start: the move goes on
                log.exception("table %s: work ahead of a move's commit failed", table.id)
        dealt: list[Dealt] = []
        stored: list[tuple[int, int]] = []

        async def write() -> list[ev.TableEvent]:
            changes: list[ev.TableEvent] = [ev.ActionTaken(seat, action, events)]
            stored.append(await self.db.records.append_move(table.id, table.deal_no, text, now))
            if handed is not None:
                await self.db.inbox.click_done(handed.id)  # stored with its move: a crash never runs it twice
            if back:
                await self.db.seats.set_takeover(table.id, seat, False)  # acting takes an idle seat back
                await self.db.seats.set_warned(table.id, seat, False)
                changes.append(ev.SeatReclaimed(seat))
            if deal_end is not None:
                changes.append(ev.DealEnded(deal_end))
                if bummerl is not None:
                    changes.append(ev.BummerlEnded(deal_end, bummerl))
            return changes

        async def play_on() -> list[ev.TableEvent]:
            """After a deal's result is stored: the Bummerl is over, or the next deal is dealt."""
            if deal_end is None:
                return []
            if bummerl is not None:
                await self.db.tables.set_status(table.id, "finished", now)
                return []
            if (following := await self.deal_next(played)) is None:  # its dealer follows the new match state
                await self.db.tables.set_status(table.id, "closed", now)
                return [ev.TableClosed("notice.closed_deals_played")]
            dealt.append(following)
            return [ev.DealDealt(following.deal_no, following.dealer)]

        if handed is None and not back and deal_end is None:  # a card or a bid that ends nothing: one write, in full
            guild_id = table.row.guild_id
            stored.append(await self.db.records.append_move(table.id, table.deal_no, text, now, guild_id=guild_id))
            changes: tuple[ev.TableEvent, ...] = (ev.ActionTaken(seat, action, events),)
        else:
            changes = await self.store(table.row, write, play_on, guild_only=True)
        if handed is not None:
            handed.deleted = True
        seq, new_version = stored[0]
        # DEBUG: an INFO line per click would be millions of lines a day on a busy bot.
        log.debug("accepted table=%d deal=%d seq=%d action=%s", table.id, table.deal_no, seq, text)
        moved = moved if new_version == moved.version else replace(moved, row=replace(moved.row, version=new_version))
        after = moved if not dealt else dealt[0].applied_to(moved)
        if finished is not None or back:  # seats, status or the version of a new deal changed: read them back
            try:
                after = await self.refresh(after, table, changes)
            except BaseException:
                self.publish(after, table, changes)  # the change is stored: what is held must not stay behind
                raise
        else:  # the common case, a card or a bid: only the version moved (no need to read it back)
            self.publish(after, table, changes)
        if after.status == "closed":
            self.forget(table.id)
        return Outcome(after, seat, action, events, finished, bummerl, bool(dealt), deal_end, changes)

def checked_move(
    table: TableSnapshot, seat: int, action: Action, version: int, user_id: int | None
) -> tuple[engine.DealState, tuple[Event, ...]]:
    """The deal after ``seat`` took ``action`` at position ``version``, with the engine's events; the user's
    error when the table or the seat cannot act so."""
    deal = table.deal
    if table.status != "playing" or deal is None or deal.finished:
        raise UserError("error.no_deal_running")
    occupant = table.seats[seat]
    if user_id is not None and (occupant is None or occupant.user_id != user_id):
        raise UserError("error.not_your_seat")
    if version != table.version:
        raise UserError("error.stale")
    try:
        return engine.apply(deal, seat, action)
    except engine.RulesError as err:
        raise UserError(f"rules.{err.code}", message=err.message) from None


def hosted_lobby(table: TableSnapshot, user_id: int) -> TableSnapshot:
    """The table, when it is a lobby and ``user_id`` its host; the user's error otherwise."""
    if table.status != "lobby":
        raise UserError("error.not_in_lobby")
    if user_id != table.row.host_id:
        raise UserError("error.host_only")
    return table


class Dealt(NamedTuple):
    """A deal stored inside a transaction, to be published only after the commit."""

    state: engine.DealState
    deal_no: int
    dealer: int

    def applied_to(self, table: TableSnapshot) -> TableSnapshot:
        return replace(
            table, deal=self.state, deal_no=self.deal_no, log=logged(table.log, "log.new_deal", dealer=self.dealer)
        )
