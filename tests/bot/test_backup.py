"""`python -m bot.backup DEST`: an online copy made with SQLite's backup API while the bot writes, verified,
renamed into place atomically, rotated; clear exit codes and no traceback on the usual failures."""

from __future__ import annotations

import asyncio
import errno
import os
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

import bot
import bot.backup as backup
from bot.backup import make_backup, rotate
from bot.db import Database, TableRow

ROOT = Path(bot.__file__).resolve().parents[1]
NOW = 1_700_000_000
HANDS = [[f"c{seat}{n}" for n in range(5)] for seat in range(4)]


async def new_table(db: Database, channel_id: int = 500) -> TableRow:
    table = await db.tables.create_table(
        guild_id=1, channel_id=channel_id, host_id=11, rules_json='"standard"', deck="doppeldeutsch",
        turn_seconds=60, language="en", first_dealer=3, now=NOW,
    )
    await db.records.start_deal(table.id, 0, dealer=3, seed=7, hands=HANDS, now=NOW)
    return table


def copies(dest: Path) -> list[str]:
    return sorted(path.name for path in dest.iterdir() if backup.BACKUP_NAME.match(path.name) and path.is_file())


def stored_actions(path: Path, table_id: int) -> list[int]:
    with sqlite3.connect(path) as conn:
        return [row[0] for row in conn.execute(
            "SELECT seq FROM actions WHERE table_id = ? ORDER BY seq", (table_id,)
        )]


def integrity(path: Path) -> list[tuple[str]]:
    with sqlite3.connect(path) as conn:
        return conn.execute("PRAGMA integrity_check").fetchall()


async def test_a_backup_taken_while_the_bot_holds_a_write_transaction_has_every_committed_action(
    tmp_path: Path,
) -> None:
    path, dest = tmp_path / "bot.sqlite3", tmp_path / "backups"
    async with await Database.open(path) as db:
        table = await new_table(db)
        for n in range(50):
            await db.records.append_action(table.id, 0, f"N play c{n}", NOW)
        assert (tmp_path / "bot.sqlite3-wal").stat().st_size > 0  # the newest commits are in the WAL only

        async with db.transaction():  # the bot is in the middle of a write: the backup neither waits nor sees it
            await db.records.append_action(table.id, 0, "uncommitted", NOW)
            result = await asyncio.to_thread(make_backup, path, dest)

    assert result.path.parent == dest
    assert copies(dest) == [result.path.name]
    assert [p.name for p in dest.iterdir()] == [result.path.name]  # no partial file, no -wal or -journal
    assert integrity(result.path) == [("ok",)]
    assert stored_actions(result.path, table.id) == list(range(50))
    with sqlite3.connect(result.path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)  # one self-contained file
    async with await Database.open(result.path) as restored:  # the bot can start from it
        record = await restored.records.load_record(table.id)
        assert len(record.deals[0].actions) == 50
        assert [row.id for row in await restored.tables.list_open_tables()] == [table.id]


async def test_backups_taken_while_another_task_keeps_writing_are_consistent(tmp_path: Path) -> None:
    path, dest = tmp_path / "bot.sqlite3", tmp_path / "backups"
    async with await Database.open(path) as db:
        table = await new_table(db)
        async with db.transaction():  # some bulk, so that a copy takes a moment
            for n in range(3000):
                await db.core.execute(
                    "INSERT INTO meta (key, value) VALUES (?, ?)", (f"filler{n}", "x" * 200)
                )
        stop = asyncio.Event()

        async def keep_writing() -> int:
            written = 0
            while not stop.is_set():
                await db.records.append_action(table.id, 0, f"N play c{written}", NOW)
                written += 1
            return written

        writer = asyncio.create_task(keep_writing())
        results = []
        for second in range(3):
            stamp = datetime(2026, 1, 1, 4, 15, second, tzinfo=UTC)
            results.append(await asyncio.to_thread(make_backup, path, dest, keep=14, now=stamp))
        stop.set()
        written = await writer

    counts = []
    for result in results:
        assert integrity(result.path) == [("ok",)]
        seqs = stored_actions(result.path, table.id)
        assert seqs == list(range(len(seqs)))  # a snapshot: a prefix of the actions, no gaps
        counts.append(len(seqs))
    assert counts == sorted(counts) and counts[-1] <= written
    assert stored_actions(path, table.id) == list(range(written))  # the writer was never refused


