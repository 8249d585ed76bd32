"""The buttons' common base and the buttons that act on no running table: the leaderboard's pages, a
finished deal's "Show the deal", and the confirmation of forget-me. The table families are in
``components.py``, which registers these too (``COMPONENTS``)."""

from __future__ import annotations

import contextlib
import logging
import re
from typing import TYPE_CHECKING, Any, Self

import discord

from bot.game.errors import UserError, one_of
from bot.i18n import t
from bot.vocabulary import LEADERBOARD_SORTS, LeaderboardSort

from . import answers
from .daily import beside_text
from .ids import PATTERN
from .replies import acknowledge, answer, language_of, report_error, thinking

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from bot.client import SchnapsenBot

    Interaction = discord.Interaction[SchnapsenBot]

Button = discord.ui.Button[Any]


class ShellButton(discord.ui.DynamicItem[Button], template=PATTERN):
    """What every button shares: the throttle before its family's checks, and the one error path.

    discord.py calls no ``on_error`` for a DynamicItem: it takes a check that raises for a silent refusal and
    logs what a callback raises itself. So both end in ``on_error`` here, which answers the user. Only the
    subclasses are registered (``COMPONENTS``); this class's template is never dispatched.
    """

    lang: str  # the clicking user's language

    # discord.py's hooks take any client's interaction; ``check`` and ``clicked`` see SchnapsenBot's.
    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        self.lang = language_of(interaction)
        interaction.client.runtime.remember_lang(interaction.user.id, self.lang)
        try:
            # Routed first: a click handed on is throttled and checked by its owner, and one given back here
            # must be known as acknowledged before anything answers it.
            if not await self.routed_here(interaction):
                return False
            interaction.client.throttle.check(interaction)
            self.check(interaction)
        except Exception as error:
            await self.on_error(interaction, error)
            return False
        return True

    async def routed_here(self, interaction: Interaction) -> bool:
        """Whether this process applies the click (``routing.py``); False when it was handed on and answered."""
        return True

    def check(self, interaction: Interaction) -> None:
        """The family's own checks: raise ``UserError`` to refuse the click."""

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            await self.clicked(interaction)
        except Exception as error:
            await self.on_error(interaction, error)

    async def clicked(self, interaction: Interaction) -> None:
        raise NotImplementedError

    async def on_error(self, interaction: Interaction, error: Exception) -> None:
        await report_error(interaction, error, custom_id=self.custom_id)



class LeaderboardButton(ShellButton, template=rf"bslb:(?P<sort>{'|'.join(LEADERBOARD_SORTS)}):(?P<page>[0-9]{{1,6}})"):
    """A page of the leaderboard, ``bslb:<sort>:<page>``: turning pages edits the message it is on."""

    def __init__(self, sort: LeaderboardSort, page: int, label: str = "·", disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(label=label, custom_id=f"bslb:{sort}:{page}", disabled=disabled))
        self.sort, self.page = sort, page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(one_of(match["sort"], LEADERBOARD_SORTS), int(match["page"]))

    async def clicked(self, interaction: Interaction) -> None:
        await acknowledge(interaction)  # the page is read from storage: acknowledge first
        embed, view = await leaderboard_page(interaction, self.lang, self.sort, self.page)
        await interaction.edit_original_response(embed=embed, view=view)

    @classmethod
    def page_view(cls, sort: LeaderboardSort, page: int, pages: int, lang: str) -> discord.ui.View:
        """The buttons under page ``page`` (of ``pages``) of the board sorted by ``sort``: back, on, and the
        other sorts' first pages."""
        view = discord.ui.View(timeout=None)
        view.add_item(cls(sort, max(page - 1, 0), "◀", disabled=page == 0))
        view.add_item(cls(sort, page + 1, "▶", disabled=page + 1 >= pages))
        for other in LEADERBOARD_SORTS:
            if other != sort:
                view.add_item(cls(other, 0, t(lang, f"leaderboard.sort.{other}")))
        return view


