"""Running the real bot against the fake Discord: one guild, one channel, users, and helpers that act as a
person would (type a command, read the DM, press a button)."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import os
import random
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import discord

import engine
from bot.client import SchnapsenBot, make_bot
from bot.db import SeatRow, TableRecord, TableRow
from bot.game.table import TableSnapshot
from bot.schnapsen.components import GAME_VERBS
from bot.schnapsen.ids import ButtonId
from bot.settings import Settings
from devtools.fakediscord import FakeDiscord, FakeInteraction, FakeMessage, FakeUser

MANAGE_GUILD = discord.Permissions(manage_guild=True).value
SEAT_NAMES = ("North", "East", "South", "West")
HAND_TITLE = "Your hand"
# The bot's start (its database opened and migrated, its AI worker processes spawned, the commands synced) takes
# about a second, three with five bots starting on one loaded core: the fake's 5 s default is too short there.
BOT_START_SECONDS = 30.0
DEFERRED = (5, 6)  # "thinking" and "update later": the visible answer comes as a follow-up


def test_settings(db_path: Path, **changes: Any) -> Settings:
    """No pacing: edits, AI moves and sweeps happen as fast as the tests can await them. Commits need not
    survive a power cut here (NORMAL saves an fsync per action)."""
    base = Settings(
        token="fake-token",
        database_path=str(db_path),
        edit_interval=0.0,
        lobby_timeout=3600.0,
        abandoned_timeout=3600.0,
        sweep_interval=3600.0,
        ai_budget_ms=20,
        ai_hard_cap_ms=500,
        throttle_actions=1000,
        db_synchronous="NORMAL",
        identify_interval=0.0,
        # One AI worker process per bot: pytest-xdist runs a test per core already, and each worker is a Python
        # spawned at the bot's start (two per bot cost a fifth more CPU in the end-to-end tests).
        ai_workers=1,
        daily_par_ahead=False,  # no day's par at every start: a test's attempt asks for its day's
        freeze_start_heap=False,
    )
    return dataclasses.replace(base, **changes)


def chosen_seeds() -> Callable[[], int]:
    """The deals of a test: the same every run (seeded by the test's name, and by SCHNAPSEN_TEST_SEEDS if set,
    to try other deals), never whatever the system's randomness deals. A test that needs a deal to take a
    given course sets its own seed (``bot.service.new_seed``)."""
    test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]
    key = f"{test}|{os.environ.get('SCHNAPSEN_TEST_SEEDS', '')}"
    draws = random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))
    return lambda: draws.getrandbits(62)


def wake_on_changes(bot: SchnapsenBot, fake: FakeDiscord) -> None:
    """Tests wait for the bot's tables too (a status, a version, a stored DM id), and ``fake.wait_for``
    looks again only when the fake sees a request: the table core tells its listeners of every change it
    publishes, and this one tells the fake to look again, so that a change followed by no request is not
    missed. What the bot keeps beside its tables (its jobs, timers, the tournament runner) is not published:
    a test awaits that through an event of its own."""
    waking: set[asyncio.Task[None]] = set()

    def changed(before: TableSnapshot | None, after: TableSnapshot, events: tuple[object, ...]) -> None:
        task = asyncio.get_running_loop().create_task(fake.changed())
        waking.add(task)
        task.add_done_callback(waking.discard)

    bot.service.listen(changed)


def game_buttons(message: FakeMessage, *, enabled_only: bool = True) -> list[dict[str, Any]]:
    """The buttons on a hand message that act in the game (trump, bid, double, play, ...)."""
    found = []
    for button in message.buttons:
        parsed = ButtonId.parse(str(button.get("custom_id", "")))
        if parsed is not None and parsed.verb in GAME_VERBS and not (enabled_only and button.get("disabled")):
            found.append(button)
    return found


def _version_or_none(button: dict[str, Any]) -> int | None:
    parsed = ButtonId.parse(str(button.get("custom_id", "")))
    return None if parsed is None else parsed.version


def button_version(button: dict[str, Any]) -> int:
    parsed = ButtonId.parse(button["custom_id"])
    assert parsed is not None
    return parsed.version


def current_button(message: FakeMessage | None, version: int) -> dict[str, Any] | None:
    """The first enabled game button made for the position ``version``, if the message shows one."""
    if message is None:
        return None
    for button in game_buttons(message):
        if button_version(button) == version:
            return button
    return None


def first_deal_over(table: TableSnapshot | None) -> bool:
    """The table's first deal is over: the next one is dealt, or it was the whole Bummerl (a Schnapser with
    Kontra and Re is worth 24 points at once: the table then waits for a rematch at deal 0), or it closed."""
    return table is None or table.deal_no >= 1 or table.status != "playing"


RESULT_VERBS = ("review",)  # the buttons a deal's result message carries


def is_result_message(message: FakeMessage) -> bool:
    verbs = {parsed.verb for b in message.buttons if (parsed := ButtonId.parse(str(b.get("custom_id", ""))))}
    return bool(verbs) and verbs <= set(RESULT_VERBS)


def refusals(click: FakeInteraction) -> list[FakeMessage]:
    """The bot's ephemeral answers to a click: it was refused (in the click's own answer, or in a follow-up
    where it was acknowledged first). A follow-up that is not ephemeral is the clicker's next hand DM, sent
    through the click's token."""
    answered = [click.original] if click.response_type == 4 and click.original is not None else []
    return [message for message in [*answered, *click.followups] if message.ephemeral]


