"""Every setting the bot reads, with good, bad and edge values: a bad one is one sentence naming the variable,
exit status 2, no traceback and never a secret; the database is reached (or not) before logging in; a wrong
token or no network at login is one sentence too; the admin commands name their database as the bot does."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import socket
import subprocess
import sys
import tomllib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import discord
import pytest

from bot import ratings as ratings_command
from bot.client import StartError, login, make_bot
from bot.connect import Unreachable, open_database
from bot.settings import MAX_RETENTION_DAYS, Settings, SettingsError, database_path_from_env, mask_url
from bot.shards import MAX_SHARD_COUNT, ShardRange
from bot.version import version
from devtools.fakediscord import FakeDiscord
from engine.ai import solver as ai_solver
from tests.bot.schnapsen.harness import BOT_START_SECONDS
from tests.bot.schnapsen.harness import test_settings as quick_settings

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.s3cr3t-t0ken-never-shown"
PASSWORD = "hunter2"  # in every URL below that has a password: it must never be shown
PG = "postgresql://bot@db/schnapsen"


def closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# (environment besides the token, the setting it should give: (attribute, value)) — every variable read.
GOOD: list[tuple[dict[str, str], tuple[str, Any]]] = [
    ({}, ("database_path", "schnapsen.sqlite3")),
    ({"DATABASE_PATH": " data/bot.sqlite3 "}, ("database_path", "data/bot.sqlite3")),
    ({"DATABASE_PATH": "sqlite:///data/bot.sqlite3"}, ("database_path", "sqlite:///data/bot.sqlite3")),
    ({"DATABASE_URL": "sqlite:///bot.sqlite3"}, ("database_path", "sqlite:///bot.sqlite3")),
    ({"DATABASE_URL": "sqlite:////srv/bot.sqlite3"}, ("database_path", "sqlite:////srv/bot.sqlite3")),
    ({"DATABASE_URL": f"postgresql://bot:{PASSWORD}@db:5432/x"}, ("database_path", f"postgresql://bot:{PASSWORD}@db:5432/x")),
    ({"DATABASE_URL": "postgres://db/x"}, ("database_path", "postgres://db/x")),
    ({"DATABASE_URL": "postgresql://bot@/x?host=/var/run/postgresql"}, ("database_path", "postgresql://bot@/x?host=/var/run/postgresql")),
    ({"DATABASE_URL": " ", "DATABASE_PATH": "x.sqlite3"}, ("database_path", "x.sqlite3")),  # empty: unset
    ({"DATABASE_URL": PG, "DATABASE_PATH": "x.sqlite3"}, ("database_path", PG)),  # the URL wins
    ({"LOG_LEVEL": "debug"}, ("log_level", "DEBUG")),
    ({"LOG_LEVEL": " warning "}, ("log_level", "WARNING")),
    ({"LOG_LEVEL": ""}, ("log_level", "INFO")),
    ({"DEV_GUILD_ID": "41771983423143937"}, ("dev_guild_id", 41771983423143937)),
    ({"DEV_GUILD_ID": "18446744073709551615"}, ("dev_guild_id", (1 << 64) - 1)),  # the largest snowflake
    ({"DEV_GUILD_ID": ""}, ("dev_guild_id", None)),
    ({"DB_SYNCHRONOUS": "normal"}, ("db_synchronous", "NORMAL")),
    ({"DB_SYNCHRONOUS": ""}, ("db_synchronous", "FULL")),
    ({"RETENTION_DAYS": "0"}, ("retention_days", 0)),
    ({"RETENTION_DAYS": str(MAX_RETENTION_DAYS)}, ("retention_days", MAX_RETENTION_DAYS)),
    ({"RETENTION_DAYS": ""}, ("retention_days", 90)),
    ({"SHARD_COUNT": "1"}, ("shards", ShardRange(1, (0,)))),
    ({"SHARD_COUNT": "3"}, ("shards", ShardRange(3, (0, 1, 2)))),  # SQLite: one process, every shard
    ({"SHARD_COUNT": "2", "SHARD_IDS": "0-1"}, ("shards", ShardRange(2, (0, 1)))),
    ({"DATABASE_URL": PG, "SHARD_COUNT": "4", "SHARD_IDS": "1,3"}, ("shards", ShardRange(4, (1, 3)))),
    (
        {"DATABASE_URL": PG, "SHARD_COUNT": str(MAX_SHARD_COUNT), "SHARD_IDS": f"{MAX_SHARD_COUNT - 1}"},
        ("shards", ShardRange(MAX_SHARD_COUNT, (MAX_SHARD_COUNT - 1,))),
    ),
]

# (environment, what the one sentence must say). DISCORD_TOKEN is set unless the case sets it.
BAD: list[tuple[dict[str, str], str]] = [
    ({"DISCORD_TOKEN": ""}, "DISCORD_TOKEN is not set"),
    ({"DISCORD_TOKEN": "   "}, "DISCORD_TOKEN is not set"),
    ({"DISCORD_TOKEN": f"Bot {TOKEN}"}, "without the word 'Bot'"),
    ({"DISCORD_TOKEN": f"{TOKEN} {TOKEN}"}, "DISCORD_TOKEN holds spaces"),
    ({"DISCORD_TOKEN": f"{TOKEN}\u00e9"}, "DISCORD_TOKEN holds spaces or characters"),
    ({"DATABASE_URL": "garbage"}, "DATABASE_URL must be sqlite:///relative/path.sqlite3"),
    ({"DATABASE_URL": f"mysql://bot:{PASSWORD}@db/x"}, "not 'mysql://bot:***@db/x'"),
    ({"DATABASE_URL": "http://db/x"}, "postgresql://user:password@host/database (postgres:// too)"),
    ({"DATABASE_URL": "SQLITE:///x"}, "DATABASE_URL must be"),
    ({"DATABASE_URL": "sqlite://"}, "names no file"),
    ({"DATABASE_URL": "sqlite:///"}, "names no file"),
    ({"DATABASE_URL": "postgresql://"}, "names no server or database"),
    ({"DATABASE_URL": "x.sqlite3"}, "DATABASE_URL must be"),  # a path belongs in DATABASE_PATH
    ({"DATABASE_PATH": f"mysql://bot:{PASSWORD}@db/x"}, "DATABASE_PATH must be a file path, sqlite:///"),
    ({"LOG_LEVEL": "verbose"}, "LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, not 'VERBOSE'"),
    ({"LOG_LEVEL": "10"}, "LOG_LEVEL must be"),
    ({"DEV_GUILD_ID": "my-server"}, "DEV_GUILD_ID must be a server id"),
    ({"DEV_GUILD_ID": "0"}, "DEV_GUILD_ID must be a server id"),
    ({"DEV_GUILD_ID": "-5"}, "DEV_GUILD_ID must be a server id"),
    ({"DEV_GUILD_ID": "18446744073709551616"}, "DEV_GUILD_ID must be a server id"),
    ({"DEV_GUILD_ID": "9" * 5000}, "DEV_GUILD_ID must be a server id"),
    ({"DB_SYNCHRONOUS": "OFF"}, "DB_SYNCHRONOUS must be NORMAL or FULL"),
    ({"RETENTION_DAYS": str(MAX_RETENTION_DAYS + 1)}, f"from 0 to {MAX_RETENTION_DAYS}"),
    ({"RETENTION_DAYS": "99999999999999999999"}, "RETENTION_DAYS must be a whole number of days from 0"),
    ({"RETENTION_DAYS": "0" * 20 + "99999999"}, "RETENTION_DAYS must be"),
    ({"RETENTION_DAYS": "-1"}, "RETENTION_DAYS must be"),
    ({"RETENTION_DAYS": "1.5"}, "RETENTION_DAYS must be"),
    ({"SHARD_COUNT": "0"}, f"SHARD_COUNT must be a whole number of shards from 1 to {MAX_SHARD_COUNT}"),
    ({"SHARD_COUNT": str(MAX_SHARD_COUNT + 1)}, "SHARD_COUNT must be"),
    ({"SHARD_COUNT": "1000000000", "SHARD_IDS": "0-99999999"}, "SHARD_COUNT must be"),
    ({"DATABASE_URL": PG, "SHARD_COUNT": "4", "SHARD_IDS": "0-99999999999999"}, "names shard 99999999999999"),
    ({"DATABASE_URL": PG, "SHARD_COUNT": "4", "SHARD_IDS": "1,1"}, "names shard 1 twice"),
    ({"SHARD_IDS": "0"}, "SHARD_COUNT is not set"),
    ({"SHARD_COUNT": "2", "SHARD_IDS": "1"}, "the database is SQLite, which one process serves"),
    ({"SHARD_COUNT": "2", "SHARD_IDS": "0"}, "the database is SQLite, which one process serves"),
]


def assert_one_clean_line(text: str) -> None:
    assert text.count("\n") <= 1 and text.strip(), text
    assert "Traceback" not in text
    assert PASSWORD not in text and TOKEN not in text and TOKEN.split(".")[2] not in text


@pytest.mark.parametrize(("env", "expected"), GOOD)
def test_good_and_edge_values_are_read(env: dict[str, str], expected: tuple[str, Any]) -> None:
    attribute, value = expected
    assert getattr(Settings.from_env({"DISCORD_TOKEN": TOKEN, **env}), attribute) == value


@pytest.mark.parametrize(("env", "message"), BAD)
def test_a_bad_value_is_one_sentence_naming_it_without_secrets(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.from_env({"DISCORD_TOKEN": TOKEN, **env})
    text = str(refused.value)
    assert message in text
    assert_one_clean_line(text)
    assert len(text) < 400


def test_the_start_line_names_the_database_with_its_password_masked_and_the_shards() -> None:
    settings = Settings.from_env({"DISCORD_TOKEN": TOKEN, "DATABASE_URL": f"postgresql://bot:{PASSWORD}@db/x",
                                  "SHARD_COUNT": "4", "SHARD_IDS": "2-3"})
    assert settings.describe() == "database postgresql://bot:***@db/x; shards 2-3 of 4"
    local = Settings.from_env({"DISCORD_TOKEN": TOKEN, "DEV_GUILD_ID": "41771983423143937"})
    assert local.describe() == (
        f"database {os.path.abspath('schnapsen.sqlite3')}; one process, every shard; "
        "slash commands in server 41771983423143937 only"
    )
    assert mask_url(f"postgresql://bot:{PASSWORD}@db/x?password={PASSWORD}") == (
        "postgresql://bot:***@db/x?password=***"
    )


# ---- the real command: exit status 2, one line on standard error --------------------------------------------


def run_bot(tmp_path: Path, env: dict[str, str], *, code: str | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m bot` (or `code`) in an empty folder (no .env) with only `env` and the token set."""
    clean = {"PATH": os.environ.get("PATH", ""), "DISCORD_TOKEN": TOKEN, **env}
    command = [sys.executable, "-m", "bot"] if code is None else [sys.executable, "-c", code]
    return subprocess.run(
        command, cwd=tmp_path, env={**clean, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        capture_output=True, text=True, timeout=60, check=False,
    )


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"DATABASE_URL": f"mysql://bot:{PASSWORD}@db/x"}, "DATABASE_URL must be sqlite:///"),
        ({"DATABASE_URL": "garbage"}, "DATABASE_URL must be"),
        ({"RETENTION_DAYS": "99999999999999999999"}, "RETENTION_DAYS must be"),
        ({"SHARD_COUNT": "1000000000", "SHARD_IDS": "0-99999999"}, "SHARD_COUNT must be"),
        ({"DISCORD_TOKEN": ""}, "DISCORD_TOKEN is not set"),
        ({"DATABASE_PATH": "missing/folder/bot.sqlite3"}, "does not exist"),
    ],
)
def test_python_m_bot_stops_with_one_line_and_status_2(tmp_path: Path, env: dict[str, str], message: str) -> None:
    env = {key: value.format(port=closed_port(), tmp=tmp_path) for key, value in env.items()}
    done = run_bot(tmp_path, env)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("Cannot start: ") and message in done.stderr
    assert_one_clean_line(done.stderr)
    assert PASSWORD not in done.stdout and "Traceback" not in done.stdout
    assert list(tmp_path.iterdir()) == []  # no stray database file ("garbage") was made


