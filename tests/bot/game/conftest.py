from itertools import count

import pytest

from bot.db import Database
from bot.game.service import TableService

START = 1_700_000_000


class Clock:
    """A clock the test moves by hand (unix seconds)."""

    def __init__(self) -> None:
        self.now = float(START)

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def service(db: Database, clock: Clock) -> TableService:
    """A service on a real SQLite database, with a hand-moved clock and deals seeded 1, 2, 3, ..."""
    return TableService(db, clock=clock, seed_source=count(1).__next__)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_engine(request: pytest.FixtureRequest) -> str:
    """The service's tests run on both storage engines."""
    return str(request.param)