def is_hand_message(message: FakeMessage) -> bool:
    return bool(message.embeds) and str(message.embeds[0].get("title", "")).startswith(HAND_TITLE)


async def reply_to(interaction: FakeInteraction) -> FakeMessage:
    """The message that answers ``interaction`` (its first follow-up after a defer, else the response itself;
    later follow-ups, such as the hand `/schnapsen prefs` shows after its answer, are not the answer)."""
    response = await interaction.wait_response()
    if response.type in DEFERRED:
        return (await interaction.wait_followups(1))[0]
    return await interaction.wait_original()


async def ephemeral_reply(interaction: FakeInteraction) -> str:
    """The text of an ephemeral answer; fails if the answer was visible to everyone."""
    message = await reply_to(interaction)
    assert message.ephemeral, f"{interaction.describe()} was answered publicly: {message.visible_text!r}"
    return message.content


def another_card(custom_id: str, cards: Iterable[str] = engine.DECK) -> str:
    """The play button, at the table and position of the game button ``custom_id``, of the first of ``cards``
    that is not its card: what a client still showing that position offers beside the card clicked."""
    button = ButtonId.parse(custom_id)
    assert button is not None, custom_id
    card = next(card for card in cards if card != button.arg[:2])
    return str(ButtonId(button.table, button.version, "play", card))


def as_shown(message: FakeMessage, components: list[dict[str, Any]]) -> FakeMessage:
    """``message`` as a client claims it looks: with ``components`` instead of what it shows now.

    discord.py runs a DynamicItem only when the clicked custom_id is on the message the event carries, so a
    forged or outdated button is clicked on such a copy (the fake's stored message stays as it is).
    """
    copy = FakeMessage(
        message.fake,
        message.id,
        message.channel,
        message.author,
        message_type=message.type,
        interaction=message.interaction,
    )
    copy.content, copy.embeds, copy.flags = message.content, list(message.embeds), message.flags
    copy.attachments, copy.components = list(message.attachments), components
    return copy


def with_button(message: FakeMessage, custom_id: str, label: str = "?") -> FakeMessage:
    """``message`` as a tampered client shows it: one button carrying ``custom_id``."""
    row = {"type": 1, "components": [{"type": 2, "style": 1, "label": label, "custom_id": custom_id}]}
    return as_shown(message, [row])


class CurrentTable:
    """A table of the running bot as it stands NOW: every attribute is read from the service's current
    snapshot (snapshots never change; the service publishes a new one after every change). For tests that
    follow one table through a game; the bot itself only ever reads snapshots."""

    def __init__(self, world: Table, table_id: int) -> None:
        self._world = world
        self.id = table_id

    def now(self) -> TableSnapshot | None:
        """The current snapshot, None once the table is closed."""
        assert self._world.bot is not None, "the bot is not running"
        return self._world.bot.service.snapshot(self.id)

    def snapshot(self) -> TableSnapshot:
        table = self.now()
        assert table is not None, f"table {self.id} is closed"
        return table

    def __getattr__(self, name: str) -> Any:
        return getattr(self.snapshot(), name)


@dataclasses.dataclass(frozen=True)
class Stored:
    """What the database holds for a table: compared before and after a refused click."""

    row: TableRow
    seats: list[SeatRow]
    record: TableRecord