def test_python_m_bot_names_its_version_database_shards_and_ai_in_its_start_line(tmp_path: Path) -> None:
    """The real entry point, with discord.py pointed at a port nobody listens on (as with no network) and a
    patience of a moment (tests/bot/test_start_faults.py has the tries themselves)."""
    code = (
        "import sys, discord.http, bot.client, bot.connect\n"
        f"discord.http.Route.BASE = 'http://127.0.0.1:{closed_port()}/api/v10'\n"
        "bot.client.Patience = lambda first, longest: bot.connect.Patience(0.05, 0.1, give_up_after=0.3)\n"
        "from bot.__main__ import main\n"
        "sys.exit(main())\n"
    )
    done = run_bot(tmp_path, {"DATABASE_PATH": "bot.sqlite3"}, code=code)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("Cannot start: cannot log in: no network connection to Discord")
    assert_one_clean_line(done.stderr)
    # The start line came first, naming the version, the database, the shards and the AI workers.
    assert (
        f"starting Bauernschnapsen {version()}: database {tmp_path / 'bot.sqlite3'}; one process, every shard;"
        in done.stdout
    )
    assert "AI worker(s)" in done.stdout and TOKEN not in done.stdout
    assert f"AI worker(s), {ai_solver.KIND} solver" in done.stdout  # the one this install's AI uses
    # The database is its owner's only (it holds people's ids and names), whatever the umask.
    assert (tmp_path / "bot.sqlite3").stat().st_mode & 0o777 == 0o600


