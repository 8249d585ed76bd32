"""The buttons: one DynamicItem class per family, each with its own template, so that every button keeps
working on messages sent before a restart (discord.py builds the item from its custom id's match). A family
owns its verbs: it builds its buttons (the payloads call its constructors, never spell an id) and parses
them back; no verb is spelled outside its family.

The base of every button and the buttons that act on no running table are in ``shellbuttons.py``.

A click is a straight line: the family's template matches the custom id and ``from_custom_id`` builds the item
from the match; ``interaction_check`` throttles the user, finds the table and checks that this button may be
used here, by this user; ``callback`` acknowledges, asks the service, and hands the stored change (the table
as the service shows it now) to the runtime, which brings every message up to date.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Self

import discord

import engine
from bot.game.errors import UserError
from bot.game.inbox import HandedClick
from bot.game.table import TableSnapshot
from bot.i18n import t
from engine.actions import DOUBLING_WORDS

from . import answers
from .checks import check_place, may_manage
from .ids import PATTERN, ButtonId, template, unknown_verb_template
from .replies import acknowledge, answer, thinking
from .repost import check_not_replaced
from .shellbuttons import DealReviewButton, ForgetMeButton, LeaderboardButton, ShellButton

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from bot.client import SchnapsenBot

    Interaction = discord.Interaction[SchnapsenBot]

Button = discord.ui.Button[Any]


class TableButton(ShellButton, template=PATTERN):
    """A button of one table, ``bs:<table>:<version>:<verb>:<arg>`` (``ids.py``): it acts only where its table
    is. Each subclass is one family, with its ``VERBS``; its class methods build its buttons."""

    VERBS: tuple[str, ...] = ()
    table: TableSnapshot  # found by the check
    handed: HandedClick | None = None  # set when the click was handed over by another process (routing.py)

    def __init__(
        self,
        button: ButtonId,
        label: str = "·",
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        *,
        disabled: bool = False,
        emoji: str | None = None,
        row: int | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label[:80], custom_id=str(button), style=style, disabled=disabled, emoji=emoji
            ),
            row=row,
        )
        self.button = button

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(ButtonId.of(match))

    @property
    def works_in_dm(self) -> bool:
        """Whether the button acts in the player's DM with the bot too (else only in its table's channel)."""
        return False

    @property
    def on_table_message(self) -> bool:
        """Whether the button lives on the table message (acting only from the newest one, ``repost.py``)."""
        return False

    async def routed_here(self, interaction: Interaction) -> bool:
        return await interaction.client.runtime.clicks.route(interaction, self.button.table)

    def find_table(self, interaction: Interaction) -> TableSnapshot:
        table = interaction.client.service.snapshot(self.button.table)
        if table is None:
            interaction.client.runtime.messages.closed.correct(self.button.table, interaction)  # a stale message
            raise UserError("error.table_gone")
        return table

    def check(self, interaction: Interaction) -> None:
        self.table = self.find_table(interaction)
        check_place(interaction, self.table, works_in_dm=self.works_in_dm)
        check_not_replaced(interaction, self.table, on_table_message=self.on_table_message)


GAME_VERBS = ("trump", "auf", "bid", "pass", "dbl", "play", "mar")


class GameActionButton(TableButton, template=template(GAME_VERBS)):
    """A move (trump, Aufschlagen, bid, pass, double, card, marriage) on the player's hand: in their DM, or
    ephemeral in the channel. The version in its id is the position it was made for; the verb and ``arg`` say
    the engine action (``id_of`` and ``action_of``, one the inverse of the other)."""

    VERBS = GAME_VERBS
    action: engine.Action
    seat: int

    @classmethod
    def of_action(
        cls, table_id: int, version: int, action: engine.Action, label: str, style: discord.ButtonStyle,
        *, disabled: bool = False, emoji: str | None = None, row: int | None = None,
    ) -> Self:  # fmt: skip
        return cls(cls.id_of(table_id, version, action), label, style, disabled=disabled, emoji=emoji, row=row)

    @staticmethod
    def id_of(table_id: int, version: int, action: engine.Action) -> ButtonId:
        match action:
            case engine.ChooseTrump(suit):
                return ButtonId(table_id, version, "trump", suit)
            case engine.Aufschlagen():
                return ButtonId(table_id, version, "auf")
            case engine.Bid(contract):
                return ButtonId(table_id, version, "bid", contract.id)
            case engine.Pass():
                return ButtonId(table_id, version, "pass")
            case engine.Double(word):
                return ButtonId(table_id, version, "dbl", word)
            case engine.PlayCard(card, None):
                return ButtonId(table_id, version, "play", card)
            case engine.PlayCard(card, value):
                return ButtonId(table_id, version, "mar", f"{card}{value}")
        raise TypeError(action)

    @staticmethod
    def action_of(button: ButtonId) -> engine.Action | None:
        """The engine action a game button asks for; None when the id is malformed (forged)."""
        try:
            match button.verb:
                case "trump":
                    return engine.ChooseTrump(button.arg) if button.arg in engine.SUITS else None
                case "auf":
                    return engine.AUFSCHLAGEN
                case "bid":
                    return engine.Bid(engine.Contract.from_id(button.arg))
                case "pass":
                    return engine.PASS
                case "dbl":
                    return engine.Double(button.arg) if button.arg in DOUBLING_WORDS else None
                case "play":
                    return engine.PlayCard(engine.parse_card(button.arg))
                case "mar":
                    value = int(button.arg[2:]) if button.arg[2:] in ("20", "40") else None
                    return engine.PlayCard(engine.parse_card(button.arg[:2]), value) if value else None
        except engine.RulesError:
            return None
        return None

    @classmethod
    def moved_on(cls, button: ButtonId, table: TableSnapshot) -> bool:
        """Whether ``button`` is a move for a position the table has left: ``act`` refuses it as out of date
        whatever else holds, as the version only grows, so it can be answered before any other check."""
        return button.verb in cls.VERBS and button.version < table.version

    @property
    def works_in_dm(self) -> bool:
        return True

    def check(self, interaction: Interaction) -> None:
        super().check(interaction)
        action = self.action_of(self.button)
        if action is None:
            raise UserError("error.bad_button")
        seat = self.table.seat_of(interaction.user.id)
        if seat is None:
            raise UserError("error.not_a_player")
        self.action, self.seat = action, seat

    async def clicked(self, interaction: Interaction) -> None:
        # Only a stored move is acknowledged: the click is answered after the commit, with the clicked hand as
        # the move left it (a crash in between shows "interaction failed" and the move done after the restart).
        service, runtime = interaction.client.service, interaction.client.runtime
        started = asyncio.get_running_loop().time()
        held = runtime.answers.hold_hand(self.table, self.seat, interaction)
        note: str | None = None  # a word above the hand in the answer (an i18n key)
        try:
            try:
                await service.act(
                    self.table.id, self.seat, self.action, self.button.version, user_id=interaction.user.id,
                    handed=self.handed,
                    ahead=lambda table: runtime.answers.draw_ahead(table, self.seat, interaction),
                )  # fmt: skip
            except UserError as error:
                if error.key != "error.stale":
                    raise
                # A click on a position left. A repeat of the move its person just made (a second click that
                # waited for its first at the table's lock, or one on a hand in the channel): that move is stored,
                # and a DM shows it by the first click's answer or the hand's own edit. A hand in the channel,
                # which the bot may have no other way to edit (its token forgotten in a restart, say), is answered
                # with the hand as it stands, saying so unless the click repeated the move.
                repeated = runtime.answers.repeats_move(
                    self.table.id, self.button.version, interaction.user.id, self.action
                )
                message = interaction.message
                if message is None or not message.flags.ephemeral:
                    if not repeated:
                        raise
                    log_repeat(self.button, interaction.id)
                    # Nothing depends on it (as in routing.py): a click that waited out its three seconds here
                    # can no longer be acknowledged, and that is no error of the bot.
                    try:
                        await acknowledge(interaction)
                    except discord.HTTPException as lost:
                        log.warning("could not acknowledge a repeated click (interaction %s): %s", interaction.id, lost)
                    return
                if repeated:
                    log_repeat(self.button, interaction.id)
                elif runtime.answers.shows_channel_hand(self.table.id, self.seat, interaction.user.id):
                    log_moved_on(self.button, interaction.id)
                    note = "hand.moved_on"
                else:
                    raise
            await runtime.answers.answer_move(
                interaction, self.table.id, self.seat, self.table.deal_no, started, note=note
            )
        finally:
            runtime.answers.release_hand(self.table.id, self.seat, held)


def log_repeat(button: ButtonId, interaction_id: object) -> None:
    """DEBUG, as the line of an accepted move (bench/chaos.py reads both): a click acknowledged as the repeat of
    a stored move claims that move, not one of its own."""
    log.debug("repeat table=%d version=%d interaction=%s", button.table, button.version, interaction_id)


def log_moved_on(button: ButtonId, interaction_id: object) -> None:
    """DEBUG, as ``log_repeat`` (bench/chaos.py reads it): a click on a position left, answered with the hand as it
    stands and the word that it was out of date, claims no move."""
    log.debug("moved on table=%d version=%d interaction=%s", button.table, button.version, interaction_id)


SIT, ADD_AI, LEAVE, START, PRACTICE = "sit", "ai", "leave", "start", "practice"
SEAT_VERBS = (SIT, ADD_AI, LEAVE, START, PRACTICE)


class SeatButton(TableButton, template=template(SEAT_VERBS)):
    """The lobby's Sit (``arg`` the seat), Add AI, Leave and Start, and the host's practice toggle (``arg`` 1:
    make it a practice table, 0: a normal one)."""

    VERBS = SEAT_VERBS
    on_table_message = True

    @classmethod
    def sit(cls, table_id: int, seat: int, label: str, *, taken: bool) -> Self:
        return cls(ButtonId(table_id, 0, SIT, str(seat)), label, discord.ButtonStyle.primary, disabled=taken, row=0)

    @classmethod
    def add_ai(cls, table_id: int, label: str) -> Self:
        return cls(ButtonId(table_id, 0, ADD_AI), label, row=1)

    @classmethod
    def leave(cls, table_id: int, label: str) -> Self:
        return cls(ButtonId(table_id, 0, LEAVE), label, discord.ButtonStyle.danger, row=1)

    @classmethod
    def start(cls, table_id: int, label: str) -> Self:
        return cls(ButtonId(table_id, 0, START), label, discord.ButtonStyle.success, row=1)

    @classmethod
    def practice_toggle(cls, table_id: int, practice_now: bool, label: str) -> Self:
        style = discord.ButtonStyle.success if practice_now else discord.ButtonStyle.secondary
        return cls(ButtonId(table_id, 0, PRACTICE, "0" if practice_now else "1"), label, style, row=2)

    def check(self, interaction: Interaction) -> None:
        super().check(interaction)
        if self.button.verb == SIT and self.button.arg not in ("0", "1", "2", "3"):
            raise UserError("error.bad_button")
        if self.button.verb == PRACTICE and self.button.arg not in ("0", "1"):
            raise UserError("error.bad_button")

    async def clicked(self, interaction: Interaction) -> None:
        client, user, lang = interaction.client, interaction.user, self.lang
        table_id = self.table.id
        match self.button.verb:
            case "sit":
                seat = int(self.button.arg)
                await client.service.take_seat(table_id, user.id, user.display_name, seat)
                await answer(interaction, t(lang, "reply.seated", seat=t(lang, f"seat.{seat}")))
            case "leave":
                await client.service.leave(table_id, user.id)
                await answer(interaction, t(lang, "reply.left"))
            case "ai":
                await answer_on_table_message(interaction, table_id, client.service.add_ai(table_id, user.id, None))
            case "start":
                await answer_on_table_message(interaction, table_id, client.service.start(table_id, user.id))
            case "practice":
                changed = client.service.set_practice(table_id, user.id, self.button.arg == "1")
                await answer_on_table_message(interaction, table_id, changed)


HOST_VERBS = ("rematch", "close", "stop")


class HostButton(TableButton, template=template(HOST_VERBS)):
    """After a Bummerl: Rematch, and Close (by a player or a manager, only while it is over, at the position
    the button was made for); and the confirmation of ``/schnapsen stop`` (host or manager, at any time)."""

    VERBS = HOST_VERBS

    @property
    def on_table_message(self) -> bool:
        return self.button.verb != "stop"  # the confirmation of /schnapsen stop is an ephemeral answer

    @classmethod
    def rematch(cls, table_id: int, version: int, label: str) -> Self:
        return cls(ButtonId(table_id, version, "rematch"), label, discord.ButtonStyle.success)

    @classmethod
    def close(cls, table_id: int, version: int, label: str) -> Self:
        return cls(ButtonId(table_id, version, "close"), label, discord.ButtonStyle.danger)

    @classmethod
    def stop(cls, table_id: int, label: str) -> Self:
        return cls(ButtonId(table_id, 0, "stop"), label, discord.ButtonStyle.danger)

    def check(self, interaction: Interaction) -> None:
        super().check(interaction)
        match self.button.verb:
            case "close":
                if self.table.seat_of(interaction.user.id) is None and not may_manage(
                    interaction, self.table
                ):
                    raise UserError("error.not_a_player")
            case "stop":
                if not may_manage(interaction, self.table):
                    raise UserError("error.host_or_manager_only")

    async def clicked(self, interaction: Interaction) -> None:
        service, table_id, version = interaction.client.service, self.table.id, self.button.version
        match self.button.verb:
            case "rematch":
                await answer_on_table_message(interaction, table_id, service.rematch(table_id, interaction.user.id, version))
            case "close":
                await answer_on_table_message(interaction, table_id, service.close(table_id, finished_at_version=version))
            case _:  # stop: confirmed on an ephemeral answer, acknowledged once the table is closed
                await service.close(table_id)
                await acknowledge(interaction)


HAND_VERBS = ("hand", "back")


class HandButton(TableButton, template=template(HAND_VERBS)):
    """ "My hand" on the table message or a turn notice (the hand, ephemerally) and "I'm back" on a hand the AI
    plays for."""

    VERBS = HAND_VERBS

    @classmethod
    def my_hand(cls, table_id: int, label: str) -> Self:
        return cls(ButtonId(table_id, 0, "hand"), label, discord.ButtonStyle.primary)

    @classmethod
    def back(cls, table_id: int, label: str) -> Self:
        return cls(ButtonId(table_id, 0, "back"), label, discord.ButtonStyle.success)

    @property
    def works_in_dm(self) -> bool:
        return self.button.verb == "back"

    async def clicked(self, interaction: Interaction) -> None:
        client = interaction.client
        if self.button.verb == "hand":
            await show_hand(interaction, self.table, self.lang)
            return
        reclaimed = await client.service.seating.reclaim(self.table.id, interaction.user.id)
        await answer(interaction, t(self.lang, "reply.back" if reclaimed else "reply.not_taken_over"))


COACH_VERBS = ("review", "hint")


class CoachButton(TableButton, template=template(COACH_VERBS)):
    """ "Review my play" on a deal's result (``arg`` the deal number; its table may be closed since) and a
    practice table's "Hint" on a player's hand at one position (in their DM, or ephemeral). Both answer only
    the one who asked; the AI's work runs in the coach's own low-priority worker, never a table's."""

    VERBS = COACH_VERBS
    seat: int

    @classmethod
    def review(cls, table_id: int, deal_no: int, label: str) -> Self:
        return cls(ButtonId(table_id, 0, "review", str(deal_no)), label, emoji="🎓")

    @classmethod
    def hint(cls, table_id: int, version: int, label: str) -> Self:
        return cls(ButtonId(table_id, version, "hint"), label, emoji="💡", row=4)

    @property
    def works_in_dm(self) -> bool:
        return self.button.verb == "hint"

    def check(self, interaction: Interaction) -> None:
        if self.button.verb == "review":
            if not self.button.arg.isdigit():
                raise UserError("error.bad_button")
            return  # the table may be closed: the service checks place and seat against storage
        super().check(interaction)
        table, user_id = self.table, interaction.user.id
        seat = table.seat_of(user_id)
        if seat is None:
            raise UserError("error.not_a_player")
        if not table.practice:
            raise UserError("coach.not_practice")
        if self.button.version != table.version:
            raise UserError("error.stale")
        occupant, deal = table.seats[seat], table.deal
        if deal is None or deal.finished or deal.to_act != seat or (occupant is not None and occupant.ai_takeover):
            raise UserError("coach.not_your_turn")
        self.seat = seat

    async def clicked(self, interaction: Interaction) -> None:
        if self.button.verb == "review":
            await self.show_review(interaction)
        else:
            await self.show_hint(interaction)

    async def show_review(self, interaction: Interaction) -> None:
        client, user_id = interaction.client, interaction.user.id
        await thinking(interaction)
        subject = await client.service.queries.review_subject(
            self.button.table,
            int(self.button.arg),
            user_id,
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
        )
        client.coach.admit_review(user_id)
        decisions = await client.coach.review(user_id, subject)
        link = await answers.review_replay_link(  # the review kept for the replay's marks (docs/web.md)
            client.service.reviews, user_id, self.button.table, int(self.button.arg), subject.seat, decisions,
            self.lang,
        )
        await answer(interaction, embed=answers.review_embed(subject, self.lang, decisions), **link)

    async def show_hint(self, interaction: Interaction) -> None:
        table, seat = self.table, self.seat
        assert table.deal is not None
        await thinking(interaction)
        view = engine.view_for(table.deal, seat)
        found = await interaction.client.coach.hint(table.id, table.version, view, table.rules)
        await answer(interaction, embed=answers.hint_embed(table, self.lang, found))