class Table:
    """One guild, one channel and a bot, as the test's world."""

    def __init__(
        self, fake: FakeDiscord, db_path: Path, *, guild_shard: tuple[int, int] | None = None, **settings: Any
    ) -> None:
        """``guild_shard=(id, count)``: the guild is on that Discord shard (for tests of sharded bots)."""
        self.fake = fake
        self.db_path = db_path
        self.settings = test_settings(db_path, **settings)
        self.admin = fake.add_user("admin")
        self.guild = fake.add_guild("Wirtshaus", owner=self.admin, shard=guild_shard)
        self.channel = self.guild.add_text_channel("schnapsen")
        self.bot: SchnapsenBot | None = None
        self.users: dict[int, FakeUser] = {}
        self.new_seed = chosen_seeds()  # the world's deals, across the bot's restarts
        fake.diagnostics.append(self.where_it_stands)  # every wait that times out says where the tables stood

    def where_it_stands(self) -> str:
        """What a test stuck waiting needs to tell why: each open table's position, each player's stored hand
        message and the buttons their newest DMs show, and the bot's jobs still running."""
        if self.bot is None:
            return "the bot is not running"
        lines = []
        for now in self.bot.service.open_tables():
            deal = now.deal
            lines.append(
                f"table {now.id} in channel {now.channel_id}: version {now.version}, deal {now.deal_no}, "
                f"status {now.status}, phase {None if deal is None else deal.phase}, "
                f"to act {None if deal is None else deal.to_act}"
            )
            for seat, occupant in enumerate(now.seats):
                if occupant is None:
                    continue
                user = self.users.get(occupant.user_id or 0)
                who = "AI" if user is None else user.name
                lines.append(f"  seat {seat}: {who}, stored hand message {occupant.dm_message_id}")
                for message in [] if user is None else self.fake.dm_messages(user)[-2:]:
                    shown = [(b.get("label"), _version_or_none(b), bool(b.get("disabled"))) for b in message.buttons]
                    lines.append(f"    DM {message.id}: buttons {shown}")
        if not lines:
            lines.append("no open table")
        messages = self.bot.runtime.messages
        lines.append(f"edits running: {sorted(map(str, messages.edits.running()))}")
        lines.append(f"sends running: {sorted(map(str, messages.sends.running()))}")
        lines.append(f"drives running: {sorted(map(str, self.bot.runtime.drivers.drives.running()))}")
        return "\n".join(lines)

    def add_player(self, name: str, **options: Any) -> FakeUser:
        user = self.fake.add_user(name, **options)
        self.guild.add_member(user)
        self.users[user.id] = user
        return user

    async def start_bot(self) -> SchnapsenBot:
        self.bot = make_bot(self.settings)
        try:
            await self.fake.start_client(self.bot, timeout=BOT_START_SECONDS)
        except BaseException:
            self.bot = None  # start_client closed it: the world's teardown must not close it again
            raise
        wake_on_changes(self.bot, self.fake)
        self.bot.service.new_seed = self.new_seed
        return self.bot

    async def stop_bot(self) -> None:
        assert self.bot is not None
        await self.fake.stop_client(self.bot)
        self.bot = None

    @property
    def live(self) -> TableSnapshot:
        """The bot's current snapshot of this channel's table (to know whose turn it is, as the table message
        says)."""
        assert self.bot is not None
        table = self.bot.service.table_in_channel(self.channel.id)
        assert table is not None, "no open table in the channel"
        return table

    async def stored(self, table_id: int) -> Stored:
        assert self.bot is not None
        row = await self.bot.db.tables.get_table(table_id)
        assert row is not None
        return Stored(row, await self.bot.db.seats.seats_of(table_id), await self.bot.db.records.load_record(table_id))

    async def action_count(self, table_id: int) -> int:
        assert self.bot is not None
        record = await self.bot.db.records.load_record(table_id)
        return sum(len(deal.actions) for deal in record.deals)

    async def command(self, user: FakeUser, *path: str, **options: Any) -> Any:
        interaction = await self.fake.slash(user, self.channel, "schnapsen", *path, **options)
        response = await interaction.wait_response()
        if response.type == 5:  # deferred ("thinking"): the answer is a follow-up
            await interaction.wait_followups(1)
        return interaction

    def forget_table_clicks(self) -> None:
        """As a quarter of an hour after the latest click on the table message (Start, Rematch): the bot edits
        it with the bot token, where a test's injected faults on the channel's messages meet it."""
        assert self.bot is not None
        self.bot.runtime.messages.table_clicks.forget_where(lambda _: True)

    async def no_ai_delay(self) -> None:
        await self.command(self.admin, "settings", ai_delay_ms=0)

    def table_message_now(self) -> FakeMessage | None:
        """The newest message in the channel that carries table buttons (and an embed: a turn notice carries
        a table button too; a result's buttons do not count)."""
        messages = [
            m
            for m in self.channel.messages
            if m.embeds and any(b.get("custom_id", "").startswith("bs:") for b in m.buttons) and not is_result_message(m)
        ]
        return messages[-1] if messages else None

    async def table_message(self, predicate: Any = None) -> FakeMessage:
        def find() -> FakeMessage | None:
            message = self.table_message_now()
            return message if message is not None and (predicate is None or predicate(message)) else None

        return await self.fake.wait_for(find, what="the table message")

    async def latest_dm(self, user: FakeUser, predicate: Any = None) -> FakeMessage:
        def find() -> FakeMessage | None:
            dms = self.fake.dm_messages(user)
            if not dms:
                return None
            latest = dms[-1]
            return latest if predicate is None or predicate(latest) else None

        return await self.fake.wait_for(find, what=f"a DM to {user.name}")

    def channel_texts(self) -> list[str]:
        return [m.visible_text for m in self.channel.messages]

    # --- setting a table up ------------------------------------------------------------------------------

    async def change_lobby(
        self, *, target: int | None = None, turn_seconds: int | None = None, first_dealer: int | None = None
    ) -> TableSnapshot:
        """Store settings the commands do not offer (a short Bummerl, a turn of a second, who deals first) for
        the lobby of this channel, and reload it from the database the way a restart restores it."""
        assert self.bot is not None
        table = self.live
        assert table.status == "lobby"
        db = self.bot.db
        async with db.transaction():
            if target is not None:
                rules = json.dumps({"preset": table.rules.preset, "target": target})
                await db.core.execute("UPDATE game_tables SET rules_json = ? WHERE id = ?", (rules, table.id))
            if turn_seconds is not None:
                await db.core.execute(
                    "UPDATE game_tables SET turn_seconds = ? WHERE id = ?", (turn_seconds, table.id)
                )
            if first_dealer is not None:
                await db.core.execute(
                    "UPDATE game_tables SET first_dealer = ? WHERE id = ?", (first_dealer, table.id)
                )
        row = await db.tables.get_table(table.id)
        assert row is not None
        return await self.bot.service.load(row)

    async def open_table(
        self,
        host: FakeUser,
        guests: Iterable[FakeUser | None] = (),
        *,
        start: bool = True,
        target: int | None = None,
        turn_seconds: int | None = None,
        first_dealer: int | None = None,
        **new_options: Any,
    ) -> CurrentTable:
        """``host`` opens a table (North); each guest takes the next seat, None adds an AI player there.
        ``target`` shortens the Bummerl (game points to win it) so that tests play whole ones quickly;
        ``first_dealer`` fixes who deals first, and ``new_options`` go to `/schnapsen new`.
        Returns the table as it will stand whenever it is read."""
        await self.command(host, "new", **new_options)
        if target is not None or turn_seconds is not None or first_dealer is not None:
            await self.change_lobby(target=target, turn_seconds=turn_seconds, first_dealer=first_dealer)
        for seat, guest in enumerate(guests, start=1):
            lobby = await self.table_message()
            if guest is None:
                click = await self.fake.click(host, lobby, label="Add AI player")
            else:
                click = await self.fake.click(guest, lobby, label=f"Sit {SEAT_NAMES[seat]}")
            await click.wait_response()
            await self.fake.wait_for(lambda seat=seat: self.live.seats[seat] is not None, what=f"seat {seat}")
        table = CurrentTable(self, self.live.id)
        if start:
            click = await self.fake.click(host, await self.table_message(), label="Start")
            await click.wait_response()
            await self.fake.wait_for(lambda: table.status == "playing", what="the game to start")
        return table

    async def rematch(self, host: FakeUser) -> None:
        """The host deals a rematch with the finished table's Rematch button, and it plays."""
        table = CurrentTable(self, self.live.id)
        ended = await self.table_message(lambda m: any(b.get("label") == "Rematch" for b in m.buttons))
        click = await self.fake.click(host, ended, label="Rematch")
        await click.wait_response()
        await self.fake.wait_for(lambda: table.status == "playing", what="the rematch to start")

    def table_messages(self) -> list[FakeMessage]:
        """Every table message in the channel, replaced ones too (they keep the table's title)."""
        return [
            m for m in self.channel.messages if m.embeds and "Bauernschnapsen · table" in str(m.embeds[0].get("title"))
        ]

    # --- playing -----------------------------------------------------------------------------------------

    def hand_message(self, user: FakeUser) -> FakeMessage | None:
        """Where the user sees their hand: the newest DM, or, once the bot has moved it to the channel (their
        DMs are closed), the newest ephemeral hand."""
        if not self.hand_moved_to_channel(user):
            dms = self.fake.dm_messages(user)
            return dms[-1] if dms else None
        hands = [m for m in self.fake.ephemeral_messages(user) if is_hand_message(m)]
        return hands[-1] if hands else None

    def hand_moved_to_channel(self, user: FakeUser) -> bool:
        """Whether the user's DMs are closed and the bot knows it. DMs closed mid-deal go on working until the
        bot notices (it edits them through their owner's latest click's token): the person plays on there."""
        if user.dms_open:
            return False
        table = None if self.bot is None else self.bot.service.table_in_channel(self.channel.id)
        seat = None if table is None else table.seat_of(user.id)
        occupant = None if table is None or seat is None else table.seats[seat]
        return occupant is None or occupant.dms_closed

    async def play(
        self,
        players: Iterable[FakeUser],
        *,
        until: Callable[[TableSnapshot], bool] | None = None,
        timeout: float = 20.0,
    ) -> int:
        """Play on as ``players`` until the Bummerl is over (or ``until(table)`` holds); returns the clicks.

        Seed-independent: whoever's hand message shows an enabled button for the current position clicks
        the first one. A player whose hand the bot moved to the channel (DMs closed) asks for it with "My hand"
        on their turn.
        """
        table = CurrentTable(self, self.live.id)
        people = {user.id: user for user in players}
        asked_for_hand: set[tuple[int, int]] = set()
        clicks = 0
        while True:

            def next_step() -> tuple[Any, ...] | None:
                now = table.now()
                if now is None or now.status != "playing" or (until is not None and until(now)):
                    return ("stop",)
                for user in people.values():
                    message = self.hand_message(user)
                    button = current_button(message, now.version)
                    if button is not None:
                        return ("click", user, message, button)
                deal = now.deal
                occupant = now.seats[deal.to_act] if deal is not None and deal.to_act is not None else None
                user = people.get(occupant.user_id or 0) if occupant is not None else None
                if (
                    user is not None
                    and self.hand_moved_to_channel(user)
                    and not occupant.ai_takeover  # type: ignore[union-attr]
                    and (user.id, now.version) not in asked_for_hand
                ):
                    return ("hand", user)
                return None

            step = await self.fake.wait_for(next_step, timeout=timeout, what="a player with something to do")
            if step[0] == "stop":
                return clicks
            if step[0] == "hand":
                user = step[1]
                asked_for_hand.add((user.id, table.version))
                # The table message may still show the lobby or the last Bummerl's end: its edit to the
                # running game can come after the turn (edits are coalesced).
                shows_hand = await self.table_message(lambda m: any(b.get("label") == "My hand" for b in m.buttons))
                click = await self.fake.click(user, shows_hand, label="My hand")
                await click.wait_original()
                continue
            _, user, message, button = step
            await self.click_and_settle(user, message, button["custom_id"])
            clicks += 1

    async def click_and_settle(self, user: FakeUser, message: FakeMessage, custom_id: str) -> FakeInteraction:
        """Click a game button that must be accepted, and wait until the position has moved on."""
        table = CurrentTable(self, self.live.id)
        version = table.version
        click = await self.fake.click(user, message, custom_id)
        await click.wait_response()

        def moved_on() -> bool:
            try:
                return table.version != version or bool(refusals(click))
            except AssertionError:  # the move closed the table (a tournament's match ended with it)
                return True

        await self.fake.wait_for(moved_on, what=f"{click.describe()} to be applied")
        assert not refusals(click), f"{click.describe()} was refused: {refusals(click)[-1].content!r}"
        return click