def test_rotation_keeps_the_newest_n_of_its_own_files_and_nothing_else_is_touched(tmp_path: Path) -> None:
    path, dest = tmp_path / "bot.sqlite3", tmp_path / "backups"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (x)")
    dest.mkdir()
    foreign = [
        "notes.txt", "schnapsen.sqlite3", "schnapsen-latest.sqlite3", "other-20200101-000000.sqlite3",
        "schnapsen-20200101-000000.sqlite3.gz", "schnapsen-2020-01-01.sqlite3",
    ]
    for name in foreign:
        (dest / name).write_text("keep me")
    (dest / "schnapsen-20190101-000000.sqlite3").mkdir()  # a folder with a backup's name: not ours
    for day in range(1, 6):
        (dest / f"schnapsen-202001{day:02d}-000000.sqlite3").write_text("old")

    made = [
        make_backup(path, dest, keep=3, now=datetime(2026, 1, 1, 4, 15, 0, tzinfo=UTC)),
        make_backup(path, dest, keep=3, now=datetime(2026, 1, 1, 4, 15, 0, tzinfo=UTC)),  # same second
    ]
    assert [result.path.name for result in made] == [
        "schnapsen-20260101-041500.sqlite3", "schnapsen-20260101-041500-2.sqlite3",
    ]
    assert copies(dest) == [
        "schnapsen-20200105-000000.sqlite3", "schnapsen-20260101-041500-2.sqlite3",
        "schnapsen-20260101-041500.sqlite3",
    ]
    for name in foreign:
        assert (dest / name).read_text() == "keep me"
    assert (dest / "schnapsen-20190101-000000.sqlite3").is_dir()
    assert [p.name for p in made[0].removed] == [f"schnapsen-202001{day:02d}-000000.sqlite3" for day in (1, 2, 3)]
    assert [p.name for p in made[1].removed] == ["schnapsen-20200104-000000.sqlite3"]
    assert rotate(dest, keep=1) == [dest / "schnapsen-20200105-000000.sqlite3", dest / "schnapsen-20260101-041500.sqlite3"]
    assert copies(dest) == ["schnapsen-20260101-041500-2.sqlite3"]


@pytest.mark.parametrize(
    "fault",
    [
        pytest.param("sqlite", id="SQLITE_FULL"),
        pytest.param("os", id="ENOSPC"),
    ],
)
def test_a_full_disk_is_reported_with_its_own_exit_code_and_leaves_no_partial_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fault: str
) -> None:
    path, dest = tmp_path / "bot.sqlite3", tmp_path / "backups"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (x)")
    dest.mkdir()
    (dest / "schnapsen-20200101-000000.sqlite3").write_text("an older backup")

    def full_disk(source: sqlite3.Connection, target: sqlite3.Connection) -> None:
        if fault == "os":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        # A real SQLITE_FULL from SQLite: the target may not grow.
        target.execute("PRAGMA max_page_count = 1")
        target.execute("CREATE TABLE filler (x)")
        target.execute("INSERT INTO filler VALUES (zeroblob(100000))")

    monkeypatch.setattr(backup, "_copy", full_disk)
    assert backup.main([str(dest), "--database", str(path)]) == backup.EXIT_NO_SPACE
    err = capsys.readouterr().err
    assert "no space left" in err and "Traceback" not in err
    assert sorted(p.name for p in dest.iterdir()) == ["schnapsen-20200101-000000.sqlite3"]


# ---- the command line, in a child process as cron or systemd would run it --------------------------------


def run_cli(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {
        key: value for key, value in os.environ.items()
        if key not in ("DISCORD_TOKEN", "DATABASE_PATH", "DATABASE_URL", "DB_SYNCHRONOUS", "RETENTION_DAYS")
    }
    environment["PYTHONPATH"] = str(ROOT)
    environment.update(env)
    return subprocess.run(
        [sys.executable, "-m", "bot.backup", *args], cwd=cwd, env=environment, capture_output=True, text=True,
        timeout=60,
    )


def make_database(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("CREATE TABLE t (x)")
        conn.execute("INSERT INTO t VALUES (42)")


def test_cli_reads_database_path_from_the_environment_without_a_token(tmp_path: Path) -> None:
    make_database(tmp_path / "custom.sqlite3")
    done = run_cli(tmp_path, "backups", "--keep", "2", DATABASE_PATH="custom.sqlite3")
    assert done.returncode == 0, done.stderr
    [copy] = copies(tmp_path / "backups")
    assert str(tmp_path / "backups" / copy) in done.stdout
    with sqlite3.connect(tmp_path / "backups" / copy) as conn:
        assert conn.execute("SELECT x FROM t").fetchall() == [(42,)]


def test_cli_reads_database_path_from_dotenv_in_the_working_directory(tmp_path: Path) -> None:
    make_database(tmp_path / "from-dotenv.sqlite3")
    (tmp_path / ".env").write_text("DISCORD_TOKEN=\nDATABASE_PATH=from-dotenv.sqlite3\n", encoding="utf-8")
    done = run_cli(tmp_path, str(tmp_path / "backups"))
    assert done.returncode == 0, done.stderr
    assert len(copies(tmp_path / "backups")) == 1


def test_cli_missing_database_exits_3_and_creates_nothing(tmp_path: Path) -> None:
    done = run_cli(tmp_path, "backups")  # default path schnapsen.sqlite3 in the working directory
    assert done.returncode == backup.EXIT_NO_DATABASE == 3
    assert "no database at" in done.stderr and str(tmp_path / "schnapsen.sqlite3") in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "schnapsen.sqlite3").exists()
    assert not (tmp_path / "backups").exists()


def test_cli_a_file_that_is_not_a_database_exits_3(tmp_path: Path) -> None:
    (tmp_path / "schnapsen.sqlite3").write_text("not a database at all, " * 100)
    done = run_cli(tmp_path, "backups")
    assert done.returncode == 3
    assert "not an SQLite database" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "backups").exists()