def test_python_m_bot_version_is_pyprojects() -> None:
    done = subprocess.run([sys.executable, "-m", "bot", "--version"], capture_output=True, text=True, timeout=60,
                          check=False)
    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]
    assert done.returncode == 0 and done.stdout == f"Bauernschnapsen {project['version']}\n"


def test_a_missing_token_says_where_the_bot_looked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SettingsError) as refused:
        Settings.from_env(dotenv=Path(".env"))
    assert str(refused.value).startswith(
        f"DISCORD_TOKEN is not set in the environment nor in {tmp_path / '.env'} (there is no such file). The bot "
        f"reads .env in the folder it runs in ({tmp_path}): copy .env.example to .env there"
    )


def test_log_level_names_loggers_and_database_url_over_database_path_is_noted() -> None:
    settings = Settings.from_env({"DISCORD_TOKEN": TOKEN, "LOG_LEVEL": "debug, discord.gateway=info,aiosqlite=DEBUG",
                                  "DATABASE_URL": PG, "DATABASE_PATH": "/data/schnapsen.sqlite3"})
    assert settings.log_level == "DEBUG"
    assert settings.log_levels == (("discord.gateway", "INFO"), ("aiosqlite", "DEBUG"))
    assert settings.database_ignored == "/data/schnapsen.sqlite3"
    same = Settings.from_env({"DISCORD_TOKEN": TOKEN, "DATABASE_URL": "sqlite:///schnapsen.sqlite3",
                              "DATABASE_PATH": "schnapsen.sqlite3"})
    assert same.database_ignored is None
    for bad in ("INFO,DEBUG", "discord=LOUD", "=INFO", "INFO,not a logger=INFO"):
        with pytest.raises(SettingsError) as refused:
            Settings.from_env({"DISCORD_TOKEN": TOKEN, "LOG_LEVEL": bad})
        assert str(refused.value).startswith("LOG_LEVEL")


