"""The closed sets of words the bot stores, offers and shows, each defined once, as a ``Literal`` type whose
values are read with ``get_args``: the type checker and the running code agree on every member.

The sets of the game itself belong to the engine (``engine.Preset``, ``engine.Phase``, ``engine.BummerlKind``).
This module imports only the standard library, so every layer of the bot may read it.
"""

from __future__ import annotations

from typing import Literal, get_args

DeckStyle = Literal["doppeldeutsch", "french"]
Language = Literal["en", "de", "nl", "tr"]
LeaderboardSort = Literal["rating", "bummerl", "winrate", "points"]
AiStrength = Literal["pimc", "greedy"]  # the engine's AI players a server may choose (engine.ai has more)
TableStatus = Literal["lobby", "playing", "finished", "closed"]

DECK_STYLES: tuple[DeckStyle, ...] = get_args(DeckStyle)
LANGUAGES: tuple[Language, ...] = get_args(Language)
LEADERBOARD_SORTS: tuple[LeaderboardSort, ...] = get_args(LeaderboardSort)
AI_STRENGTHS: tuple[AiStrength, ...] = get_args(AiStrength)
TABLE_STATUSES: tuple[TableStatus, ...] = get_args(TableStatus)
OPEN_STATUSES: tuple[TableStatus, ...] = tuple(status for status in TABLE_STATUSES if status != "closed")

DEFAULT_DECK: DeckStyle = "doppeldeutsch"
DEFAULT_LANGUAGE: Language = "en"

# The contracts grouped the way a player's profile counts them (engine/contracts.py has the members of each).
ContractFamily = Literal["normal", "bettler", "schnapser", "all_tricks", "farbringerl"]
CONTRACT_FAMILIES: tuple[ContractFamily, ...] = get_args(ContractFamily)

# A person's own choices (/schnapsen prefs): where their hand lives, and in which order it is shown.
HandPlace = Literal["dm", "channel"]
HandOrder = Literal["sorted", "dealt"]
HAND_PLACES: tuple[HandPlace, ...] = get_args(HandPlace)
HAND_ORDERS: tuple[HandOrder, ...] = get_args(HandOrder)
