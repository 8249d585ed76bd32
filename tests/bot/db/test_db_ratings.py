"""Ratings in storage: the migration from schema 2 gives a database with stored results its ratings, a rebuild
from the stored results equals the ratings written Bummerl by Bummerl, and ``python -m bot.ratings rebuild``."""

from __future__ import annotations

import asyncio
import random
import shutil
from pathlib import Path

import pytest

from bot import ratings as ratings_command
from bot.db import AI_IDENTITIES, MIGRATIONS_DIR, BummerlRow, Database, GuildSettings, Player
from bot.db.ratings import REBUILD_PENDING
from bot.game import ratings
from bot.game.service import TableService

PEOPLE = [Player(user_id, f"p{user_id}") for user_id in range(21, 29)]
AI = Player(None, "Sepp")


def random_bummerl(rng: random.Random, guild_id: int, table_id: int) -> BummerlRow:
    seated = rng.sample([*PEOPLE, AI, AI], 4)
    return BummerlRow(
        guild_id, table_id, (seated[0], seated[2]), (seated[1], seated[3]), "bummerl", 1, 24, rng.randrange(24), 0,
        ai_strength=rng.choice(["pimc", "greedy"]),
    )


async def play_results(db: Database, table_ids: dict[int, int], n: int, seed: int = 3) -> None:
    """Store ``n`` random Bummerl over the guilds of ``table_ids`` (guild -> table), rated as the service does."""
    rng = random.Random(seed)
    for _ in range(n):
        guild = rng.choice(sorted(table_ids))
        row = random_bummerl(rng, guild, table_ids[guild])
        async with db.transaction():
            bummerl_id = await db.stats.record_bummerl(row)
            await ratings.rate_bummerl(db, row, bummerl_id, await db.settings.get_guild_settings(guild))


async def history_rows(db: Database) -> list[tuple]:
    rows = await db.core.fetch_all("SELECT * FROM rating_history ORDER BY bummerl_id, player_id")
    return [tuple(dict(row).values()) for row in rows]


async def test_a_rebuild_from_the_stored_results_equals_the_ratings_written_bummerl_by_bummerl(
    db: Database, make_table
) -> None:
    tables = {1: (await make_table(channel_id=500, guild_id=1)).id, 2: (await make_table(channel_id=501, guild_id=2)).id}
    await db.settings.save_guild_settings(GuildSettings(2, rated_min_people=3))
    await play_results(db, tables, 120)
    incremental, incremental_history = await db.ratings.all_ratings(), await history_rows(db)
    assert {guild for guild, _ in incremental} == {1, 2}
    assert any(rating.player_id in AI_IDENTITIES.values() for _, rating in incremental)

    rated = await ratings.rebuild(db)
    assert rated == len({row[0] for row in incremental_history})
    assert await db.ratings.all_ratings() == incremental
    assert await history_rows(db) == incremental_history