async def leaderboard_page(
    interaction: Interaction, lang: str, sort: LeaderboardSort, page: int
) -> tuple[discord.Embed, discord.ui.View]:
    """One page of the server's leaderboard, with the caller's own rank, and the buttons to turn pages."""
    assert interaction.guild_id is not None
    embed, pages = await answers.leaderboard_embed(
        interaction.client.service, interaction.guild_id, interaction.user.id, lang, sort, page
    )
    return embed, LeaderboardButton.page_view(sort, page, pages, lang)


# "Show the deal" on a result message: a finished deal of a table, open or closed (so not a ``bs:`` id, whose
# family acts only on open tables).
class DealReviewButton(ShellButton, template=r"bsdeal:(?P<table>[0-9]{1,18}):(?P<deal>[0-9]{1,9})"):
    """ "Show the deal" on a result message, ``bsdeal:<table>:<deal>``: the four hands as dealt and every trick,
    ephemerally. The service refuses (showing nothing) a deal that is not finished, another guild's table, and
    a guild that turned deal review off; it reads the stored record, so old results and restarts are fine. A
    daily attempt's deal it shows only to its player (from their DM or their ephemeral results in a channel),
    with the AI's play of the same cards beside."""

    def __init__(self, table_id: int, deal_no: int, label: str = "·") -> None:
        super().__init__(discord.ui.Button(label=label[:80], custom_id=f"bsdeal:{table_id}:{deal_no}"))
        self.table_id, self.deal_no = table_id, deal_no

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(int(match["table"]), int(match["deal"]))

    async def clicked(self, interaction: Interaction) -> None:
        await thinking(interaction)  # the record is read from storage: acknowledge first
        # In a DM (a daily attempt's results are there) only the clicking person's own attempt is shown.
        service, viewer = interaction.client.service, interaction.user.id
        table = await service.queries.finished_deal(interaction.guild_id, self.table_id, self.deal_no, viewer=viewer)
        payload = await answers.deal_review_payload(table, self.lang)
        if (replay := await answers.replay_link(table.guild_id, table.id, table.deal_no, self.lang)) is not None:
            payload.view = discord.ui.View(timeout=None)
            payload.view.add_item(replay)  # the same deal step by step on the web (docs/web.md)
        await interaction.followup.send(ephemeral=True, **payload.send_kwargs())
        if await service.daily.is_attempt(self.table_id):  # and the AI's play of the same cards beside, once par is in
            with contextlib.suppress(UserError):
                beside = await service.daily.beside_par(viewer, self.deal_no, table_id=self.table_id)
                await interaction.followup.send(ephemeral=True, content=beside_text(self.lang, beside)[:2000])


class ForgetMeButton(ShellButton, template=r"bsforget:(?P<user>[0-9]{1,20})"):
    """The confirmation of ``/schnapsen forget-me``, ``bsforget:<user>``: only that person's click deletes
    that person's data (the id is untrusted: another user's click, or a forged id, is refused)."""

    def __init__(self, user_id: int, label: str = "·") -> None:
        super().__init__(
            discord.ui.Button(label=label[:80], custom_id=f"bsforget:{user_id}", style=discord.ButtonStyle.danger)
        )
        self.user_id = user_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(int(match["user"]))

    def check(self, interaction: Interaction) -> None:
        if interaction.user.id != self.user_id:
            raise UserError("error.not_your_seat")

    async def clicked(self, interaction: Interaction) -> None:
        await thinking(interaction)  # one transaction over several tables: acknowledge first
        try:
            await interaction.client.service.prefs.forget_person(self.user_id)
        except UserError:
            raise  # seated at a table: answered as any refusal
        except Exception:
            # One transaction: a failure rolled all of it back, so the person may truly be told nothing went.
            log.exception("forget-me of user=%s failed and was rolled back", self.user_id)
            await answer(interaction, t(self.lang, "error.forget_failed"))
            return
        await answer(interaction, t(self.lang, "reply.forgotten"))


def forget_me_view(user_id: int, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ForgetMeButton(user_id, t(lang, "button.confirm_forget")))
    return view
