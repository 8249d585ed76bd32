"""`python -m bot.copydata`: a server's SQLite database moved to PostgreSQL answers the bot's queries exactly as
before, keeps its ids and numbers new rows past them; bad input is refused with exit status 2."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot import copydata
from bot.db import BummerlRow, Database, GuildSettings, Player, PlayerPrefs, TableRow
from bot.db.transfer import copy_all, row_counts
from bot.game import ratings
from tests.bot.db.test_retention import ALICE, BOB, CAROL, DAVE, GUILD, finished_bummerl, play

NOW = 1_700_000_000


async def new_table(db: Database, channel_id: int) -> TableRow:
    return await db.tables.create_table(
        guild_id=GUILD, channel_id=channel_id, host_id=21, rules_json='"standard"', deck="french",
        turn_seconds=60, language="de", first_dealer=1, now=NOW, practice=channel_id % 2 == 0,
    )


async def fill(path: Path) -> None:
    """A server's life: a closed table with its seats, a table mid-deal, results, ratings, outbox, prefs."""
    db = await Database.open(path)
    try:
        await db.settings.save_guild_settings(GuildSettings(GUILD, language="de", rated_min_people=1, table_threads=True))
        closed = await new_table(db, 501)
        for seat, player in enumerate((ALICE, BOB, CAROL, DAVE)):
            assert player.user_id is not None
            await db.seats.take_seat(closed.id, seat, player.user_id, player.display_name)
        await play(db, closed, deals=3, actions_per_deal=6)
        await finished_bummerl(db, closed)
        row = BummerlRow(GUILD, closed.id, (ALICE, BOB), (CAROL, Player(None, "Sepp")), "schneider", 2, 24, 0, NOW)
        async with db.transaction():
            bummerl_id = await db.stats.record_bummerl(row)
            await ratings.rate_bummerl(db, row, bummerl_id, await db.settings.get_guild_settings(GUILD))
        await db.tables.set_status(closed.id, "closed", NOW + 5)
        running = await new_table(db, 502)
        await db.seats.take_seat(running.id, 0, 21, "Alice")
        await db.seats.set_ai_seat(running.id, 1, "Sepp")
        await db.seats.set_dm_message(running.id, 0, 9001, 9002)
        await db.tables.set_status(running.id, "playing", NOW + 6)
        await play(db, running, deals=2, actions_per_deal=4, finish_last=False)
        async with db.transaction():
            await db.outbox.add_announcements(running.id, [("notice", {"text": "hallo", "n": 1})], NOW)
        await db.prefs.save_player_prefs(PlayerPrefs(21, "channel", "dealt"), NOW)
        await db.meta.set("commands", "hash")
    finally:
        await db.close()


async def answers(db: Database) -> dict[str, Any]:
    """What the bot asks storage, by query."""
    tables = await db.tables.list_open_tables()
    return {
        "open": tables,
        "tables": [await db.tables.get_table(table_id) for table_id in (1, 2)],
        "seats": [await db.seats.seats_of(table_id) for table_id in (1, 2)],
        "records": [await db.records.load_record(table_id) for table_id in (1, 2)],
        "results": [await db.records.deal_results(table_id) for table_id in (1, 2)],
        "bummerl": await db.stats.all_bummerl_results(),
        "ratings": await db.ratings.all_ratings(),
        "history": await db.ratings.rating_history(GUILD, 21, 10),
        "boards": [await db.stats.leaderboard(GUILD, sort) for sort in ("rating", "bummerl", "winrate", "points")],
        "tally": await db.stats.get_tally(GUILD, (21, 22), (23, 24)),
        "stats": await db.stats.get_player_stats(GUILD, 21),
        "partners": await db.profile.partners(GUILD, 21),
        "contracts": await db.profile.contract_tallies(GUILD, 21),
        "outbox": await db.outbox.pending_announcements(),
        "prefs": await db.prefs.get_player_prefs(21),
        "settings": await db.settings.get_guild_settings(GUILD),
        "meta": await db.meta.get("commands"),
        "user": await db.seats.table_of_user(21),
        "next": await db.tables.next_table_id(),
        "counts": await row_counts(db),
    }


async def answers_of(url: str) -> dict[str, Any]:
    db = await Database.open(url)
    try:
        found = await answers(db)
        found["new_table"] = (await new_table(db, 777)).id  # numbering continues past the copied ids
        return found
    finally:
        await db.close()


