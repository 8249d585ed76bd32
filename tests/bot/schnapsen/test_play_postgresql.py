"""The bot on PostgreSQL (DATABASE_URL=postgresql://...), end to end through the real client and the fake
Discord: four people play a Bummerl by DM, the bot is restarted mid-deal and play goes on, and the stored
record is what was accepted. (The same game on SQLite: test_play.py.)"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from devtools.fakediscord import FakeDiscord
from tests.bot.schnapsen.harness import Table, current_button


@pytest_asyncio.fixture
async def pg_world(fake_discord: FakeDiscord, pg_url: str) -> AsyncIterator[Table]:
    table = Table(fake_discord, pg_url)  # type: ignore[arg-type]  # the harness names it a path; a URL works
    yield table
    if table.bot is not None:
        await table.stop_bot()


async def test_people_play_on_postgresql_through_a_restart_mid_deal(
    fake_discord: FakeDiscord, pg_world: Table
) -> None:
    world = pg_world
    people = [world.add_player(name) for name in ("anna", "bert", "cilli", "dieter")]
    bot = await world.start_bot()
    assert bot.db.dialect == "postgresql"
    table = await world.open_table(people[0], people[1:], target=5)
    await world.play(
        people,
        until=lambda t: (
            len(t.log) >= 6
            and t.deal.to_act == 0
            and current_button(world.hand_message(people[0]), t.version) is not None
        ),
    )
    table_id, version = table.id, table.version
    old_dm = world.hand_message(people[0])
    assert old_dm is not None
    button = current_button(old_dm, version)
    assert button is not None
    stored = await world.stored(table_id)

    await world.stop_bot()
    restarted = await world.start_bot()
    restored = restarted.service.snapshot(table_id)
    assert restored is not None and restored.version == version
    assert await world.stored(table_id) == stored

    await world.click_and_settle(people[0], old_dm, button["custom_id"])  # a DM of the first instance
    clicks = await world.play(people, timeout=60)

    assert world.live.status == "finished"
    after = await world.stored(table_id)
    assert after.record.deals[: len(stored.record.deals) - 1] == stored.record.deals[:-1]
    assert sum(len(deal.actions) for deal in after.record.deals) >= clicks
    assert (await restarted.db.stats.leaderboard(world.guild.id)).total == 4  # the Bummerl counted for all four
