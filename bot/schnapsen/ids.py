"""Custom ids of the game's buttons: ``bs:<table>:<version>:<verb>:<arg>``.

The table id and the position version travel inside the id, so a button keeps working across restarts and a
click on an outdated one is recognised. Everything in an id is untrusted input and is checked on use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import engine
from bot.vocabulary import LEADERBOARD_SORTS
from engine.actions import DOUBLING_WORDS

TABLE_AND_VERSION = r"bs:(?P<table>[0-9]{1,18}):(?P<version>[0-9]{1,18})"
ARG = r"(?P<arg>[A-Za-z0-9_]{0,24})"
PATTERN = rf"{TABLE_AND_VERSION}:(?P<verb>[a-z]{{1,8}}):{ARG}"  # every table button's id
LEADERBOARD_PATTERN = rf"bslb:(?P<sort>{'|'.join(LEADERBOARD_SORTS)}):(?P<page>[0-9]{{1,6}})"
# "Show the deal" on a result message: a finished deal of a table, open or closed (so not a ``bs:`` id, whose
# family acts only on open tables).
DEAL_REVIEW_PATTERN = r"bsdeal:(?P<table>[0-9]{1,18}):(?P<deal>[0-9]{1,9})"
# The confirmation of /schnapsen forget-me: the person it was shown to (only their click counts).
FORGET_ME_PATTERN = r"bsforget:(?P<user>[0-9]{1,20})"

# The verbs of each family of buttons (one DynamicItem class each, see components.py). Game verbs carry the
# position version; the others carry 0, except Rematch and Close, which are made for one finished position.
GAME_VERBS = ("trump", "auf", "bid", "pass", "dbl", "play", "mar")
SEAT_VERBS = ("sit", "ai", "leave", "start", "practice")  # practice: the host's toggle, ``arg`` 1 or 0
HOST_VERBS = ("rematch", "close", "stop")
HAND_VERBS = ("hand", "back")
# "Review my play" (``arg`` the deal number) on a result, and a practice table's "Hint" (at a position).
COACH_VERBS = ("review", "hint")
TABLE_VERBS = (*SEAT_VERBS, *HOST_VERBS, *HAND_VERBS, *COACH_VERBS)


def deal_review_id(table: int, deal_no: int) -> str:
    return f"bsdeal:{table}:{deal_no}"


def forget_me_id(user_id: int) -> str:
    return f"bsforget:{user_id}"


def template(verbs: tuple[str, ...]) -> str:
    """The id pattern of one family: a table button whose verb is one of ``verbs``."""
    return rf"{TABLE_AND_VERSION}:(?P<verb>{'|'.join(verbs)}):{ARG}"


# A table button with a verb of no family (forged, or from a future version): matched only so that it is
# answered. discord.py runs every template that matches, so this one must exclude the known verbs.
UNKNOWN_VERB_PATTERN = (
    rf"{TABLE_AND_VERSION}:(?!(?:{'|'.join((*GAME_VERBS, *TABLE_VERBS))}):)(?P<verb>[a-z]{{1,8}}):{ARG}"
)


@dataclass(frozen=True, slots=True)
class ButtonId:
    table: int
    version: int
    verb: str
    arg: str = ""

    def __str__(self) -> str:
        return f"bs:{self.table}:{self.version}:{self.verb}:{self.arg}"

    @classmethod
    def of(cls, match: re.Match[str]) -> ButtonId:
        """The id a table button's template matched."""
        return cls(int(match["table"]), int(match["version"]), match["verb"], match["arg"])

    @classmethod
    def parse(cls, custom_id: str) -> ButtonId | None:
        found = re.fullmatch(PATTERN, custom_id)
        return None if found is None else cls.of(found)


def action_id(table: int, version: int, action: engine.Action) -> ButtonId:
    match action:
        case engine.ChooseTrump(suit):
            return ButtonId(table, version, "trump", suit)
        case engine.Aufschlagen():
            return ButtonId(table, version, "auf")
        case engine.Bid(contract):
            return ButtonId(table, version, "bid", contract.id)
        case engine.Pass():
            return ButtonId(table, version, "pass")
        case engine.Double(word):
            return ButtonId(table, version, "dbl", word)
        case engine.PlayCard(card, None):
            return ButtonId(table, version, "play", card)
        case engine.PlayCard(card, value):
            return ButtonId(table, version, "mar", f"{card}{value}")
    raise TypeError(action)


def action_of(button: ButtonId) -> engine.Action | None:
    """The engine action a game button asks for; None when the id is malformed (forged)."""
    try:
        match button.verb:
            case "trump":
                return engine.ChooseTrump(button.arg) if button.arg in engine.SUITS else None
            case "auf":
                return engine.AUFSCHLAGEN
            case "bid":
                return engine.Bid(engine.Contract.from_id(button.arg))
            case "pass":
                return engine.PASS
            case "dbl":
                return engine.Double(button.arg) if button.arg in DOUBLING_WORDS else None
            case "play":
                return engine.PlayCard(engine.parse_card(button.arg))
            case "mar":
                value = int(button.arg[2:]) if button.arg[2:] in ("20", "40") else None
                return engine.PlayCard(engine.parse_card(button.arg[:2]), value) if value else None
    except engine.RulesError:
        return None
    return None