async def test_the_migration_from_schema_2_gives_stored_results_their_ratings(tmp_path: Path) -> None:
    older = tmp_path / "migrations-002"
    older.mkdir()
    for name in ("001-initial.sql", "002-outbox.sql"):
        shutil.copy(MIGRATIONS_DIR / name, older / name)
    path = tmp_path / "bot.db"
    db = await Database.open(path, migrations_dir=older)
    try:
        async with db.transaction():  # a server of today: greedy AI, three Bummerl stored
            await db.core.execute(
                "INSERT INTO guild_settings (guild_id, language, preset, deck, turn_seconds, ai_strength, ai_delay_ms)"
                " VALUES (1, NULL, 'standard', 'french', 60, 'greedy', 0)"
            )
            # A table as schema 2 stores it (today's create_table writes columns later migrations added).
            await db.core.execute(
                "INSERT INTO game_tables (id, guild_id, channel_id, host_id, status, rules_json, deck, turn_seconds,"
                " language, first_dealer, created_at, updated_at)"
                " VALUES (1, 1, 500, 21, 'lobby', '\"standard\"', 'french', 60, 'en', 0, 0, 0)"
            )
            table_id = 1
            for winners, losers in (((21, 22), (23, None)), ((23, None), (21, 22)), ((21, 23), (22, 24))):
                await db.core.execute(
                    "INSERT INTO bummerl_results (guild_id, table_id, winner1_id, winner1_name, winner2_id,"
                    " winner2_name, loser1_id, loser1_name, loser2_id, loser2_name, kind, count, score_winner,"
                    " score_loser, finished_at) VALUES (1, ?, ?, 'w1', ?, 'w2', ?, 'l1', ?, 'l2', 'bummerl', 1, 24,"
                    " 5, 0)",
                    (table_id, *winners, *losers),
                )
    finally:
        await db.close()

    db = await Database.open(path)  # migration 003
    try:
        assert await db.meta.get(REBUILD_PENDING) == "1"
        assert {row.ai_strength for row in await db.stats.all_bummerl_results()} == {"greedy"}
        assert (await db.settings.get_guild_settings(1)).rated_min_people == 2
        await TableService(db).restorer.restore_all()  # the bot's start computes them
        assert await db.meta.get(REBUILD_PENDING) is None
        stored = {rating.player_id: rating.games for _, rating in await db.ratings.all_ratings()}
        assert stored == {21: 3, 22: 3, 23: 3, 24: 1, AI_IDENTITIES["greedy"]: 2}
        assert await TableService(db).restorer.restore_all() is not None  # a second start has nothing to do
        assert await db.meta.get(REBUILD_PENDING) is None
    finally:
        await db.close()


async def test_a_new_database_has_no_rebuild_pending(db: Database) -> None:
    assert await db.meta.get(REBUILD_PENDING) is None
    assert await ratings.rebuild_if_pending(db) is None


def test_the_rebuild_command_recomputes_the_ratings_of_a_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bot.db"

    async def store_and_forget() -> list:
        db = await Database.open(path)
        try:
            table = await db.tables.create_table(
                guild_id=1, channel_id=500, host_id=21, rules_json='"standard"', deck="french", turn_seconds=60,
                language="en", first_dealer=0, now=0,
            )
            await play_results(db, {1: table.id}, 10)
            before = await db.ratings.all_ratings()
            await db.ratings.clear_ratings()
            return before
        finally:
            await db.close()

    async def stored() -> list:
        db = await Database.open(path)
        try:
            return await db.ratings.all_ratings()
        finally:
            await db.close()

    before = asyncio.run(store_and_forget())
    assert before and asyncio.run(stored()) == []
    assert ratings_command.main(["rebuild", "--database", str(path)]) == 0
    assert "10 rated Bummerl" in capsys.readouterr().out
    assert asyncio.run(stored()) == before


def test_the_rebuild_command_refuses_a_missing_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ratings_command.main(["rebuild", "--database", str(tmp_path / "none.db")]) == 3
    assert "no database" in capsys.readouterr().err
    assert not (tmp_path / "none.db").exists()


async def test_of_processes_starting_together_on_one_database_only_one_rebuilds_the_ratings(
    db: Database, make_table, database_engine: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    tables = {1: (await make_table(channel_id=500, guild_id=1)).id}
    await play_results(db, tables, 10)
    async with db.transaction():
        await db.meta.set(REBUILD_PENDING, "1")
    # Three processes' connections to the same database (the same file, or the same server).
    target = request.getfixturevalue("pg_url") if database_engine == "postgresql" else tmp_path / "bot.db"
    others = [await Database.open(target) for _ in range(2)]
    try:
        rebuilt = await asyncio.gather(*(ratings.rebuild_if_pending(each) for each in (db, *others)))
    finally:
        for other in others:
            await other.close()
    assert sorted(rebuilt, key=lambda n: n is None) == [10, None, None]
    assert await db.meta.get(REBUILD_PENDING) is None