# ---- the database, before logging in -------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def silent_server() -> AsyncIterator[int]:
    """A port that accepts connections and never answers (a server that hangs, a firewall's black hole)."""
    held: list[asyncio.StreamWriter] = []

    async def hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        for writer in held:
            writer.close()
        server.close()
        await server.wait_closed()


async def refusal(url: str, *, transient: bool = False, **options: Any) -> str:
    """The one sentence opening `url` fails with; `transient`: it is `Unreachable` (the bot tries again)."""
    with pytest.raises(SettingsError) as refused:
        db = await open_database(url, **options)
        await db.close()
    text = str(refused.value)
    assert_one_clean_line(text)
    assert isinstance(refused.value, Unreachable) == transient, (type(refused.value), text)
    return text


async def test_an_unreachable_postgresql_port_is_one_line_at_once() -> None:
    port = closed_port()
    text = await refusal(f"postgresql://bot:{PASSWORD}@127.0.0.1:{port}/x", transient=True, timeout=0.5)
    assert text == (
        f"cannot reach the database server of postgresql://bot:***@127.0.0.1:{port}/x: nothing listens there "
        "(is PostgreSQL running, and is the host, port or socket folder right?)."
    )


async def test_a_server_that_never_answers_is_given_up_after_the_timeout() -> None:
    async with silent_server() as port:
        text = await refusal(f"postgresql://bot:{PASSWORD}@127.0.0.1:{port}/x", transient=True, timeout=0.3)
    assert "no answer within 0.3 s" in text


async def test_a_socket_folder_without_a_server_is_one_line(tmp_path: Path) -> None:
    text = await refusal(f"postgresql://bot@/schnapsen?host={tmp_path}&password={PASSWORD}", transient=True,
                         timeout=0.5)
    assert "nothing listens there" in text and "password=***" in text


async def test_an_unknown_host_and_a_malformed_port_are_one_line() -> None:
    assert "is not a usable PostgreSQL URL" in await refusal(f"postgresql://bot:{PASSWORD}@127.0.0.1:port/x")


