"""SHARD_COUNT and SHARD_IDS: which shards one process holds, and the guilds whose tables it serves."""

from __future__ import annotations

import pytest

from bot.settings import Settings, SettingsError
from bot.shards import ShardRange, shard_of

# Several processes share a PostgreSQL database; on SQLite one process holds every shard (below).
TOKEN = {"DISCORD_TOKEN": "token", "DATABASE_URL": "postgresql://bot@db/schnapsen"}


def shards_from(**env: str) -> ShardRange | None:
    return Settings.from_env({**TOKEN, **env}).shards


def test_without_shard_settings_one_process_serves_every_guild() -> None:
    assert shards_from() is None
    assert Settings(token="t").shards is None


@pytest.mark.parametrize(
    ("count", "ids", "expected"),
    [
        ("4", "0-3", (0, 1, 2, 3)),
        ("2", "1", (1,)),
        ("4", "0,2", (0, 2)),
        ("8", " 0-1, 6 ,4-5 ", (0, 1, 4, 5, 6)),
        ("3", "", (0, 1, 2)),  # a count alone: this process holds all of them
        (" 1 ", "0", (0,)),
    ],
)
def test_shard_ids_as_ranges_and_single_ids(count: str, ids: str, expected: tuple[int, ...]) -> None:
    assert shards_from(SHARD_COUNT=count, SHARD_IDS=ids) == ShardRange(int(count), expected)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"SHARD_IDS": "0-1"}, "SHARD_IDS is '0-1' but SHARD_COUNT is not set"),
        ({"SHARD_COUNT": "0"}, "SHARD_COUNT must be a whole number of shards from 1 to 1024, not '0'"),
        ({"SHARD_COUNT": "1025"}, "SHARD_COUNT must be a whole number of shards from 1 to 1024, not '1025'"),
        ({"SHARD_COUNT": "1000000000", "SHARD_IDS": "0-99999999"}, "SHARD_COUNT must be a whole number"),
        ({"SHARD_COUNT": "1024", "SHARD_IDS": "0-99999999999999999999"}, "names shard 99999999999999999999, but"),
        ({"SHARD_COUNT": "two"}, "SHARD_COUNT must be a whole number"),
        ({"SHARD_COUNT": "-2"}, "SHARD_COUNT must be a whole number"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "0-2"}, "names shard 2, but SHARD_COUNT is 2: shard ids run from 0 to 1"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "3-1"}, "the range '3-1' runs backwards; write it as 1-3"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "0-2,1"}, "names shard 1 twice"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "a"}, "SHARD_IDS must list shard ids such as 0-3, 1 or 0,2"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "1,,2"}, "SHARD_IDS must list shard ids"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "-1"}, "SHARD_IDS must list shard ids"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "0-"}, "SHARD_IDS must list shard ids"),
    ],
)
def test_wrong_shard_settings_are_refused_with_what_to_write(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message.replace("(", r"\(")):
        Settings.from_env({**TOKEN, **env})


def test_a_guild_belongs_to_exactly_one_range_of_a_split() -> None:
    halves = ShardRange.parse("4", "0-1"), ShardRange.parse("4", "2-3")
    for guild_id in (41771983423143937, 1 << 22, 2 << 22, 3 << 22, 1_300_000_000_000_000_000):
        owners = [half for half in halves if half.owns_guild(guild_id)]
        assert len(owners) == 1
        assert shard_of(guild_id, 4) in owners[0].ids


@pytest.mark.parametrize("database", [{}, {"DATABASE_PATH": "bot.sqlite3"}, {"DATABASE_URL": "sqlite:///bot.sqlite3"}])
def test_on_sqlite_one_process_holds_every_shard(database: dict[str, str]) -> None:
    env = {"DISCORD_TOKEN": "token", **database}
    assert Settings.from_env({**env, "SHARD_COUNT": "2"}).shards == ShardRange(2, (0, 1))
    assert Settings.from_env({**env, "SHARD_COUNT": "2", "SHARD_IDS": "0-1"}).shards == ShardRange(2, (0, 1))
    for ids in ("1", "0"):  # without shard 0 nothing would take DM clicks; without 1 its guilds go unserved
        with pytest.raises(SettingsError, match="the database is SQLite, which one process serves"):
            Settings.from_env({**env, "SHARD_COUNT": "2", "SHARD_IDS": ids})
