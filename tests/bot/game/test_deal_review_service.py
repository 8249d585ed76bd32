"""``TableService.finished_deal`` ("Show the deal") on real SQLite: a finished deal of the guild's own table, as
stored, also once the table is closed; every refusal is the user's error and shows nothing of the deal."""

from __future__ import annotations

import pytest

from bot.game.errors import UserError
from bot.game.service import TableService
from tests.bot.game.conftest import Clock
from tests.bot.game.test_service import GUILD, four_at_play, play_deal

DAY = 86_400


async def refusal(service: TableService, guild: int, table_id: int, deal_no: int) -> str:
    with pytest.raises(UserError) as refused:
        await service.queries.finished_deal(guild, table_id, deal_no)
    return refused.value.key


async def test_a_finished_deal_is_shown_as_it_ended_and_nothing_else_is(service: TableService, clock: Clock) -> None:
    outcome = await play_deal(service, await four_at_play(service))
    running = outcome.table
    assert running.deal_no == 1 and outcome.finished_deal is not None

    shown = await service.queries.finished_deal(GUILD, running.id, 0)
    assert shown.deal_no == 0 and shown.deal == outcome.finished_deal

    assert await refusal(service, GUILD, running.id, 1) == "error.review_not_finished"
    assert await refusal(service, GUILD, running.id, 2) == "error.review_no_deal"
    assert await refusal(service, GUILD + 1, running.id, 0) == "error.review_no_deal"
    assert await refusal(service, GUILD, running.id + 1, 0) == "error.review_no_deal"

    await service.guilds.update_guild_settings(GUILD, deal_review=False)
    assert await refusal(service, GUILD, running.id, 0) == "error.review_off"
    await service.guilds.update_guild_settings(GUILD, deal_review=True)

    await service.close(running.id)  # a closed table's deals can still be looked at ...
    assert (await service.queries.finished_deal(GUILD, running.id, 0)).deal == outcome.finished_deal
    clock.now += 91 * DAY  # ... until its action log is pruned
    assert await service.housekeeping.prune_old_action_logs(90) == 1
    assert await refusal(service, GUILD, running.id, 0) == "error.review_pruned"


async def test_the_setting_is_kept_with_the_other_server_defaults(service: TableService) -> None:
    assert (await service.guilds.guild_settings(GUILD)).deal_review is True
    await service.guilds.update_guild_settings(GUILD, ai_delay_ms=0)
    off = await service.guilds.update_guild_settings(GUILD, deal_review=False)
    assert off.deal_review is False and off.ai_delay_ms == 0
    assert await service.guilds.guild_settings(GUILD) == off
