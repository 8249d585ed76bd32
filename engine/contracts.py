"""The eleven contracts of the bidding ladder (RULES.md section 3, D1). The enum value is the rank."""

from __future__ import annotations

from enum import IntEnum

from .errors import MalformedInput


class Contract(IntEnum):
    NORMAL = 0
    BETTLER = 1
    ASS_BETTLER = 2
    SCHNAPSER = 3
    GANG = 4
    ZEHNERLOCH = 5
    BAUERNSCHNAPSER = 6
    KONTRASCHNAPSER = 7
    FARBRINGERL = 8
    KONTRABAUERNSCHNAPSER = 9
    TRUMPFFARBRINGERL = 10

    @property
    def id(self) -> str:
        """The record's contract id, e.g. ``ass_bettler``."""
        return self.name.lower()

    @classmethod
    def from_id(cls, text: str) -> Contract:
        if isinstance(text, str) and text == text.lower() and text.upper() in cls.__members__:
            return cls[text.upper()]
        raise MalformedInput("unknown_contract", f"{text!r} is not a contract id")


C = Contract
FIXED_VALUES = {
    C.SCHNAPSER: 6,
    C.GANG: 9,
    C.ZEHNERLOCH: 10,
    C.BAUERNSCHNAPSER: 12,
    C.KONTRASCHNAPSER: 12,
    C.FARBRINGERL: 18,
    C.KONTRABAUERNSCHNAPSER: 24,
    C.TRUMPFFARBRINGERL: 24,
    C.ASS_BETTLER: 5,
}
TRUMP_CONTRACTS = frozenset(
    {C.NORMAL, C.SCHNAPSER, C.BAUERNSCHNAPSER, C.KONTRASCHNAPSER, C.KONTRABAUERNSCHNAPSER}
)
NO_TRUMP_CONTRACTS = frozenset({C.BETTLER, C.ASS_BETTLER, C.GANG, C.ZEHNERLOCH})
# Decided at the end of the auction; no card is played (D17).
IMMEDIATE_CONTRACTS = frozenset({C.FARBRINGERL, C.TRUMPFFARBRINGERL})
# The declarer must win no trick.
BEGGAR_CONTRACTS = frozenset({C.BETTLER, C.ASS_BETTLER})
# The declarer himself must win every trick (until 66 in a Schnapser).
SCHNAPSER_CONTRACTS = frozenset({C.SCHNAPSER, C.KONTRASCHNAPSER})
ALL_TRICKS_CONTRACTS = frozenset({C.GANG, C.ZEHNERLOCH, C.BAUERNSCHNAPSER, C.KONTRABAUERNSCHNAPSER})
MARRIAGE_CONTRACTS = frozenset({C.NORMAL, C.SCHNAPSER, C.KONTRASCHNAPSER})
BIDDABLE = tuple(c for c in Contract if c is not C.NORMAL)
