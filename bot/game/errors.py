"""Errors a user can fix, carried as a catalogue key plus values; the Discord shell translates them."""

from __future__ import annotations


class UserError(Exception):
    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.key = key
        self.values = values
