"""The wire format of a table's buttons: ``bs:<table>:<version>:<verb>:<arg>``.

The table id and the position version travel inside the id, so a button keeps working across restarts and a
click on an outdated one is recognised. Everything in an id is untrusted input and is checked on use. Which
verbs exist, and what each one's ``arg`` means, belongs to the button family that builds and parses them
(``components.py``, one DynamicItem class each); this module knows only the shape they share, which is also
what ``routing.py`` reads from a click before discord.py parses it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

TABLE_AND_VERSION = r"bs:(?P<table>[0-9]{1,18}):(?P<version>[0-9]{1,18})"
ARG = r"(?P<arg>[A-Za-z0-9_]{0,24})"
PATTERN = rf"{TABLE_AND_VERSION}:(?P<verb>[a-z]{{1,8}}):{ARG}"  # every table button's id


def template(verbs: Iterable[str]) -> str:
    """The id pattern of one family: a table button whose verb is one of ``verbs``."""
    return rf"{TABLE_AND_VERSION}:(?P<verb>{'|'.join(verbs)}):{ARG}"


def unknown_verb_template(known: Iterable[str]) -> str:
    """A table button with a verb of no family (forged, or from a future version): matched only so that it is
    answered. discord.py runs every template that matches, so this one must exclude the ``known`` verbs."""
    return rf"{TABLE_AND_VERSION}:(?!(?:{'|'.join(known)}):)(?P<verb>[a-z]{{1,8}}):{ARG}"


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
