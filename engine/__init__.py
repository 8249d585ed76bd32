"""Bauernschnapsen rules engine: pure, standard library only, no I/O.

The public API: deal with ``deal_hands``/``new_deal``, ask ``legal_actions``, validate with ``check`` or
``is_legal``, advance with ``apply`` (new state + events), show with ``view_for``, score Bummerl with
``score_deal``, and read/write game records with ``parse_record``/``replay`` (step by step: ``replay_steps``).
"""

from .actions import (
    AUFSCHLAGEN,
    PASS,
    Action,
    Aufschlagen,
    Bid,
    ChooseTrump,
    Double,
    Pass,
    PlayCard,
    format_action,
    parse_action,
)
from .cards import DECK, SEAT_NAMES, SUITS, TEAM_NAMES, parse_card, partner_of, points, team_of
from .contracts import Contract
from .deal import deal_hands, new_deal
from .errors import IllegalAction, MalformedInput, NotYourTurn, RulesError, WrongPhase
from .events import BummerlKind
from .match import BummerlResult, MatchState, displayed_score, new_match, score_deal
from .record import (
    DealRecord,
    GameRecord,
    ReplayStep,
    ReplayStopped,
    load_record_text,
    parse_record,
    replay,
    replay_report,
    replay_steps,
)
from .rules import apply, apply_unchecked, check, is_legal, legal_actions
from .ruleset import PRESETS, STANDARD, STARGAMES, Preset, Ruleset, ruleset_from_json, ruleset_to_json
from .state import AUCTION, DOUBLING, FINISHED, PHASES, PLAY, TRUMP, DealResult, DealState, Phase, Trick
from .views import PlayerView, TrickView, display_order, view_for

__all__ = [
    "AUCTION",
    "AUFSCHLAGEN",
    "DECK",
    "DOUBLING",
    "FINISHED",
    "PASS",
    "PHASES",
    "PLAY",
    "PRESETS",
    "SEAT_NAMES",
    "STANDARD",
    "STARGAMES",
    "SUITS",
    "TEAM_NAMES",
    "TRUMP",
    "Action",
    "Aufschlagen",
    "Bid",
    "BummerlKind",
    "BummerlResult",
    "ChooseTrump",
    "Contract",
    "DealRecord",
    "DealResult",
    "DealState",
    "Double",
    "GameRecord",
    "IllegalAction",
    "MalformedInput",
    "MatchState",
    "NotYourTurn",
    "Pass",
    "Phase",
    "PlayCard",
    "PlayerView",
    "Preset",
    "ReplayStep",
    "ReplayStopped",
    "RulesError",
    "Ruleset",
    "Trick",
    "TrickView",
    "WrongPhase",
    "apply",
    "apply_unchecked",
    "check",
    "deal_hands",
    "display_order",
    "displayed_score",
    "format_action",
    "is_legal",
    "legal_actions",
    "load_record_text",
    "new_deal",
    "new_match",
    "parse_action",
    "parse_card",
    "parse_record",
    "partner_of",
    "points",
    "replay",
    "replay_report",
    "replay_steps",
    "ruleset_from_json",
    "ruleset_to_json",
    "score_deal",
    "team_of",
    "view_for",
]
