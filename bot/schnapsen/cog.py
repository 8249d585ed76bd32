"""The ``/schnapsen`` commands, and the extension's life: restoring the tables, registering the buttons
(``components.py``) and running the watchdog and the sweeper.

Every command and click is untrusted: the service checks seat, turn, phase, version and legality; the checks
here and in the buttons throttle floods and check who may do what where. Each command is a straight method:
it raises ``UserError`` for what the user can fix, and ``cog_app_command_error`` answers it (``replies.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands, tasks

import engine
from bot.game import rulesettings
from bot.game.errors import UserError, one_of
from bot.game.service import TableService
from bot.game.table import TableSnapshot
from bot.i18n import language_for_locale, t
from bot.vocabulary import AI_STRENGTHS, DECK_STYLES, HAND_ORDERS, HAND_PLACES, LANGUAGES, LEADERBOARD_SORTS
from bot.web import links as web_links

from . import answers, hands, payloads, ruletexts, threads
from .checks import may_manage, require_manager
from .components import COMPONENTS, show_hand
from .daily import DailyCog
from .replies import answer, language_of, report_error, thinking
from .runtime import Runtime
from .shellbuttons import forget_me_view, leaderboard_page
from .translator import CHOICE_KEYS, CatalogueTranslator

if TYPE_CHECKING:
    from bot.client import SchnapsenBot

    Interaction = discord.Interaction[SchnapsenBot]

log = logging.getLogger(__name__)


async def web_pages_line(guild_id: int, on: bool, lang: str) -> str:
    """What ``/schnapsen settings`` says of the server's web pages: off, on with their address, or on while
    this bot serves none (docs/web.md)."""
    if not on:
        return t(lang, "settings.web_off")
    links = web_links.active()
    url = None if links is None else await links.server_url(guild_id)
    return t(lang, "settings.web_on", url=url) if url else t(lang, "settings.web_on_no_app")


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
HAND_PLACE_CHOICES = named_choices(*HAND_PLACES)
HAND_ORDER_CHOICES = named_choices(*HAND_ORDERS)
RULE_CHOICES = ruletexts.rule_choices()
# The options of /schnapsen server-rules and table-rules: one per setting of docs/rules.md.
RULE_DESCRIPTIONS = {
    "target": _("Game points that win a Bummerl (6 to 99; 24 by default)"),
    "score_display": _("Count the score up, or down from the target (the regional custom)"),
    "schneider_bummerl": _("Bummerl a Schneider costs (the losers scored nothing)"),
    "retourschneider_bummerl": _("Bummerl a Retourschneider costs (the losers led 23:0 and lost)"),
    "show_all_tricks": _("Keep every finished trick visible (by default only each team's first)"),
    "bettler_value": _("Game points of a Bettler"),
    "ass_bettler": _("Whether the Ass-Bettler can be bid"),
    "partner_sits_out": _("Contracts in which the declarer's partner sits out"),
    "bidding_turns": _("How often each player may speak in the auction"),
    "schnapser_leader": _("Who leads the first trick of a Schnapser"),
    "schnapser_marriages": _("How a marriage counts in a Schnapser"),
    "max_multiplier": _("The highest doubling: Re (×4) or Subkontra (×8)"),
    "kontra_forbidden": _("Contracts on which no Kontra may be said"),
    "re_forbidden": _("Contracts on which no Re may be said"),
    "sitting_out_partner_may_double": _("Whether a partner who sits out may say Re"),
    "stichzwang_contracts": _("Contracts in which you must beat the winning card if you can"),
    "undertrump_required": _("Whether a player who cannot overtrump must still play a lower trump"),
    "reset": _("Start again from the preset's own rules, then apply the options given here"),
    "preset": _("Rules preset"),
}
# The words of a person's choices in the answer to /schnapsen prefs: the choices' own texts.
CHOICE_TEXT_KEYS = {
    "dm": "command.choice.dm",
    "channel": "command.choice.channel",
    "sorted": "command.choice.sorted",
    "dealt": "command.choice.dealt",
}


class SchnapsenCog(
    commands.GroupCog, name="schnapsen", group_name="schnapsen", group_description=_("Play Bauernschnapsen")
):
    def __init__(self, bot: SchnapsenBot) -> None:
        self.bot = bot
        super().__init__()

    @property
    def service(self) -> TableService:
        return self.bot.service

    @property
    def runtime(self) -> Runtime:
        return self.bot.runtime

    # --- the extension's life ---------------------------------------------------------------------------

    async def cog_load(self) -> None:
        """Register the buttons, show every restored table as it stands and pick up where it stopped, then
        start the watchdog and the sweeper."""
        bot, settings = self.bot, self.bot.settings
        bot.add_dynamic_items(*COMPONENTS)
        await self.service.daily.remember_open_attempts()  # their hands stay in the DM (hands.py)
        restored = await self.service.restorer.restore_all()
        for table in restored.tables:
            # Edits still pending when the bot stopped were lost: show every table as it stands, deliver what
            # it still owes, then let AI seats and idle timers pick up where they stopped.
            self.runtime.resume(table)
        for table_id in {entry.table_id for entry in await self.service.outbox.pending_announcements()}:
            self.runtime.deliver(table_id)  # closed and set-aside tables too
        self.runtime.inbox.start()  # clicks handed to our shards, also those stored while we were down
        log.info(
            "restored %d open table(s); repaired %d; set aside %d",
            len(restored.tables),
            len(restored.repaired),
            len(restored.set_aside),
        )
        self.watchdog.change_interval(seconds=settings.watchdog_interval)
        self.sweeper.change_interval(seconds=settings.sweep_interval)
        self.watchdog.start()
        self.sweeper.start()

    async def cog_unload(self) -> None:
        self.watchdog.cancel()
        self.sweeper.cancel()
        self.bot.remove_dynamic_items(*COMPONENTS)

    @tasks.loop(seconds=15)  # every settings.watchdog_interval (set in cog_load)
    async def watchdog(self) -> None:
        """Restart whatever a table needs and nobody scheduled; a failure is logged and tried again."""
        try:
            await self.runtime.watch()
        except Exception:
            log.exception("the watchdog failed; it looks again in %s s", self.bot.settings.watchdog_interval)

    @watchdog.before_loop
    async def _watch_after_an_interval(self) -> None:
        await asyncio.sleep(self.bot.settings.watchdog_interval)  # what start-up restarted needs a moment

    @tasks.loop(seconds=60)  # every settings.sweep_interval (set in cog_load)
    async def sweeper(self) -> None:
        """Close idle tables, then prune old action logs; a failure is logged and tried again."""
        try:
            await self.runtime.sweep()
        except Exception:
            log.exception("sweeping idle tables failed")
        shards = self.bot.settings.shards
        if shards is None or shards.keeps_storage:  # every table's storage: one process prunes it
            await self.prune_old_action_logs()

    @sweeper.before_loop
    async def _sweep_after_an_interval(self) -> None:
        await asyncio.sleep(self.bot.settings.sweep_interval)

    async def prune_old_action_logs(self) -> None:
        try:
            pruned = await self.service.housekeeping.prune_old_action_logs(self.bot.settings.retention_days)
        except Exception:
            log.exception("pruning closed tables' action logs failed; tried again at the next sweep")
        else:
            if pruned:
                log.info("pruned the action logs of %d closed table(s)", pruned)

    # --- what every command passes: the checks before, the one error path after --------------------------

    # discord.py's hooks take any client's interaction; the commands themselves see SchnapsenBot's.
    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        """Remember the user's language (for their DMs), and throttle commands like clicks."""
        self.runtime.remember_lang(interaction.user.id, language_of(interaction))
        self.bot.throttle.check(interaction)
        return True

    async def cog_app_command_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        await report_error(interaction, error)

    def table_here(self, interaction: Interaction) -> TableSnapshot:
        table = self.service.table_in_channel(interaction.channel_id or 0)
        if table is None:
            raise UserError("error.no_table_here")
        return table

    # --- commands -------------------------------------------------------------------------------------

    @app_commands.command(name="new", description=_("Open a table in this channel"))
    @app_commands.choices(preset=PRESET_CHOICES, deck=DECK_CHOICES)
    @app_commands.describe(
        preset=_("Rules preset"),
        deck=_("Card deck"),
        turn_time=_("Seconds per turn"),
        practice=_("A practice table: hints on every turn; counts for no leaderboard, statistic or rating"),
    )
    @app_commands.guild_only()
    async def new(
        self,
        interaction: Interaction,
        preset: str | None = None,
        deck: str | None = None,
        turn_time: app_commands.Range[int, 15, 3600] | None = None,
        practice: bool = False,
    ) -> None:
        lang = language_of(interaction)
        await thinking(interaction)
        assert interaction.guild_id is not None and interaction.channel_id is not None
        defaults = await self.service.guilds.guild_settings(interaction.guild_id)
        options: dict[str, Any] = {
            "guild_id": interaction.guild_id,
            "host_id": interaction.user.id,
            "host_name": interaction.user.display_name,
            "preset": preset or defaults.preset,
            "deck": deck or defaults.deck,
            "turn_seconds": turn_time or defaults.turn_seconds,
            "language": defaults.language or language_for_locale(interaction.guild_locale),
            "practice": practice,
            "rule_changes": defaults.rule_changes,  # the server's rule settings, on whichever preset
        }
        if defaults.table_threads and threads.opens_threads_in(interaction.channel):
            # Inside a thread (or where no thread can be opened) the table opens right there instead.
            assert isinstance(interaction.channel, discord.TextChannel)
            table = await threads.open_in_thread(self.bot, interaction, interaction.channel, **options)
            reply = t(lang, "reply.table_opened_in_thread", channel=table.channel_id)
            await interaction.followup.send(reply, ephemeral=True)
            return
        await self.service.open_table(channel_id=interaction.channel_id, **options)  # the runtime posts its message
        await interaction.followup.send(t(lang, "reply.table_opened"), ephemeral=True)

    @app_commands.command(name="join", description=_("Take a seat at the table in this channel"))
    @app_commands.choices(seat=SEAT_CHOICES)
    @app_commands.describe(seat=_("Seat: N and S play against E and W"))
    @app_commands.guild_only()
    async def join(self, interaction: Interaction, seat: str | None = None) -> None:
        lang = language_of(interaction)
        table = self.table_here(interaction)
        await thinking(interaction)
        table = await self.service.take_seat(
            table.id,
            interaction.user.id,
            interaction.user.display_name,
            None if seat is None else "NESW".index(seat),
        )
        await answer(
            interaction,
            t(lang, "reply.seated", seat=t(lang, f"seat.{table.seat_of(interaction.user.id)}")),
        )

    @app_commands.command(name="leave", description=_("Leave your table (an AI player takes over your seat)"))
    async def leave(self, interaction: Interaction) -> None:
        lang = language_of(interaction)
        table = self.service.table_of_user(interaction.user.id)
        if table is None:
            raise UserError("error.not_seated")
        await thinking(interaction)
        await self.service.leave(table.id, interaction.user.id)
        await answer(interaction, t(lang, "reply.left"))

    @app_commands.command(name="start", description=_("Start the game (host); AI players fill empty seats"))
    @app_commands.guild_only()
    async def start(self, interaction: Interaction) -> None:
        lang = language_of(interaction)
        await thinking(interaction)
        await self.service.start(self.table_here(interaction).id, interaction.user.id)
        await interaction.followup.send(t(lang, "reply.started"), ephemeral=True)

    @app_commands.command(name="hand", description=_("Show your hand again (only you see it)"))
    async def hand(self, interaction: Interaction) -> None:
        lang = language_of(interaction)
        table = self.service.table_of_user(interaction.user.id)
        if table is None:
            raise UserError("error.not_seated")
        await show_hand(interaction, table, lang)

    @app_commands.command(name="score", description=_("The Bummerl score and the tally between the pairs"))
    @app_commands.guild_only()
    async def score(self, interaction: Interaction) -> None:
        lang = language_of(interaction)
        await thinking(interaction)
        table = self.service.table_in_channel(interaction.channel_id or 0)
        wins, tallies = None, None
        if table is not None and table.status != "lobby" and all(table.seats):
            wins = await self.service.queries.tally_between(table.guild_id, table.team_key(0), table.team_key(1))
        caller_seat = table.seat_of(interaction.user.id) if table is not None else None
        if table is not None and caller_seat is not None:
            tallies = await self.service.queries.tallies_of_pair(table.guild_id, table.team_key(caller_seat % 2))
        await answer(interaction, embed=answers.score_embed(table, lang, wins, tallies))

    @app_commands.command(name="rules", description=_("The contracts and who may bid them"))
    async def rules(self, interaction: Interaction) -> None:
        table = self.service.table_in_channel(interaction.channel_id or 0)
        embed = answers.rules_embed(table.rules if table else engine.STANDARD, language_of(interaction))
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @app_commands.command(name="leaderboard", description=_("This server's best players"))
    @app_commands.choices(sort=SORT_CHOICES)
    @app_commands.describe(sort=_("What to rank by"))
    @app_commands.guild_only()
    async def leaderboard(self, interaction: Interaction, sort: str | None = None) -> None:
        lang = language_of(interaction)
        await thinking(interaction)
        assert interaction.guild_id is not None
        chosen = (
            await self.service.queries.default_leaderboard_sort(interaction.guild_id)
            if sort is None
            else one_of(sort, LEADERBOARD_SORTS)
        )
        embed, view = await leaderboard_page(interaction, lang, chosen, 0)
        await answer(interaction, embed=embed, view=view)

    @app_commands.command(
        name="stats", description=_("A player's profile: rating, results, contracts and best partner")
    )
    @app_commands.describe(player=_("Whose profile (yours if left out)"))
    @app_commands.guild_only()
    async def stats(self, interaction: Interaction, player: discord.Member | None = None) -> None:
        """Answered only to the caller (like score and leaderboard): in their language, and without a new
        message in a channel whose table message should stay in view."""
        lang = language_of(interaction)
        await thinking(interaction)
        assert interaction.guild_id is not None
        who = player or interaction.user
        profile = await self.service.profiles.player_profile(interaction.guild_id, who.id)
        attach = interaction.app_permissions.attach_files
        payload = await answers.profile_payload(profile, who.display_name, lang, attach=attach)
        await answer(interaction, **payload.send_kwargs())

    @app_commands.command(
        name="stop", description=_("Close the table in this channel (host or server managers)")
    )
    @app_commands.guild_only()
    async def stop(self, interaction: Interaction) -> None:
        lang = language_of(interaction)
        table = self.table_here(interaction)
        if not may_manage(interaction, table):
            raise UserError("error.host_or_manager_only")
        view = payloads.stop_view(table, lang)
        await interaction.response.send_message(t(lang, "reply.confirm_stop"), view=view, ephemeral=True)

    @app_commands.command(
        name="export", description=_("Download the game record of this table (finished deals)")
    )
    @app_commands.guild_only()
    async def export(self, interaction: Interaction) -> None:
        lang = language_of(interaction)
        table = self.table_here(interaction)
        await thinking(interaction)
        record = await self.service.queries.export_record(table.id, include_unfinished=False)
        file = answers.record_file(table.id, record)
        text = t(lang, "reply.export", count=len(record.deals))
        links = web_links.active()
        if links is not None and (url := await links.table_url(table.guild_id, table.id)) is not None:
            text += "\n" + t(lang, "reply.web_replays", url=url)  # the same deals step by step (docs/web.md)
        await answer(interaction, text, file=file)

    @app_commands.command(
        name="prefs", description=_("Your own choices: where your cards are shown and in which order")
    )
    @app_commands.choices(hand=HAND_PLACE_CHOICES, order=HAND_ORDER_CHOICES)
    @app_commands.describe(hand=_("Where your cards are shown"), order=_("In which order your cards are shown"))
    async def prefs(self, interaction: Interaction, hand: str | None = None, order: str | None = None) -> None:
        """Per person, the same in every server; applied at once to their open table. Choosing the channel
        there shows the hand right away (this answer's token then keeps it up to date)."""
        lang = language_of(interaction)
        await thinking(interaction)
        user_id = interaction.user.id
        before = await self.service.prefs.player_prefs(user_id)
        if hand is None and order is None:  # asked, not told: show the choices as they stand
            place, shown_order = (t(lang, CHOICE_TEXT_KEYS[value]) for value in (before.hand_place, before.hand_order))
            await answer(interaction, t(lang, "reply.prefs_unchanged", place=place, order=shown_order))
            return
        showing = hand == "channel" and before.hand_place == "dm"  # this command shows the hand (no turn notice)
        with hands.shown_by_command(self.runtime.messages.hands, user_id) if showing else contextlib.nullcontext():
            prefs = await self.service.prefs.set_player_prefs(user_id, hand_place=hand, hand_order=order)
            place, shown_order = (t(lang, CHOICE_TEXT_KEYS[value]) for value in (prefs.hand_place, prefs.hand_order))
            await answer(interaction, t(lang, "reply.prefs", place=place, order=shown_order))
            table = self.service.table_of_user(user_id)
            if table is None or prefs == before:
                return
            if showing and table.status == "playing" and interaction.channel_id == table.channel_id:
                # The hand is shown before the change is applied: on her turn the change would otherwise post a
                # turn notice (no hand open yet) that this hand takes down at once.
                try:
                    await show_hand(interaction, table, lang)
                finally:
                    self.runtime.prefs_changed(self.service.snapshot(table.id) or table, user_id, before)
                return
            self.runtime.prefs_changed(table, user_id, before)

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
        rated_min_people=_("People a table needs for a rated Bummerl"),
        table_threads=_("Open each new table in a thread of its own"),
        deal_review=_("Result messages offer “Show the deal” (every hand and trick)"),
        daily_channel=_("Channel where each day's daily deal results are posted"),
        web_pages=_("Web pages for this server: replays, live tables, players and boards"),
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
        rated_min_people: app_commands.Range[int, 1, 4] | None = None,
        table_threads: bool | None = None,
        deal_review: bool | None = None,
        daily_channel: discord.TextChannel | None = None,
        web_pages: bool | None = None,
    ) -> None:
        lang = language_of(interaction)
        require_manager(interaction)
        assert interaction.guild_id is not None
        await thinking(interaction)
        updated = await self.service.guilds.update_guild_settings(
            interaction.guild_id,
            language=language,
            preset=preset,
            deck=deck,
            turn_seconds=turn_time,
            ai_strength=ai_strength,
            ai_delay_ms=ai_delay_ms,
            rated_min_people=rated_min_people,
            table_threads=table_threads,
            deal_review=deal_review,
            web_pages=web_pages,
        )
        threads_line = t(lang, "settings.table_threads_on" if updated.table_threads else "settings.table_threads_off")
        review = t(lang, "settings.deal_review_on" if updated.deal_review else "settings.deal_review_off")
        if daily_channel is not None:  # the daily deal's results go there (bot/schnapsen/daily.py)
            await self.service.daily.set_channel(interaction.guild_id, daily_channel.id)
            review += " " + t(lang, "settings.daily_channel", channel=daily_channel.id)
        if web_pages is not None or updated.web_pages:
            review += " " + await web_pages_line(updated.guild_id, updated.web_pages, lang)
        await answer(
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
                rated=t(lang, "settings.rated", people=updated.rated_min_people),
            )
            + f" {review}"
            + "\n"
            + threads_line,
        )


    # --- rule settings and a person's data ---------------------------------------------------------------

    @app_commands.choices(preset=PRESET_CHOICES, **RULE_CHOICES)
    @app_commands.describe(**RULE_DESCRIPTIONS)
    async def rule_command(
        self,
        interaction: Interaction,
        preset: str | None = None,
        reset: bool = False,
        target: app_commands.Range[int, 6, 99] | None = None,
        score_display: str | None = None,
        schneider_bummerl: int | None = None,
        retourschneider_bummerl: int | None = None,
        show_all_tricks: bool | None = None,
        bettler_value: int | None = None,
        ass_bettler: bool | None = None,
        partner_sits_out: str | None = None,
        bidding_turns: int | None = None,
        schnapser_leader: str | None = None,
        schnapser_marriages: str | None = None,
        max_multiplier: int | None = None,
        kontra_forbidden: str | None = None,
        re_forbidden: str | None = None,
        sitting_out_partner_may_double: bool | None = None,
        stichzwang_contracts: str | None = None,
        undertrump_required: bool | None = None,
    ) -> None:
        """``/schnapsen server-rules`` and ``/schnapsen table-rules``: one callback, so that both have the same
        options (one per setting of docs/rules.md), each given setting checked by the service."""
        changes = given_rule_settings(locals())
        if interaction.command is not None and interaction.command.name == "server-rules":
            await self.change_server_rules(interaction, preset, reset, changes)
        else:
            await self.change_table_rules(interaction, preset, reset, changes)

    server_rules = app_commands.guild_only()(
        app_commands.default_permissions(manage_guild=True)(
            app_commands.command(
                name="server-rules", description=_("Rule settings for new tables in this server (Manage Server)")
            )(rule_command)
        )
    )
    table_rules = app_commands.guild_only()(
        app_commands.command(
            name="table-rules",
            description=_("Change the rules of the table in this channel before it starts (host)"),
        )(rule_command)
    )

    async def change_server_rules(
        self, interaction: Interaction, preset: str | None, reset: bool, changes: dict[str, Any]
    ) -> None:
        """The rules every new table of the server starts with (tables already open keep theirs); with no
        option it shows them. The host can still change a lobby's rules with table-rules."""
        lang = language_of(interaction)
        require_manager(interaction)
        assert interaction.guild_id is not None
        await thinking(interaction)
        updated = await self.service.guilds.update_guild_rules(
            interaction.guild_id, preset=preset, reset=reset, changes=changes
        )
        rules = rulesettings.ruleset_of(updated.preset, updated.rule_changes)
        await answer(interaction, t(lang, "reply.server_rules", rules=ruletexts.rules_summary(rules, lang)))

    async def change_table_rules(
        self, interaction: Interaction, preset: str | None, reset: bool, changes: dict[str, Any]
    ) -> None:
        """The host changes the lobby's rules (the table message shows them to everyone before Start); with no
        option anyone sees them. A table that has started keeps its rules."""
        lang = language_of(interaction)
        table = self.table_here(interaction)
        await thinking(interaction)
        if changes or preset is not None or reset:
            table = await self.service.set_table_rules(
                table.id, interaction.user.id, preset=preset, reset=reset, changes=changes
            )
        await answer(interaction, t(lang, "reply.table_rules", rules=ruletexts.rules_summary(table.rules, lang)))

    @app_commands.command(
        name="forget-me",
        description=_("Delete your statistics, ratings and choices, and your name from past games"),
    )
    async def forget_me(self, interaction: Interaction) -> None:
        """Asks first (only the caller sees it); the button does it (``shellbuttons.ForgetMeButton``)."""
        lang = language_of(interaction)
        view = forget_me_view(interaction.user.id, lang)
        await interaction.response.send_message(t(lang, "reply.confirm_forget"), view=view, ephemeral=True)


def given_rule_settings(arguments: dict[str, Any]) -> dict[str, Any]:
    """The rule settings a rule command was given (its arguments by name; None: not given)."""
    return {
        setting: arguments[setting]
        for setting in rulesettings.RULE_SETTINGS
        if arguments.get(setting) is not None
    }


async def setup(bot: SchnapsenBot) -> None:
    """The extension's entry (``bot.load_extension("bot.schnapsen.cog")``). discord.py runs this module afresh
    on every load and forgets it on unload; the modules it imports stay loaded."""
    await bot.tree.set_translator(CatalogueTranslator())  # slash commands in each user's client language
    await bot.add_cog(SchnapsenCog(bot))
    await bot.add_cog(DailyCog(bot))  # its /schnapsen daily group joins the group above