async def test_sqlite_files_whose_folder_is_missing_or_not_a_folder_are_one_line(tmp_path: Path) -> None:
    assert "does not exist" in await refusal(f"sqlite:///{tmp_path}/missing/bot.sqlite3")
    (tmp_path / "file").write_text("")
    assert "is not a folder" in await refusal(str(tmp_path / "file" / "bot.sqlite3"))
    (tmp_path / "folder").mkdir()
    assert "is a folder" in await refusal(str(tmp_path / "folder"))
    (tmp_path / "junk.sqlite3").write_bytes(b"not a database" * 100)
    assert "cannot open the SQLite database" in await refusal(str(tmp_path / "junk.sqlite3"))


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
async def test_a_folder_the_bot_cannot_write_is_one_line(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        assert "cannot write in" in await refusal(str(locked / "bot.sqlite3"))
    finally:
        locked.chmod(0o700)


async def test_a_reachable_postgresql_database_opens(pg_url: str) -> None:
    db = await open_database(pg_url)
    await db.close()


# ---- logging in -----------------------------------------------------------------------------------------------


async def test_a_token_discord_refuses_is_one_sentence_and_status_2(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    bot = make_bot(quick_settings(tmp_path / "bot.sqlite3"))
    async with bot:
        with pytest.raises(StartError) as refused:
            await login(bot, "not-the-token")
    assert refused.value.exit_code == 2
    assert str(refused.value).startswith("cannot log in: Discord refused DISCORD_TOKEN")


async def test_no_network_at_login_is_one_sentence_worth_trying_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = closed_port()
    monkeypatch.setattr(discord.http.Route, "BASE", f"http://127.0.0.1:{port}/api/v10")
    bot = make_bot(quick_settings(tmp_path / "bot.sqlite3"))
    async with bot:
        with pytest.raises(Unreachable) as refused:
            await login(bot, TOKEN)
    assert str(refused.value) == (
        f"cannot log in: no network connection to Discord (cannot connect to 127.0.0.1:{port}: Connection refused)."
    )


# ---- DEV_GUILD_ID on and off: the commands are in one place only -----------------------------------------------


def command_names(fake: FakeDiscord, guild_id: int | None) -> list[str]:
    return [command["name"] for command in fake.commands.get(guild_id, [])]


async def start_and_stop(fake: FakeDiscord, db_path: Path, dev_guild_id: int | None) -> None:
    bot = make_bot(quick_settings(db_path, dev_guild_id=dev_guild_id))
    await fake.start_client(bot, timeout=BOT_START_SECONDS)
    await fake.stop_client(bot)


async def test_switching_dev_guild_id_on_and_off_leaves_the_commands_in_one_place(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    db_path = tmp_path / "bot.sqlite3"
    owner = fake_discord.add_user("owner")
    dev, other = fake_discord.add_guild("Dev", owner=owner), fake_discord.add_guild("Other", owner=owner)

    await start_and_stop(fake_discord, db_path, None)
    assert command_names(fake_discord, None) == ["schnapsen"]

    await start_and_stop(fake_discord, db_path, dev.id)  # on: the global copy goes
    assert command_names(fake_discord, dev.id) == ["schnapsen"]
    assert command_names(fake_discord, None) == []

    await start_and_stop(fake_discord, db_path, None)  # off again: the server's copy goes
    assert command_names(fake_discord, None) == ["schnapsen"]
    assert command_names(fake_discord, dev.id) == []

    await start_and_stop(fake_discord, db_path, dev.id)
    await start_and_stop(fake_discord, db_path, other.id)  # another server: the first one's copy goes
    assert command_names(fake_discord, other.id) == ["schnapsen"]
    assert command_names(fake_discord, dev.id) == [] and command_names(fake_discord, None) == []

    syncs = len(fake_discord.command_syncs)
    await start_and_stop(fake_discord, db_path, other.id)  # unchanged: nothing is synced
    assert len(fake_discord.command_syncs) == syncs


async def test_a_previous_dev_guild_the_bot_has_left_does_not_stop_the_switch(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    db_path = tmp_path / "bot.sqlite3"
    dev = fake_discord.add_guild("Dev", owner=fake_discord.add_user("owner"))
    await start_and_stop(fake_discord, db_path, dev.id)
    del fake_discord.guilds[dev.id]  # the bot was removed from that server (Discord: 403 Missing Access)
    await start_and_stop(fake_discord, db_path, None)
    assert command_names(fake_discord, None) == ["schnapsen"]


async def test_on_ready_logs_the_server_count(
    fake_discord: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    owner = fake_discord.add_user("owner")
    fake_discord.add_guild("One", owner=owner)
    fake_discord.add_guild("Two", owner=owner)
    caplog.set_level("INFO", logger="bot.client")
    await start_and_stop(fake_discord, tmp_path / "bot.sqlite3", None)
    assert any(record.getMessage().endswith(": 2 server(s)") for record in caplog.records)


# ---- the admin commands name their database as the bot does ---------------------------------------------------


def test_ratings_rebuild_takes_a_postgresql_url(pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert ratings_command.main(["rebuild", "--database", pg_url]) == 0
    assert capsys.readouterr().out == "ratings rebuilt: 0 rated Bummerl\n"


def test_ratings_rebuild_with_an_unreachable_server_is_one_line_and_status_2(tmp_path: Path) -> None:
    url = f"postgresql://bot:{PASSWORD}@127.0.0.1:{closed_port()}/x"
    for args, env in ((["--database", url], {}), ([], {"DATABASE_URL": url})):
        done = subprocess.run(
            [sys.executable, "-m", "bot.ratings", "rebuild", *args], cwd=tmp_path,
            env={"PATH": os.environ.get("PATH", ""), **env}, capture_output=True, text=True, timeout=60, check=False,
        )
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith("python -m bot.ratings: cannot reach the database server of postgresql://bot:***@")
        assert_one_clean_line(done.stderr)


def test_ratings_rebuild_refuses_a_malformed_url(capsys: pytest.CaptureFixture[str]) -> None:
    assert ratings_command.main(["rebuild", "--database", f"mysql://bot:{PASSWORD}@db/x"]) == 2
    err = capsys.readouterr().err
    assert "--database must be a file path, sqlite:///" in err
    assert_one_clean_line(err)


@pytest.mark.parametrize("module", ["bot", "bot.ratings", "bot.copydata", "bot.backup"])
def test_every_help_is_whole(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, "COLUMNS": "100"},
    )
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith(f"usage: python -m {module}")
    paragraphs = done.stdout.split("\n\n")[1:]
    described = paragraphs[: next(i for i, p in enumerate(paragraphs) if p.startswith(("options:", "positional")))]
    assert described[-1].rstrip().endswith((".", ")")), described[-1]  # the last sentence whole
    for paragraph, after in itertools.pairwise(described):
        if paragraph.rstrip().endswith(":"):  # only an example may follow a colon
            assert after.startswith("    "), paragraph


@pytest.fixture(autouse=True)
def _no_dotenv(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The admin commands read the environment; none of the developer's settings leak in."""
    for name in ("DATABASE_URL", "DATABASE_PATH"):
        monkeypatch.delenv(name, raising=False)
    yield


def test_without_the_postgresql_driver_sqlite_runs_and_postgresql_says_how_to_install_it(tmp_path: Path) -> None:
    """asyncpg is needed only for PostgreSQL: without it the bot still imports, and a PostgreSQL URL is one
    line saying what to install."""
    code = (
        "import sys\n"
        "sys.modules['asyncpg'] = None  # as if not installed: importing it fails\n"
        "import bot.client, bot.copydata, bot.ratings, bot.backup\n"
        "from bot.__main__ import main\n"
        "sys.exit(main())\n"
    )
    done = run_bot(tmp_path, {"DATABASE_URL": f"postgresql://bot:{PASSWORD}@db/x"}, code=code)
    assert done.returncode == 2, done.stderr
    assert "pip install -e '.[postgres]'" in done.stderr
    assert_one_clean_line(done.stderr)


def test_a_dotenv_the_bot_cannot_read_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import dotenv.main

    unreadable = tmp_path / ".env"
    unreadable.write_text(f"DISCORD_TOKEN={TOKEN}\n")

    def refuse(*args: Any, **kwargs: Any) -> Any:  # as when .env belongs to another user (chmod 600)
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(dotenv.main, "open", refuse, raising=False)
    for read in (lambda: Settings.from_env(dotenv=unreadable), lambda: database_path_from_env(dotenv=unreadable)):
        with pytest.raises(SettingsError) as refused:
            read()
        assert str(refused.value) == (
            f"cannot read {unreadable}: Permission denied (it must be readable by the bot's user)."
        )
