"""The ``/schnapsen`` commands and the handling of every button click.

Every click is untrusted: the service checks seat, turn, phase, version and legality; here we check who may
press lobby and host buttons, throttle floods, answer within Discord's three seconds, and turn errors into
plain ephemeral answers.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import time
from collections import defaultdict, deque
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

import engine
from bot.db import GuildSettings, pair_key
from bot.game.errors import UserError
from bot.game.table import TableSnapshot
from bot.i18n import language_for_locale, t
from bot.i18n.translator import CHOICE_KEYS
from bot.vocabulary import AI_STRENGTHS, DECK_STYLES, LANGUAGES, LEADERBOARD_SORTS

from . import presenter
from .components import LeaderboardButton
from .ids import GAME_VERBS, TABLE_VERBS, ButtonId, action_of
from .runtime import Runtime

if TYPE_CHECKING:
    from bot.client import SchnapsenBot

log = logging.getLogger(__name__)
Interaction = discord.Interaction[Any]


def named_choices(*values: str) -> list[app_commands.Choice[str]]:
    """Choices shown by name (the English catalogue text; the translator supplies the other languages)."""
    return [app_commands.Choice(name=_(choice_text(value)), value=value) for value in values]


def choice_text(value: str) -> str:
    return t("en", CHOICE_KEYS.get(value, f"command.choice.{value}"))


PRESET_CHOICES = named_choices(*engine.PRESETS)
DECK_CHOICES = named_choices(*DECK_STYLES)
SEAT_CHOICES = named_choices(*engine.SEAT_NAMES)
SORT_CHOICES = named_choices(*LEADERBOARD_SORTS)
LANGUAGE_CHOICES = named_choices(*LANGUAGES)
AI_CHOICES = named_choices(*AI_STRENGTHS)
PAGE_SIZE = 10
MIN_GAMES_FOR_WINRATE = 3
ALREADY_ACKNOWLEDGED = 40060  # Discord: the interaction has been acknowledged already


async def acknowledge(interaction: Interaction, **kwargs: Any) -> None:
    """``defer``, where a repeat of an acknowledgement that took effect (its reply was lost, discord.py retried
    and Discord answered 40060) counts as done: the click is carried out, not dropped."""
    try:
        await interaction.response.defer(**kwargs)
    except discord.HTTPException as err:
        if err.code != ALREADY_ACKNOWLEDGED:
            raise
        log.warning("interaction %s was acknowledged already (its reply was lost); carrying on", interaction.id)


class SchnapsenCog(
    commands.GroupCog, name="schnapsen", group_name="schnapsen", group_description=_("Play Bauernschnapsen")
):
    def __init__(self, bot: SchnapsenBot) -> None:
        self.bot = bot
        self.service = bot.service
        self.runtime = Runtime(bot)
        self._recent: defaultdict[int, deque[float]] = defaultdict(deque)
        super().__init__()

    # --- helpers ---------------------------------------------------------------------------------------

    def lang(self, interaction: Interaction) -> str:
        lang = language_for_locale(interaction.locale)
        self.runtime.remember_lang(interaction.user.id, lang)
        return lang

    def throttled(self, user_id: int) -> bool:
        """Too many clicks or commands in a short window (per user, so other tables are never starved)."""
        now = time.monotonic()
        window = self.bot.settings.throttle_window
        if len(self._recent) > 1000:  # forget people who have been quiet for a whole window
            for quiet in [user for user, times in self._recent.items() if not times or now - times[-1] > window]:
                del self._recent[quiet]
        recent = self._recent[user_id]
        while recent and now - recent[0] > window:
            recent.popleft()
        if len(recent) >= self.bot.settings.throttle_actions:
            return True
        recent.append(now)
        return False

    async def answer(self, interaction: Interaction, text: str | None = None, **kwargs: Any) -> None:
        """An ephemeral answer, whether or not the interaction was deferred already."""
        if not interaction.response.is_done():
            try:
                await interaction.response.send_message(text, ephemeral=True, **kwargs)
                return
            except discord.HTTPException as err:
                if err.code != ALREADY_ACKNOWLEDGED:
                    raise
        await interaction.followup.send(text, ephemeral=True, **kwargs)

    @staticmethod
    async def thinking(interaction: Interaction) -> None:
        """Acknowledge before work that waits on storage: Discord's three seconds never depend on a busy disk."""
        await acknowledge(interaction, ephemeral=True, thinking=True)

    def error_text(self, lang: str, err: UserError) -> str:
        try:
            return t(lang, err.key, **err.values)
        except KeyError:  # a rules code without its own text: the engine's sentence is plain English
            return str(err.values.get("message", t(lang, "error.generic")))

    def table_here(self, interaction: Interaction) -> TableSnapshot:
        table = self.service.table_in_channel(interaction.channel_id or 0)
        if table is None:
            raise UserError("error.no_table_here")
        return table

    def may_manage(self, interaction: Interaction, table: TableSnapshot) -> bool:
        permissions = interaction.permissions
        return interaction.user.id == table.row.host_id or bool(permissions and permissions.manage_guild)

    async def guarded(self, interaction: Interaction, work: Any, *, custom_id: str | None = None) -> None:
        """Run a handler: user errors become ephemeral answers; anything else is logged with its context."""
        lang = self.lang(interaction)
        try:
            if self.throttled(interaction.user.id):  # commands and buttons alike
                raise UserError("error.slow_down")
            await work(lang)
        except UserError as err:
            try:
                await self.answer(interaction, self.error_text(lang, err))
            except discord.HTTPException as http_err:
                # The interaction expired (10062) or was answered already (40060: an answer whose reply was
                # lost): the refusal cannot be shown, and nothing else depends on it.
                log.warning(
                    "could not answer user=%s custom_id=%s with %s: %s",
                    interaction.user.id,
                    custom_id,
                    err.key,
                    http_err,
                )
        except Exception:
            table = self.service.table_in_channel(interaction.channel_id or 0)
            log.exception(
                "unexpected error: user=%s guild=%s channel=%s table=%s custom_id=%s command=%s",
                interaction.user.id,
                interaction.guild_id,
                interaction.channel_id,
                table.id if table else None,
                custom_id,
                interaction.command.qualified_name if interaction.command else None,
            )
            with contextlib.suppress(discord.HTTPException):
                await self.answer(interaction, t(lang, "error.generic"))

    # --- commands -------------------------------------------------------------------------------------

    @app_commands.command(name="new", description=_("Open a table in this channel"))
    @app_commands.choices(preset=PRESET_CHOICES, deck=DECK_CHOICES)
    @app_commands.describe(preset=_("Rules preset"), deck=_("Card deck"), turn_time=_("Seconds per turn"))
    @app_commands.guild_only()
    async def new(
        self,
        interaction: Interaction,
        preset: str | None = None,
        deck: str | None = None,
        turn_time: app_commands.Range[int, 15, 3600] | None = None,
    ) -> None:
        async def work(lang: str) -> None:
            await acknowledge(interaction, ephemeral=True, thinking=True)
            assert interaction.guild_id is not None and interaction.channel_id is not None
            defaults = await self.service.guild_settings(interaction.guild_id)
            table = await self.service.open_table(
                guild_id=interaction.guild_id,
                channel_id=interaction.channel_id,
                host_id=interaction.user.id,
                host_name=interaction.user.display_name,
                preset=preset or defaults.preset,
                deck=deck or defaults.deck,
                turn_seconds=turn_time or defaults.turn_seconds,
                language=defaults.language or language_for_locale(interaction.guild_locale),
            )
            self.runtime.refresh_table_message(table)  # posted (and retried) by the runtime
            await interaction.followup.send(t(lang, "reply.table_opened"), ephemeral=True)

        await self.guarded(interaction, work)

    @app_commands.command(name="join", description=_("Take a seat at the table in this channel"))
    @app_commands.choices(seat=SEAT_CHOICES)
    @app_commands.describe(seat=_("Seat: N and S play against E and W"))
    @app_commands.guild_only()
    async def join(self, interaction: Interaction, seat: str | None = None) -> None:
        async def work(lang: str) -> None:
            table = self.table_here(interaction)
            await self.thinking(interaction)
            table = await self.service.take_seat(
                table.id,
                interaction.user.id,
                interaction.user.display_name,
                None if seat is None else "NESW".index(seat),
            )
            self.runtime.refresh_table_message(table)
            await self.answer(
                interaction,
                t(lang, "reply.seated", seat=t(lang, f"seat.{table.seat_of(interaction.user.id)}")),
            )

        await self.guarded(interaction, work)

    @app_commands.command(name="leave", description=_("Leave your table (an AI player takes over your seat)"))
    async def leave(self, interaction: Interaction) -> None:
        async def work(lang: str) -> None:
            table = self.service.table_of_user(interaction.user.id)
            if table is None:
                raise UserError("error.not_seated")
            await acknowledge(interaction, ephemeral=True, thinking=True)
            await self._leave(table, interaction.user.id)
            await self.answer(interaction, t(lang, "reply.left"))

        await self.guarded(interaction, work)

    async def _leave(self, table: TableSnapshot, user_id: int) -> None:
        table, before = await self.service.leave(table.id, user_id)
        if before.dm_channel_id is not None and before.dm_message_id is not None:
            self.runtime.retire_hand(table, user_id, (before.dm_channel_id, before.dm_message_id))
        self.runtime.after_change(table)

    @app_commands.command(name="start", description=_("Start the game (host); AI players fill empty seats"))
    @app_commands.guild_only()
    async def start(self, interaction: Interaction) -> None:
        async def work(lang: str) -> None:
            await acknowledge(interaction, ephemeral=True, thinking=True)
            await self._start(self.table_here(interaction), interaction.user.id)
            await interaction.followup.send(t(lang, "reply.started"), ephemeral=True)

        await self.guarded(interaction, work)

    async def _start(self, table: TableSnapshot, user_id: int) -> None:
        table = await self.service.start(table.id, user_id)
        self.runtime.after_change(table)

    @app_commands.command(name="hand", description=_("Show your hand again (only you see it)"))
    async def hand(self, interaction: Interaction) -> None:
        async def work(lang: str) -> None:
            table = self.service.table_of_user(interaction.user.id)
            if table is None:
                raise UserError("error.not_seated")
            await self._show_hand(interaction, table, lang)

        await self.guarded(interaction, work)

    async def _show_hand(self, interaction: Interaction, table: TableSnapshot, lang: str) -> None:
        seat = table.seat_of(interaction.user.id)
        if seat is None:
            raise UserError("error.not_seated_here")
        if not interaction.response.is_done():
            await acknowledge(interaction, ephemeral=True, thinking=True)
        payload = await presenter.hand_payload(table, seat, lang, self.runtime.where(table))
        await interaction.followup.send(ephemeral=True, **payload.send_kwargs())

    @app_commands.command(name="score", description=_("The Bummerl score and the tally between the pairs"))
    @app_commands.guild_only()
    async def score(self, interaction: Interaction) -> None:
        async def work(lang: str) -> None:
            await self.thinking(interaction)
            embed = discord.Embed(title=t(lang, "score.title"), colour=0xF9A825)
            table = self.service.table_in_channel(interaction.channel_id or 0)
            if table is not None and table.status != "lobby":
                embed.add_field(
                    name=t(lang, "table.score"), value=presenter.score_text(table, lang), inline=False
                )
                seats = table.seats
                if all(seats):
                    pairs = [
                        pair_key(seats[0].user_id, seats[2].user_id),
                        pair_key(seats[1].user_id, seats[3].user_id),
                    ]  # type: ignore[union-attr]
                    wins = await self.service.tally_between(table.row.guild_id, pairs[0], pairs[1])
                    embed.add_field(
                        name=t(lang, "result.tally_title"),
                        value=t(
                            lang,
                            "result.tally",
                            a=presenter.team_names(table, 0),
                            b=presenter.team_names(table, 1),
                            x=wins[0],
                            y=wins[1],
                        ),
                        inline=False,
                    )
            caller_seat = table.seat_of(interaction.user.id) if table is not None else None
            if table is not None and caller_seat is not None:
                partner = table.seats[(caller_seat + 2) % 4]
                mine = pair_key(interaction.user.id, partner.user_id if partner else None)
                tallies = await self.service.tallies_of_pair(table.row.guild_id, mine)
                lines = [
                    t(
                        lang,
                        "score.tally_line",
                        pair=self.pair_label(tally.pair),
                        opponents=self.pair_label(tally.opponents),
                        x=tally.wins,
                        y=tally.losses,
                    )
                    for tally in tallies[:10]
                ]
                if lines:
                    embed.add_field(name=t(lang, "score.your_tallies"), value="\n".join(lines), inline=False)
            if not embed.fields:
                embed.description = t(lang, "score.nothing_yet")
            await self.answer(interaction, embed=embed)

        await self.guarded(interaction, work)

    def pair_label(self, pair: tuple[int, int]) -> str:
        return " & ".join("🤖" if user_id == 0 else f"<@{user_id}>" for user_id in pair)

    @app_commands.command(name="rules", description=_("The contracts and who may bid them"))
    async def rules(self, interaction: Interaction) -> None:
        async def work(lang: str) -> None:
            table = self.service.table_in_channel(interaction.channel_id or 0)
            rules = table.rules if table else engine.STANDARD
            embed = discord.Embed(
                title=t(lang, "rules.title"), description=t(lang, "rules.intro"), colour=0x2E7D32
            )
            for contract in engine.Contract:
                if contract is engine.Contract.ASS_BETTLER and not rules.ass_bettler:
                    continue
                embed.add_field(
                    name=t(
                        lang,
                        "rules.contract_value",
                        contract=presenter.contract_name(lang, contract),
                        value=t(lang, "rules.normal_value")
                        if contract is engine.Contract.NORMAL
                        else rules.contract_value(contract),
                    ),
                    value=t(lang, f"rules.who.{contract.id}"),
                    inline=False,
                )
            embed.set_footer(text=t(lang, "rules.footer", preset=t(lang, f"command.choice.{rules.preset}")))
            await interaction.response.send_message(embed=embed, ephemeral=True)

        await self.guarded(interaction, work)

    @app_commands.command(name="leaderboard", description=_("This server's best players"))
    @app_commands.choices(sort=SORT_CHOICES)
    @app_commands.describe(sort=_("What to rank by"))
    @app_commands.guild_only()
    async def leaderboard(self, interaction: Interaction, sort: str = "bummerl") -> None:
        async def work(lang: str) -> None:
            await self.thinking(interaction)
            embed, view = await self.leaderboard_page(interaction, lang, sort, 0)
            await self.answer(interaction, embed=embed, view=view)

        await self.guarded(interaction, work)

    async def leaderboard_page(
        self, interaction: Interaction, lang: str, sort: str, page: int
    ) -> tuple[discord.Embed, discord.ui.View]:
        assert interaction.guild_id is not None
        min_games = MIN_GAMES_FOR_WINRATE if sort == "winrate" else 0
        board = await self.service.leaderboard(
            interaction.guild_id, sort, min_games, page * PAGE_SIZE, PAGE_SIZE
        )  # type: ignore[arg-type]
        embed = discord.Embed(
            title=t(lang, "leaderboard.title", sort=t(lang, f"leaderboard.sort.{sort}")), colour=0x1565C0
        )
        lines = []
        for entry in board.entries:
            stats = entry.stats
            rate = f"{stats.win_rate:.0%}" if stats.win_rate is not None else "—"
            lines.append(
                t(
                    lang,
                    "leaderboard.line",
                    rank=entry.rank,
                    name=stats.display_name,
                    won=stats.bummerl_won,
                    lost=stats.bummerl_lost,
                    rate=rate,
                    points=stats.game_points,
                )
            )
        embed.description = "\n".join(lines) or t(lang, "leaderboard.empty")
        mine = await self.service.rank_of(interaction.guild_id, interaction.user.id, sort, min_games)  # type: ignore[arg-type]
        pages = max(1, -(-board.total // PAGE_SIZE))
        footer = t(lang, "leaderboard.page", page=page + 1, pages=pages)
        footer += " · " + (
            t(lang, "leaderboard.your_rank", rank=mine.rank) if mine else t(lang, "leaderboard.unranked")
        )
        embed.set_footer(text=footer)
        view = discord.ui.View(timeout=None)
        view.add_item(LeaderboardButton(sort, max(page - 1, 0), "◀", disabled=page == 0))
        view.add_item(LeaderboardButton(sort, page + 1, "▶", disabled=page + 1 >= pages))
        for other in LEADERBOARD_SORTS:
            if other != sort:
                view.add_item(LeaderboardButton(other, 0, t(lang, f"leaderboard.sort.{other}")))
        return embed, view

    async def on_leaderboard_button(self, interaction: Interaction, sort: str, page: int) -> None:
        async def work(lang: str) -> None:
            await acknowledge(interaction)  # the page is read from storage: acknowledge first
            embed, view = await self.leaderboard_page(interaction, lang, sort, page)
            await interaction.edit_original_response(embed=embed, view=view)

        await self.guarded(interaction, work, custom_id=f"bslb:{sort}:{page}")

    @app_commands.command(
        name="stop", description=_("Close the table in this channel (host or server managers)")
    )
    @app_commands.guild_only()
    async def stop(self, interaction: Interaction) -> None:
        async def work(lang: str) -> None:
            table = self.table_here(interaction)
            if not self.may_manage(interaction, table):
                raise UserError("error.host_or_manager_only")
            view = discord.ui.View(timeout=None)
            view.add_item(
                discord.ui.Button(
                    label=t(lang, "button.confirm_stop"),
                    style=discord.ButtonStyle.danger,
                    custom_id=str(ButtonId(table.id, 0, "stop")),
                )
            )
            await interaction.response.send_message(t(lang, "reply.confirm_stop"), view=view, ephemeral=True)

        await self.guarded(interaction, work)

    @app_commands.command(
        name="export", description=_("Download the game record of this table (finished deals)")
    )
    @app_commands.guild_only()
    async def export(self, interaction: Interaction) -> None:
        async def work(lang: str) -> None:
            table = self.table_here(interaction)
            await self.thinking(interaction)
            exported = await self.service.export_record(table.id, include_unfinished=False)
            data = json.dumps(exported, indent=2, ensure_ascii=False)
            file = discord.File(io.BytesIO(data.encode()), filename=f"schnapsen-table-{table.id}.json")
            await self.answer(interaction, t(lang, "reply.export", deals=len(exported["deals"])), file=file)

        await self.guarded(interaction, work)

    @app_commands.command(name="settings", description=_("Server defaults for new tables (Manage Server)"))
    @app_commands.choices(
        language=LANGUAGE_CHOICES, preset=PRESET_CHOICES, deck=DECK_CHOICES, ai_strength=AI_CHOICES
    )
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.guild_only()
    @app_commands.describe(
        language=_("Language of the table messages"),
        preset=_("Rules preset"),
        deck=_("Card deck"),
        turn_time=_("Seconds per turn"),
        ai_strength=_("AI strength"),
        ai_delay_ms=_("AI thinking pause in milliseconds"),
    )
    async def settings(
        self,
        interaction: Interaction,
        language: str | None = None,
        preset: str | None = None,
        deck: str | None = None,
        turn_time: app_commands.Range[int, 15, 3600] | None = None,
        ai_strength: str | None = None,
        ai_delay_ms: app_commands.Range[int, 0, 10000] | None = None,
    ) -> None:
        async def work(lang: str) -> None:
            if not (interaction.permissions and interaction.permissions.manage_guild):
                raise UserError("error.manager_only")
            assert interaction.guild_id is not None
            await self.thinking(interaction)
            current = await self.service.guild_settings(interaction.guild_id)
            updated = GuildSettings(
                guild_id=interaction.guild_id,
                language=language or current.language,
                preset=preset or current.preset,
                deck=deck or current.deck,
                turn_seconds=turn_time or current.turn_seconds,
                ai_strength=ai_strength or current.ai_strength,
                ai_delay_ms=current.ai_delay_ms if ai_delay_ms is None else ai_delay_ms,
            )
            await self.service.save_guild_settings(updated)
            await self.answer(
                interaction,
                t(
                    lang,
                    "reply.settings",
                    language=t(lang, f"command.choice.{updated.language}")
                    if updated.language
                    else t(lang, "settings.server_locale"),
                    preset=t(lang, f"command.choice.{updated.preset}"),
                    deck=t(lang, f"deck.{updated.deck}"),
                    seconds=updated.turn_seconds,
                    ai=t(lang, f"command.choice.{updated.ai_strength}"),
                    delay=updated.ai_delay_ms,
                ),
            )

        await self.guarded(interaction, work)

    # --- buttons --------------------------------------------------------------------------------------

    async def on_game_button(self, interaction: Interaction, button: ButtonId) -> None:
        async def work(lang: str) -> None:
            table = self.service.snapshot(button.table)
            if table is None:
                raise UserError("error.table_gone")
            self.check_place(interaction, table, button)
            if button.verb in GAME_VERBS:
                await self._game_action(interaction, table, button, lang)
            else:
                await self._table_button(interaction, table, button, lang)

        await self.guarded(interaction, work, custom_id=str(button))

    def check_place(self, interaction: Interaction, table: TableSnapshot, button: ButtonId) -> None:
        """A table's buttons act only where the table is: its own guild and channel, or (the hand's buttons)
        the player's DM with the bot."""
        if button.verb not in GAME_VERBS and button.verb not in TABLE_VERBS:
            raise UserError("error.bad_button")
        if interaction.guild_id is None:
            if button.verb not in (*GAME_VERBS, "back"):
                raise UserError("error.wrong_channel")
        elif interaction.guild_id != table.row.guild_id or interaction.channel_id != table.row.channel_id:
            raise UserError("error.wrong_channel")

    async def _game_action(
        self, interaction: Interaction, table: TableSnapshot, button: ButtonId, lang: str
    ) -> None:
        action = action_of(button)
        if action is None:
            raise UserError("error.bad_button")
        seat = table.seat_of(interaction.user.id)
        if seat is None:
            raise UserError("error.not_a_player")
        from_ephemeral = bool(interaction.message and interaction.message.flags.ephemeral)
        await acknowledge(interaction)
        if await self.service.reclaim(table.id, interaction.user.id):
            self.runtime.turn_clock_reset(table)
        outcome = await self.service.act(table.id, seat, action, button.version, user_id=interaction.user.id)
        self.runtime.after_change(outcome.table, outcome)
        if from_ephemeral:
            payload = await presenter.hand_payload(
                outcome.table, seat, lang, self.runtime.where(outcome.table)
            )
            await interaction.edit_original_response(**payload.edit_kwargs())

    async def _table_button(
        self, interaction: Interaction, table: TableSnapshot, button: ButtonId, lang: str
    ) -> None:
        user = interaction.user
        match button.verb:
            case "hand":
                await self._show_hand(interaction, table, lang)
            case "sit":
                seat = int(button.arg) if button.arg in ("0", "1", "2", "3") else None
                if seat is None:
                    raise UserError("error.bad_button")
                await self.service.take_seat(table.id, user.id, user.display_name, seat)
                self.runtime.refresh_table_message(table)
                await self.answer(interaction, t(lang, "reply.seated", seat=t(lang, f"seat.{seat}")))
            case "ai":
                await self.service.add_ai(table.id, user.id, None)
                self.runtime.refresh_table_message(table)
                await acknowledge(interaction)
            case "leave":
                await self._leave(table, user.id)
                await self.answer(interaction, t(lang, "reply.left"))
            case "start":
                await acknowledge(interaction)
                await self._start(table, user.id)
            case "rematch":
                await acknowledge(interaction)
                table = await self.service.rematch(table.id, user.id, button.version)
                self.runtime.after_change(table)
            case "close":  # after a Bummerl, by a player (or a manager): only while it is over
                if table.seat_of(user.id) is None and not self.may_manage(interaction, table):
                    raise UserError("error.not_a_player")
                await acknowledge(interaction)
                self.runtime.after_change(await self.service.close(table.id, finished_at_version=button.version))
            case "stop":  # the host's (or a manager's) confirmed /schnapsen stop: at any time
                if not self.may_manage(interaction, table):
                    raise UserError("error.host_or_manager_only")
                await acknowledge(interaction)
                self.runtime.after_change(await self.service.close(table.id))
            case "back":
                reclaimed = await self.service.reclaim(table.id, user.id)
                await self.answer(interaction, t(lang, "reply.back" if reclaimed else "reply.not_taken_over"))
                if reclaimed:
                    self.runtime.turn_clock_reset(table)
                    self.runtime.after_change(table)
            case _:
                raise UserError("error.bad_button")