def test_cli_unusable_destination_exits_4(tmp_path: Path) -> None:
    make_database(tmp_path / "schnapsen.sqlite3")
    (tmp_path / "a-file").write_text("")
    for dest in ("a-file", "a-file/below"):
        done = run_cli(tmp_path, dest)
        assert done.returncode == backup.EXIT_DESTINATION == 4, done.stderr
        assert "cannot write backups to" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_cli_read_only_destination_exits_4(tmp_path: Path) -> None:
    make_database(tmp_path / "schnapsen.sqlite3")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        done = run_cli(tmp_path, str(locked))
    finally:
        locked.chmod(0o700)
    assert done.returncode == 4
    assert "cannot write backups to" in done.stderr and "Traceback" not in done.stderr


def test_cli_refuses_keep_below_one(tmp_path: Path) -> None:
    make_database(tmp_path / "schnapsen.sqlite3")
    done = run_cli(tmp_path, "backups", "--keep", "0")
    assert done.returncode == 2
    assert "--keep" in done.stderr and "Traceback" not in done.stderr


def test_cli_reads_a_sqlite_database_url(tmp_path: Path) -> None:
    make_database(tmp_path / "custom.sqlite3")
    done = run_cli(tmp_path, "backups", DATABASE_URL="sqlite:///custom.sqlite3")
    assert done.returncode == 0, done.stderr
    assert len(copies(tmp_path / "backups")) == 1


def test_backups_and_their_folder_are_private_whatever_the_umask(tmp_path: Path) -> None:
    make_database(tmp_path / "schnapsen.sqlite3")
    previous = os.umask(0)  # the laxest: everything would be world-writable
    try:
        made = make_backup(tmp_path / "schnapsen.sqlite3", tmp_path / "new" / "backups")
    finally:
        os.umask(previous)
    assert made.path.stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "new" / "backups").stat().st_mode & 0o777 == 0o700


# ---- PostgreSQL: pg_dump, checked, rotated, restorable ----------------------------------------------------------


async def _fill(url: str) -> None:
    async with await Database.open(url) as db:
        await new_table(db, channel_id=777)


async def _channels(url: str) -> list[int]:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        return [row["channel_id"] for row in await conn.fetch("SELECT channel_id FROM game_tables ORDER BY id")]
    finally:
        await conn.close()


def test_a_postgresql_database_is_dumped_checked_rotated_and_restorable(
    pg_cluster: object, pg_url: str, tmp_path: Path
) -> None:
    from devtools.pgcluster import Cluster
    from tests.bot.conftest import new_pg_database

    assert isinstance(pg_cluster, Cluster)
    asyncio.run(_fill(pg_url))
    dest = tmp_path / "backups"
    for _ in range(3):
        done = run_cli(tmp_path, str(dest), "--keep", "2", DATABASE_URL=pg_url)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"backup written: {dest}/schnapsen-") and "pg_restore reads it" in done.stdout
    dumps = sorted(dest.glob("schnapsen-*.dump"))
    assert len(dumps) == 2  # the oldest of three went
    assert all(dump.stat().st_mode & 0o777 == 0o600 for dump in dumps)
    assert not list(dest.glob(".schnapsen-backup-*"))

    empty = asyncio.run(new_pg_database(pg_cluster, migrated=False))
    restored = subprocess.run(
        ["pg_restore", "--no-owner", "--exit-on-error", "--single-transaction", f"--dbname={empty}", str(dumps[-1])],
        capture_output=True, text=True, check=False,
    )
    assert restored.returncode == 0, restored.stderr
    assert asyncio.run(_channels(empty)) == [777]


def test_an_unreachable_postgresql_server_is_one_line_without_its_password(tmp_path: Path) -> None:
    url = f"postgresql://bot:hunter2@/schnapsen?host={tmp_path}&port=1"  # a socket folder with no server
    done = run_cli(tmp_path, "backups", DATABASE_URL=url)
    assert done.returncode == backup.EXIT_NO_DATABASE, done.stderr
    assert done.stderr.startswith("backup failed: cannot reach the database postgresql://bot:***@")
    assert done.stderr.count("\n") == 1 and "hunter2" not in done.stderr and "Traceback" not in done.stderr
    assert not list((tmp_path / "backups").iterdir())  # no partial file left
