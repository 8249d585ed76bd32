"""Errors a user can fix, carried as a catalogue key plus values; the Discord shell translates them."""

from __future__ import annotations

from typing import TypeVar

Member = TypeVar("Member", bound=str)


class UserError(Exception):
    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


def one_of(value: str, members: tuple[Member, ...], error_key: str = "error.bad_choice", **values: object) -> Member:
    """``value`` as the member of a closed set it names; a UserError when it names none (untrusted input).

    >>> one_of("french", ("doppeldeutsch", "french"))
    'french'
    """
    for member in members:
        if member == value:
            return member
    raise UserError(error_key, **(values or {"value": value}))


def check_turn_seconds(seconds: int) -> None:
    """A turn time from 15 s to an hour (a table's, or a server's default for new tables)."""
    if not 15 <= seconds <= 3600:
        raise UserError("error.bad_turn_time")