KNOWN_VERBS = (*GAME_VERBS, *SEAT_VERBS, *HOST_VERBS, *HAND_VERBS, *COACH_VERBS)


class UnknownVerbButton(TableButton, template=unknown_verb_template(KNOWN_VERBS)):
    """A table button whose verb no family knows (forged): refused once its table is found."""

    def check(self, interaction: Interaction) -> None:
        self.find_table(interaction)
        raise UserError("error.bad_button")


COMPONENTS = (
    GameActionButton,
    SeatButton,
    HostButton,
    HandButton,
    CoachButton,
    UnknownVerbButton,
    LeaderboardButton,
    DealReviewButton,
    ForgetMeButton,
)


# --- what a command and a button both do ---------------------------------------------------------------


async def answer_on_table_message(interaction: Interaction, table_id: int, change: Awaitable[object]) -> None:
    """Store a click's change of the table, then answer the click with the table message as the change left it
    (type 7, ``ClickAnswers.answer_table_click``): only a stored change is acknowledged, and the clicker sees it
    in the answer itself. The table message's own edits wait meanwhile, so the answer is not followed by a
    second edit of the same."""
    runtime = interaction.client.runtime
    started = asyncio.get_running_loop().time()
    shown = None
    runtime.answers.hold_table(table_id)
    try:
        await change
        shown = await runtime.answers.answer_table_click(interaction, table_id, started)
    finally:
        runtime.answers.release_table(table_id, shown)


async def show_hand(interaction: Interaction, table: TableSnapshot, lang: str) -> None:
    """The user's hand at ``table``, ephemerally (for players whose DMs are closed, or who lost theirs)."""
    seat = table.seat_of(interaction.user.id)
    if seat is None:
        raise UserError("error.not_seated_here")
    if not interaction.response.is_done():
        if interaction.message is not None and interaction.message.id != table.table_message_id:
            # A turn notice: a deferred update makes it the click's original response, which the click's token
            # then takes down (not a bot-token call, issue 28); the hand comes as an ephemeral follow-up.
            await acknowledge(interaction)
        else:
            await thinking(interaction)
    runtime, user_id = interaction.client.runtime, interaction.user.id
    table = interaction.client.service.snapshot(table.id) or table  # as it stands after the acknowledgement
    payload = await runtime.hand_payload(table, seat, lang, user_id)
    message = await interaction.followup.send(ephemeral=True, wait=True, **payload.send_kwargs())
    # Kept up to date through this interaction while its token lasts (hands in the channel).
    runtime.remember_channel_hand(table, user_id, interaction, message.id, shows_now=True)

