"""Fixtures shared by the tests of the bot's layers.

`db` is a fresh database on the engine `database_engine` names: SQLite here; the storage and service tests
(tests/bot/db, tests/bot/game) override `database_engine` to run each test on SQLite and on PostgreSQL.
"""

import asyncio
import itertools
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

import asyncpg
import pytest

from bot.db import Database
from devtools.pgcluster import TEMPLATE, Cluster, server_binaries

_database_numbers = itertools.count(1)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """A PostgreSQL cluster for the whole run, with a migrated template database; skipped without servers.
    Each pytest-xdist worker is a session of its own, so each has its own cluster (folder, socket, port)."""
    binaries = server_binaries()
    if binaries is None:
        pytest.skip("no PostgreSQL server binaries (initdb, pg_ctl): `apt-get install postgresql`")
    cluster = Cluster(binaries)
    try:
        cluster.start()
        # First asked for from inside a test's running loop: the template is made on a loop of its own.
        with ThreadPoolExecutor(1) as worker:
            worker.submit(asyncio.run, _make_template(cluster)).result()
        yield cluster
    finally:
        cluster.stop()


async def _make_template(cluster: Cluster) -> None:
    import asyncpg

    admin = await asyncpg.connect(cluster.dsn())
    try:
        await admin.execute(f"CREATE DATABASE {TEMPLATE}")
    finally:
        await admin.close()
    database = await Database.open(cluster.dsn(TEMPLATE))
    await database.close()


async def new_pg_database(cluster: Cluster, *, migrated: bool = True) -> str:
    """The URL of a new database: a copy of the migrated template, or empty (`migrated=False`)."""
    import asyncpg

    name = f"test_{next(_database_numbers)}"
    admin = await asyncpg.connect(cluster.dsn())
    try:
        await admin.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE if migrated else 'template0'}")
    finally:
        await admin.close()
    return cluster.dsn(name)


async def drop_pg_database(cluster: Cluster, url: str) -> None:
    """Drop a test's database, whoever is still connected: a run makes hundreds, and deleting the folder of
    a cluster that kept them all took half a minute at the end of a run."""
    name = url.split("?")[0].rsplit("/", 1)[1]
    admin = await asyncpg.connect(cluster.dsn())
    try:
        await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    finally:
        await admin.close()


def _on_own_loop(coroutine: Any) -> Any:
    with ThreadPoolExecutor(1) as worker:
        return worker.submit(asyncio.run, coroutine).result()


@pytest.fixture
def pg_url(pg_cluster: Cluster) -> Iterator[str]:
    """A fresh, migrated PostgreSQL database of its own for the test (a plain fixture: `db` asks for it only
    on PostgreSQL, from inside its running loop, so it runs on a loop of its own); dropped after the test."""
    url = _on_own_loop(new_pg_database(pg_cluster))
    yield url
    _on_own_loop(drop_pg_database(pg_cluster, url))


class TwoProcesses(NamedTuple):
    """Two bot processes' databases on one PostgreSQL database, and a connection that watches its locks."""

    first: Database
    second: Database
    watcher: asyncpg.Connection


@pytest.fixture
async def two_pg_processes(pg_url: str) -> AsyncIterator[TwoProcesses]:
    first, second = await Database.open(pg_url), await Database.open(pg_url)
    watcher = await asyncpg.connect(pg_url)
    try:
        yield TwoProcesses(first, second, watcher)
    finally:
        await watcher.close()
        await second.close()
        await first.close()


@pytest.fixture
def pg_empty_url(pg_cluster: Cluster) -> Iterator[str]:
    """A fresh PostgreSQL database with no schema at all; dropped after the test."""
    url = _on_own_loop(new_pg_database(pg_cluster, migrated=False))
    yield url
    _on_own_loop(drop_pg_database(pg_cluster, url))


@pytest.fixture
def database_engine() -> str:
    return "sqlite"


@pytest.fixture
async def db(database_engine: str, tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Database]:
    target = request.getfixturevalue("pg_url") if database_engine == "postgresql" else tmp_path / "bot.db"
    database = await Database.open(target)
    try:
        yield database
    finally:
        await database.close()
