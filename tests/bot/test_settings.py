"""The storage settings read from the environment: durability, retention, and the database path alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.settings import Settings, SettingsError, database_path_from_env

TOKEN = {"DISCORD_TOKEN": "token"}


def test_storage_defaults_are_durable_commits_and_ninety_days_of_action_logs() -> None:
    settings = Settings.from_env(dict(TOKEN))
    assert settings.db_synchronous == "FULL"
    assert settings.retention_days == 90
    assert Settings(token="t").db_synchronous == "FULL"
    assert Settings(token="t").retention_days == 90


@pytest.mark.parametrize(("value", "expected"), [("NORMAL", "NORMAL"), ("normal", "NORMAL"), (" full ", "FULL"), ("", "FULL")])
def test_db_synchronous_accepts_normal_or_full(value: str, expected: str) -> None:
    assert Settings.from_env({**TOKEN, "DB_SYNCHRONOUS": value}).db_synchronous == expected


@pytest.mark.parametrize("value", ["OFF", "EXTRA", "2", "yes"])
def test_db_synchronous_refuses_anything_else(value: str) -> None:
    with pytest.raises(SettingsError, match="DB_SYNCHRONOUS must be NORMAL or FULL"):
        Settings.from_env({**TOKEN, "DB_SYNCHRONOUS": value})


@pytest.mark.parametrize(("value", "expected"), [("30", 30), (" 365 ", 365), ("0", 0), ("", 90)])
def test_retention_days_is_a_whole_number_of_days_zero_keeps_forever(value: str, expected: int) -> None:
    assert Settings.from_env({**TOKEN, "RETENTION_DAYS": value}).retention_days == expected


@pytest.mark.parametrize("value", ["-1", "1.5", "ninety", "1e3"])
def test_retention_days_refuses_anything_else(value: str) -> None:
    with pytest.raises(SettingsError, match="RETENTION_DAYS must be"):
        Settings.from_env({**TOKEN, "RETENTION_DAYS": value})


def test_the_database_path_is_read_without_a_token() -> None:
    assert database_path_from_env({}) == "schnapsen.sqlite3"
    assert database_path_from_env({"DATABASE_PATH": " /srv/bot.sqlite3 "}) == "/srv/bot.sqlite3"
    assert Settings.from_env({**TOKEN, "DATABASE_PATH": "x.sqlite3"}).database_path == "x.sqlite3"


def test_the_database_path_comes_from_dotenv_unless_the_environment_sets_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text("DATABASE_PATH=from-dotenv.sqlite3\n", encoding="utf-8")
    monkeypatch.delenv("DATABASE_PATH", raising=False)
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    assert database_path_from_env(dotenv=dotenv) == "from-dotenv.sqlite3"
    monkeypatch.setenv("DATABASE_PATH", "from-env.sqlite3")
    assert database_path_from_env(dotenv=dotenv) == "from-env.sqlite3"
    monkeypatch.delenv("DATABASE_PATH")
    assert database_path_from_env(dotenv=tmp_path / "missing.env") == "schnapsen.sqlite3"


def test_database_url_chooses_the_engine_and_wins_over_database_path() -> None:
    both = {"DATABASE_PATH": "x.sqlite3", "DATABASE_URL": "postgresql://bot@db/schnapsen"}
    assert Settings.from_env({**TOKEN, **both}).database_path == "postgresql://bot@db/schnapsen"
    assert database_path_from_env({"DATABASE_URL": "sqlite:///data/bot.sqlite3"}) == "sqlite:///data/bot.sqlite3"
    assert database_path_from_env({"DATABASE_URL": " "}) == "schnapsen.sqlite3"  # empty: today's default
