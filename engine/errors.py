"""Typed rules errors. Each carries a stable machine-readable ``code`` and an English sentence for players;
the bot translates by code."""

from __future__ import annotations


class RulesError(ValueError):
    """Base of every error the engine raises on purpose."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class IllegalAction(RulesError):
    """The right seat in the right phase asked for something the rules forbid."""


class NotYourTurn(RulesError):
    """Another seat is to act."""


class WrongPhase(RulesError):
    """The action belongs to another phase of the deal (or the deal is over)."""


class MalformedInput(RulesError):
    """The input itself is broken: bad notation, unknown card, bad record or setting."""
