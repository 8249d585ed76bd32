"""The live table page's data and its updates.

``public_state`` is what the table message shows, built only from the public view
(``engine.view_for(deal, None)``): no card a player still holds ever goes into it. ``LiveHub`` listens to the
table core (``TableService.listen``) and hands each watcher of a table the newest state (a slow watcher skips
states, it never queues them); a table this process does not hold (another process's, with shards) is read
from storage whenever that process's notice says it moved (bot/web/notices.py), or its stored version is
seen to move (a look every 2 s where there are no notices)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import engine
from bot.db import Database
from bot.game.table import TableSnapshot, restore

from .words import (
    auction_lines,
    card_label,
    contract_name,
    doubling_lines,
    marriage_lines,
    result_text,
    seat_label,
    suit_label,
    team_label,
)

log = logging.getLogger(__name__)


def public_state(table: TableSnapshot, lang: str) -> dict[str, Any]:
    """The table as everybody at it sees it, in ``lang``: seats, score, and of the deal only its public view."""
    names = table.names()
    deck = table.deck
    state: dict[str, Any] = {
        "table": table.id,
        "version": table.version,
        "status": table.status,
        "deck": deck,
        "names": list(names),
        "seats": [seat_label(lang, seat) for seat in range(4)],
        "teams": [team_label(names, team, lang) for team in (0, 1)],
        "score": list(engine.displayed_score(table.rules, table.match.score)),
        "target": table.rules.target,
        "deal_no": table.deal_no,
        "deal": None,
    }
    if table.deal is None:
        return state
    view = engine.view_for(table.deal, None)
    shown: list[str] = []  # every card this state names, for the alt texts
    trick = [[seat, card] for seat, card in view.trick]
    last = view.last_trick
    last_trick = None if last is None or last.plays is None else {
        "plays": [[seat, card] for seat, card in last.plays], "winner": last.winner, "points": last.points,
    }
    face_up_plays = [(number, t) for number, t in enumerate(view.tricks, start=1) if t.plays is not None]
    face_up = [
        {"number": number, "plays": [[seat, card] for seat, card in t.plays or ()], "winner": t.winner}
        for number, t in face_up_plays
    ]
    shown += [card for _, card in view.trick]
    shown += [card for _, card in (last.plays if last is not None and last.plays is not None else ())]
    shown += [card for _, t in face_up_plays for _, card in t.plays or ()]
    if view.aufschlag_card is not None:
        shown.append(view.aufschlag_card)
    result = view.result
    state["deal"] = {
        "phase": view.phase,
        "dealer": view.dealer,
        "to_act": view.to_act,
        "hand_sizes": list(view.hand_sizes),
        "trump": view.trump,
        "trump_name": suit_label(view.trump, deck, lang),
        "aufschlag": view.aufschlag_card,
        "contract": contract_name(lang, view.contract),
        "declarer": view.declarer,
        "multiplier": view.multiplier,
        "sitting_out": view.sitting_out,
        "auction": auction_lines(view.auction, names, lang),
        "doubling": doubling_lines(view.doubling, names, lang),
        "trick": trick,
        "last_trick": last_trick,
        "face_up": face_up,
        "team_tricks": list(view.team_tricks),
        "team_points": None if view.team_points is None else list(view.team_points),
        "marriages": marriage_lines(view.marriages, names, deck, lang),
        "result": None if result is None else {"winner": result.winner, "text": result_text(table, lang)},
        "finished": view.result is not None,
    }
    state["cards"] = {card: card_label(card, deck, lang) for card in dict.fromkeys(shown)}
    return state


@dataclass(eq=False, slots=True)
class Watcher:
    table_id: int
    lang: str
    latest: dict[str, Any] | None = None
    woken: asyncio.Event = field(default_factory=asyncio.Event)

    def offer(self, state: dict[str, Any]) -> None:
        self.latest = state
        self.woken.set()


@dataclass(eq=False, slots=True)
class Follower:
    """Reads another process's table from storage for its watchers here: when that process's notice says it
    moved (``LiveHub.stored_change``), else every ``poll_seconds``."""

    table_id: int
    version: int  # the stored version its watchers have
    nudged: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None


class LiveHub:
    """Who watches which table, and the newest state of each for them. A table this process serves is
    followed through the table core's changes (``table_changed``); another process's through storage, read
    once per change for all its watchers here (a ``Follower``), woken by that process's notice
    (``stored_change``, bot/web/notices.py) or, while there are none (SQLite, the listening connection
    down), every ``poll_seconds``; with notices, every ``safety_seconds`` besides."""

    def __init__(
        self,
        db: Database,
        held: Callable[[int], TableSnapshot | None],
        *,
        poll_seconds: float = 2.0,
        safety_seconds: float = 30.0,
        keepalive_seconds: float = 20.0,
        max_watchers: int = 2000,
    ) -> None:
        self.db = db
        self.held = held
        self.poll_seconds = poll_seconds
        self.safety_seconds = safety_seconds
        self.keepalive_seconds = keepalive_seconds
        self.max_watchers = max_watchers
        self.listening = False  # other processes' notices arrive (set by WebNotices)
        self._watchers: dict[int, set[Watcher]] = {}
        self._followers: dict[int, Follower] = {}
        self.closing = asyncio.Event()
        self.reads = 0  # tables read from storage for followers (tests, the bench)

    @property
    def watching(self) -> int:
        return sum(len(watchers) for watchers in self._watchers.values())

    def table_changed(self, before: TableSnapshot | None, after: TableSnapshot, events: tuple[object, ...]) -> None:
        """The table core's listener: called after every published change (cheap unless someone watches)."""
        self._offer(after)

    def _offer(self, table: TableSnapshot) -> None:
        watchers = self._watchers.get(table.id)
        if not watchers:
            return
        states: dict[str, dict[str, Any]] = {}  # one per language watched
        for watcher in watchers:
            if watcher.lang not in states:
                states[watcher.lang] = public_state(table, watcher.lang)
            watcher.offer(states[watcher.lang])

    def stored_change(self, table_id: int, version: int) -> None:
        """Another process stored a new version of the table (its notice): its follower here reads it."""
        follower = self._followers.get(table_id)
        if follower is not None and version != follower.version:
            follower.nudged.set()

    def set_listening(self, on: bool) -> None:
        """Notices arrive (True), or no longer (False: the followers poll). Either way every follower looks
        once now: a change may have been missed while they were not heard."""
        self.listening = on
        for follower in self._followers.values():
            follower.nudged.set()

    async def current(self, table_id: int) -> TableSnapshot | None:
        """The table as it stands: this process's snapshot, else rebuilt from storage."""
        table = self.held(table_id)
        if table is not None:
            return table
        row = await self.db.tables.get_table(table_id)
        if row is None:
            return None
        return restore(row, await self.db.seats.seats_of(table_id), await self.db.records.load_record(table_id))

    def full(self) -> bool:
        return self.watching >= self.max_watchers

    async def states(self, table_id: int, first: dict[str, Any], lang: str) -> AsyncIterator[dict[str, Any] | None]:
        """The table's newer states in ``lang`` as they come (None: nothing new for a while, time for a
        keep-alive); ends when the table is closed or the web app stops."""
        watcher = Watcher(table_id, lang)
        self._watchers.setdefault(table_id, set()).add(watcher)
        version = first["version"]
        try:
            if first["status"] == "closed":
                return
            self._follow(table_id, version)
            held = self.held(table_id)
            if held is not None and held.version > version:  # changed between ``first`` and now
                watcher.offer(public_state(held, lang))
            while not self.closing.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(watcher.woken.wait(), self.keepalive_seconds)
                watcher.woken.clear()
                state, watcher.latest = watcher.latest, None
                if state is None or (state["version"] <= version and state["status"] != "closed"):
                    yield None
                    continue
                version = state["version"]
                yield state
                if state["status"] == "closed":
                    return
        finally:
            watchers = self._watchers.get(table_id)
            if watchers is not None:
                watchers.discard(watcher)
                if not watchers:
                    del self._watchers[table_id]
                    self._unfollow(table_id)

    def _follow(self, table_id: int, version: int) -> None:
        if table_id in self._followers:
            return
        follower = Follower(table_id, version)
        follower.task = asyncio.get_running_loop().create_task(self._read_along(follower), name="live table follower")
        self._followers[table_id] = follower

    def _unfollow(self, table_id: int) -> None:
        follower = self._followers.pop(table_id, None)
        if follower is not None and follower.task is not None:
            follower.task.cancel()

    async def _read_along(self, follower: Follower) -> None:
        """While the table has watchers here: read it from storage when it moved, if another process serves it."""
        while not self.closing.is_set():
            wait = self.safety_seconds if self.listening else self.poll_seconds
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(follower.nudged.wait(), wait)
            follower.nudged.clear()
            if self.held(follower.table_id) is not None:
                continue  # this process serves it (now): its changes come through table_changed
            try:
                row = await self.db.tables.get_table(follower.table_id)
                if row is None or row.version == follower.version:
                    continue
                table = await self.current(follower.table_id)
            except Exception:
                log.warning("reading table %s for its live page failed", follower.table_id, exc_info=True)
                continue
            if table is None or self.held(follower.table_id) is not None:
                continue
            self.reads += 1
            follower.version = table.version
            self._offer(table)

    def close(self) -> None:
        self.closing.set()
        for follower in self._followers.values():
            follower.nudged.set()
        for watchers in self._watchers.values():
            for watcher in watchers:
                watcher.woken.set()