def test_a_moved_database_answers_the_bots_queries_as_before(
    tmp_path: Path, pg_empty_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "old.sqlite3"
    asyncio.run(fill(source))

    assert copydata.main(["--from", f"sqlite:///{source}", "--to", pg_empty_url]) == 0

    summary = json.loads(capsys.readouterr().out)
    assert summary["from"] == "sqlite" and summary["to"] == "postgresql"
    before, after = asyncio.run(answers_of(str(source))), asyncio.run(answers_of(pg_empty_url))
    assert summary["rows"] == before["counts"]
    assert all(summary["rows"][name] > 0 for name in (
        "game_tables", "seats", "deals", "actions", "deal_results", "bummerl_results", "ratings",
        "rating_history", "outbox", "player_prefs", "player_stats", "team_tallies", "guild_settings", "meta",
    ))
    assert after == before


def test_a_postgresql_database_moves_back_to_sqlite_unchanged(
    tmp_path: Path, pg_empty_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source, back = tmp_path / "old.sqlite3", tmp_path / "back.sqlite3"
    asyncio.run(fill(source))
    assert copydata.main(["--from", str(source), "--to", pg_empty_url]) == 0
    assert copydata.main(["--from", pg_empty_url, "--to", f"sqlite:///{back}"]) == 0
    capsys.readouterr()
    assert asyncio.run(answers_of(str(back))) == asyncio.run(answers_of(str(source)))
    with sqlite3.connect(back) as conn:  # the trigger set aside for the copy is back
        triggers = {row[0] for row in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'trigger'")}
    conn.close()
    assert "seats_not_at_closed_table" in triggers


def test_a_target_holding_rows_is_refused_unless_replaced(
    tmp_path: Path, pg_empty_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "old.sqlite3"
    asyncio.run(fill(source))
    assert copydata.main(["--from", str(source), "--to", pg_empty_url]) == 0
    capsys.readouterr()

    assert copydata.main(["--from", str(source), "--to", pg_empty_url]) == 2
    assert "already holds rows" in capsys.readouterr().err

    assert copydata.main(["--from", str(source), "--to", pg_empty_url, "--replace"]) == 0
    assert asyncio.run(answers_of(pg_empty_url))["counts"] == asyncio.run(answers_of(str(source)))["counts"]


@pytest.mark.parametrize(
    ("source", "target", "message"),
    [
        ("sqlite:///{tmp}/missing.sqlite3", "sqlite:///{tmp}/new.sqlite3", "no SQLite database at"),
        ("mysql://x:hunter2@y/z", "sqlite:///{tmp}/new.sqlite3", "--from must be a file path, sqlite:///"),
        ("{tmp}/old.sqlite3", "postgresql://bot:hunter2@127.0.0.1:1/x", "--to: cannot reach the database server"),
        ("{tmp}/no-folder/old.sqlite3", "{tmp}/new.sqlite3", "no SQLite database at"),
        ("{tmp}/old.sqlite3", "{tmp}/no-folder/new.sqlite3", "--to: the folder"),
        ("{tmp}/same.sqlite3", "sqlite:///{tmp}/same.sqlite3", "the same database"),
    ],
)
def test_bad_input_exits_2_with_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str, target: str, message: str
) -> None:
    (tmp_path / "same.sqlite3").touch()
    asyncio.run(fill(tmp_path / "old.sqlite3"))
    code = copydata.main(["--from", source.format(tmp=tmp_path), "--to", target.format(tmp=tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and err.count("\n") == 1
    assert "hunter2" not in err and "Traceback" not in err
    assert not (tmp_path / "new.sqlite3").exists()


def test_copy_all_streams_every_table_in_batches_never_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No table is read whole: rows come through the batched cursor, at most `batch` at a time, and the
    copy holds every row."""
    source_path, target_path = tmp_path / "old.sqlite3", tmp_path / "new.sqlite3"
    asyncio.run(fill(source_path))

    async def copy() -> tuple[dict[str, int], list[int], dict[str, int]]:
        source, target = await Database.open(source_path), await Database.open(target_path)
        try:
            read_whole = source.core.fetch_all

            async def fetch_all(sql: str, params: Any = ()) -> Any:
                assert not sql.startswith("SELECT * FROM"), f"read a whole table: {sql}"
                return await read_whole(sql, params)

            written: list[int] = []
            write_many = target.core.execute_many

            async def execute_many(sql: str, rows: Any) -> None:
                rows = list(rows)
                written.append(len(rows))
                await write_many(sql, rows)

            monkeypatch.setattr(source.core, "fetch_all", fetch_all)
            monkeypatch.setattr(target.core, "execute_many", execute_many)
            copied = dict(await copy_all(source, target, batch=3))
            monkeypatch.undo()
            return copied, written, await row_counts(target)
        finally:
            await source.close()
            await target.close()

    copied, written, counts = asyncio.run(copy())
    assert copied == counts
    assert copied["actions"] > 3  # the largest table needed several batches
    assert max(written) == 3 and sum(written) == sum(copied.values())
    assert asyncio.run(answers_of(str(target_path))) == asyncio.run(answers_of(str(source_path)))


def test_the_old_name_only_says_the_new_one() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot.migrate", "--from", "a", "--to", "b"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "python -m bot.copydata" in done.stderr and done.stderr.count("\n") == 1


def test_the_help_is_whole(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        copydata.main(["--help"])
    assert stop.value.code == 0
    shown = capsys.readouterr().out
    assert "e.g. from SQLite to PostgreSQL:\n" not in shown
    for paragraph in (copydata.__doc__ or "").strip().split("\n\n"):
        assert paragraph.strip() in shown  # every sentence, as written
