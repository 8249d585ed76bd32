"""The storage facade is composed: `Database` holds an engine core and one repository per concern, each a
small object that works alone on a core, and all of them share the core's transaction."""

import importlib
import inspect
import pkgutil

import pytest

import bot.db
from bot.db import Database
from bot.db.core import Repository
from bot.db.meta import MetaRepo
from bot.db.seats import SeatsRepo
from bot.db.tables import TablesRepo
from tests.bot.db.conftest import MakeTable


async def test_a_repository_built_alone_on_a_core_reads_and_writes_the_same_rows(
    db: Database, make_table: MakeTable
) -> None:
    table = await make_table()
    seats, tables = SeatsRepo(db.core), TablesRepo(db.core)
    seat = await seats.take_seat(table.id, 2, 11, "Anna")
    assert await db.seats.seats_of(table.id) == [seat]
    assert await tables.get_table(table.id) == await db.tables.get_table(table.id)


async def test_calls_of_several_repositories_in_one_transaction_are_one_change(
    db: Database, make_table: MakeTable
) -> None:
    table = await make_table()
    with pytest.raises(RuntimeError, match="after both writes"):
        async with db.transaction():
            await db.seats.take_seat(table.id, 0, 11, "Anna")
            await db.tables.set_host(table.id, 12, now=5)
            await MetaRepo(db.core).set("written", "yes")
            raise RuntimeError("after both writes")
    assert await db.seats.seats_of(table.id) == []
    assert (await db.tables.get_table(table.id)) == table
    assert await db.meta.get("written") is None

    async with db.transaction():
        await db.seats.take_seat(table.id, 0, 11, "Anna")
        await db.meta.set("written", "yes")
    assert [seat.user_id for seat in await db.seats.seats_of(table.id)] == [11]
    assert await db.meta.get("written") == "yes"


def test_every_repository_is_an_attribute_of_the_database_and_no_storage_class_is_large() -> None:
    """Each repository class is reachable as `db.<name>`, and no class of `bot.db` has more than 30 methods of
    its own and its bases (the facade had 84 on one class)."""
    classes: dict[str, type] = {}
    for module in pkgutil.iter_modules(bot.db.__path__):
        loaded = importlib.import_module(f"bot.db.{module.name}")
        for name, cls in inspect.getmembers(loaded, inspect.isclass):
            if cls.__module__ == loaded.__name__:
                classes[name] = cls
    repositories = {cls for cls in classes.values() if issubclass(cls, Repository) and cls is not Repository}
    database = Database(core=object())  # type: ignore[arg-type]  # only the repositories' types are read
    assert {type(value) for value in vars(database).values()} - {object} == repositories

    def methods(cls: type) -> set[str]:
        return {
            name
            for klass in cls.__mro__
            if klass.__module__.startswith("bot.db")
            for name, value in vars(klass).items()
            if callable(value) and not (name.startswith("__") and name != "__init__")
        }

    sizes = {name: len(methods(cls)) for name, cls in classes.items()}
    assert max(sizes.values()) <= 30, sorted(sizes.items(), key=lambda item: -item[1])[:3]
