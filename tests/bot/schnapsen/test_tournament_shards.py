"""A server tournament lives in the process holding its guild's Discord shard (docs/bot.md, "Tournaments"):
its commands arrive there, its tables are served there, and at start-up only that process picks up its
running tournaments and start times. A process holding other shards, on the same database, leaves them alone."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace

from bot.game.table import TableSnapshot
from bot.schnapsen.tournaments import TournamentCommands
from bot.shards import ShardRange
from devtools.fakediscord import FakeDiscord
from tests.bot.schnapsen.harness import Table
from tests.bot.schnapsen.test_tournaments import (
    CREATE,
    MANAGE_THREADS,
    SEND_IN_THREADS,
    command,
    grant_bot,
    knockout_signed_up,
    matches_of_round,
)


def test_the_tournament_commands_come_only_from_a_guild() -> None:
    """A DM interaction arrives on shard 0 whatever guild it is about; a guild's one on its own shard. The
    group being guild-only is what keeps every tournament command in the guild's process."""
    group = TournamentCommands(SimpleNamespace())  # type: ignore[arg-type]  # the runner is not called
    assert group.guild_only
    assert {command.name for command in group.commands} >= {"create", "start", "result", "pause", "resume"}


async def test_only_the_process_holding_the_guilds_shard_runs_its_tournaments(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    world = Table(fake_discord, tmp_path / "bot.sqlite3", guild_shard=(0, 2))
    try:
        grant_bot(world, CREATE | SEND_IN_THREADS | MANAGE_THREADS)
        home = world.home = world.channel  # type: ignore[attr-defined]
        people = [world.add_player(f"p{n}") for n in range(1, 9)]
        bot = await world.start_bot()  # not sharded: every guild's
        running = await knockout_signed_up(world, people)
        await command(world, world.admin, "start")
        round_1 = await matches_of_round(world, running.id, 1)
        world.home = world.guild.add_text_channel("later-cup")  # type: ignore[attr-defined]
        await command(world, world.admin, "create", name="Later Cup", start="2h")
        later = next(t for t in await bot.db.tournaments.open_tournaments() if t.id != running.id)
        world.home = home  # type: ignore[attr-defined]
        await world.stop_bot()

        # Another process, holding shard 1 of 2 only, starts on the same database: nothing of the guild's.
        world.settings = dataclasses.replace(world.settings, shards=ShardRange(2, (1,)))
        bot = await world.start_bot()
        runner = bot.get_cog("TournamentRunner")
        assert bot.service.open_tables() == [], "the matches' tables are not served here"
        assert (runner._jobs, runner._start_timers, runner._watched) == (set(), set(), set()), "no drive, no timer"
        await world.stop_bot()

        # The guild's process (shard 0 of 2) takes both up: the start timer, and the round goes on.
        world.settings = dataclasses.replace(world.settings, shards=ShardRange(2, (0,)))
        bot = await world.start_bot()
        runner = bot.get_cog("TournamentRunner")
        assert runner._start_timers == {later.id}
        assert {t.id for t in bot.service.open_tables()} == {m.table_id for m in round_1}
        teams = {team.id: team for team in await bot.db.tournaments.teams(running.id)}
        for match in round_1:
            await command(world, world.admin, "result", match=match.id, winner=teams[match.first_team].seed,
                          reason="agreed")  # fmt: skip

        def final_table() -> TableSnapshot | None:
            threads = {t.id for t in home.threads if " · 2 · " in t.name}
            return next((t for t in bot.service.open_tables() if t.channel_id in threads), None)

        await fake_discord.wait_for(final_table, timeout=10, what="the final's table, opened by the owner")
    finally:
        if world.bot is not None:
            await world.stop_bot()
