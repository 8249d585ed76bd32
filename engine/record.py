"""Game records (``bauernschnapsen/1``, see docs/record.md): parsing with exact error locations, replaying
to states, and the replay report."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .actions import format_action, parse_action
from .cards import SEAT_NAMES, TEAM_NAMES, parse_card
from .deal import new_deal
from .errors import MalformedInput, RulesError
from .events import BummerlWon, Event
from .match import MatchState, new_match, score_deal
from .rules import apply, legal_actions
from .ruleset import Ruleset, ruleset_from_json, ruleset_to_json
from .state import DealState

FORMAT = "bauernschnapsen/1"


@dataclass(frozen=True, slots=True)
class DealRecord:
    hands: tuple[tuple[str, ...], ...]  # seat order N E S W, each in deal order
    actions: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GameRecord:
    rules: Ruleset
    dealer: int
    deals: tuple[DealRecord, ...]
    practice: bool = False  # played at a practice table (with hints): it counts for no statistic or rating

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": FORMAT,
            "rules": ruleset_to_json(self.rules),
            "dealer": SEAT_NAMES[self.dealer],
        }
        if self.practice:  # written only when set, so that every other record reads as before
            data["practice"] = True
        data["deals"] = [
            {"hands": {SEAT_NAMES[s]: list(h) for s, h in enumerate(d.hands)}, "actions": list(d.actions)}
            for d in self.deals
        ]
        return data


def _fail(where: str, message: str, code: str = "bad_record") -> MalformedInput:
    return MalformedInput(code, f"{where}: {message}")


def parse_record(data: Any) -> GameRecord:
    """Validate a decoded JSON record; MalformedInput names the exact place of the first problem."""
    if not isinstance(data, dict):
        raise _fail("record", "must be a JSON object")
    if data.get("format") != FORMAT:
        raise _fail("format", f"must be {FORMAT!r}, not {data.get('format')!r}", "unknown_format")
    unknown = set(data) - {"format", "rules", "dealer", "deals", "practice"}
    if unknown:
        raise _fail("record", f"unknown field(s) {sorted(unknown)}")
    try:
        rules = ruleset_from_json(data.get("rules", "standard"))
    except MalformedInput as err:
        raise _fail("rules", err.message, err.code) from None
    dealer_text = data.get("dealer")
    if dealer_text not in SEAT_NAMES:
        raise _fail("dealer", f"{dealer_text!r} is not a seat (N, E, S or W)", "unknown_seat")
    deals_data = data.get("deals")
    if not isinstance(deals_data, list):
        raise _fail("deals", "must be a list")
    practice = data.get("practice", False)
    if not isinstance(practice, bool):
        raise _fail("practice", "must be true or false")
    deals = tuple(_parse_deal(i, d) for i, d in enumerate(deals_data))
    return GameRecord(rules, SEAT_NAMES.index(dealer_text), deals, practice)


def _parse_deal(index: int, data: Any) -> DealRecord:
    where = f"deals[{index}]"
    if not isinstance(data, dict) or set(data) - {"hands", "actions"}:
        raise _fail(where, "must be an object with 'hands' and 'actions'")
    hands_data = data.get("hands")
    if not isinstance(hands_data, dict) or sorted(hands_data) != sorted(SEAT_NAMES):
        raise _fail(f"{where}.hands", "must map each of the seats N, E, S, W to its cards", "unknown_seat")
    hands: list[tuple[str, ...]] = []
    seen: dict[str, str] = {}
    for seat in SEAT_NAMES:
        cards = hands_data[seat]
        if not isinstance(cards, list) or len(cards) != 5:
            raise _fail(f"{where}.hands.{seat}", "must be a list of exactly 5 cards", "bad_hands")
        parsed = []
        for card_text in cards:
            try:
                card = parse_card(card_text)
            except MalformedInput as err:
                raise _fail(f"{where}.hands.{seat}", err.message, err.code) from None
            if card in seen:
                raise _fail(
                    f"{where}.hands.{seat}", f"{card} is dealt twice (also to {seen[card]})", "duplicate_card"
                )
            seen[card] = seat
            parsed.append(card)
        hands.append(tuple(parsed))
    actions = data.get("actions", [])
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise _fail(f"{where}.actions", "must be a list of strings")
    for j, text in enumerate(actions):
        try:
            parse_action(text)
        except MalformedInput as err:
            raise _fail(f"{where}.actions[{j}]", err.message, err.code) from None
    return DealRecord(tuple(hands), tuple(actions))


@dataclass(frozen=True, slots=True)
class ReplayError:
    deal: int
    index: int
    action: str
    error: RulesError


class ReplayStopped(RulesError):
    """An action of the record is illegal: ``at`` says where (the error's code and message are its own)."""

    def __init__(self, at: ReplayError) -> None:
        super().__init__(at.error.code, at.error.message)
        self.at = at


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """One step of a replay: a deal dealt (``action`` None) or one of its actions applied."""

    deal: int  # index of the deal in the record
    action: int | None  # index of the action in the deal; None for the deal's start
    state: DealState  # the deal after this step
    events: tuple[Event, ...]  # what the action did (none for a deal's start)
    match: MatchState  # scored through every finished deal, this one included once this step finished it
    bummerl: BummerlWon | None  # the Bummerl this step ended, if any


def replay_steps(record: GameRecord) -> Iterator[ReplayStep]:
    """Rebuild the record step by step, lazily (stop iterating to stop early). An illegal action raises
    ReplayStopped; a later deal after an unfinished one raises MalformedInput."""
    match = new_match(record.rules, record.dealer)
    state: DealState | None = None
    for i, deal in enumerate(record.deals):
        if state is not None and not state.finished:
            raise _fail(
                f"deals[{i}]", f"deal {i - 1} is unfinished, so no later deal can follow", "unfinished_deal"
            )
        state = new_deal(record.rules, match.next_dealer, deal.hands)
        yield ReplayStep(i, None, state, (), match, None)
        for j, text in enumerate(deal.actions):
            seat, action = parse_action(text)
            try:
                state, events = apply(state, seat, action)
            except RulesError as err:
                raise ReplayStopped(ReplayError(i, j, text, err)) from None
            bummerl = None
            if state.result is not None:
                match, bummerl = score_deal(match, state.result)
            yield ReplayStep(i, j, state, events, match, bummerl)


@dataclass(frozen=True, slots=True)
class Replayed:
    match: MatchState  # scored through every finished deal
    deals: tuple[DealState, ...]  # the final state of each deal (the position before the error, if any)
    error: ReplayError | None


def replay(record: GameRecord) -> Replayed:
    """Rebuild every deal from its hands and actions; stop at the first illegal action."""
    match = new_match(record.rules, record.dealer)
    states: list[DealState] = []
    try:
        for step in replay_steps(record):
            if step.action is None:
                states.append(step.state)
            else:
                states[-1] = step.state
            match = step.match
    except ReplayStopped as stopped:
        return Replayed(match, tuple(states), stopped.at)
    return Replayed(match, tuple(states), None)


def replay_report(replayed: Replayed) -> dict[str, Any]:
    """The JSON object ``python -m engine.replay`` prints."""
    report: dict[str, Any] = {
        "ok": replayed.error is None,
        "deals": [describe_deal(s) for s in replayed.deals],
        "score": _teams(replayed.match.score),
        "bummerl": [
            {"winner": TEAM_NAMES[b.winner], "kind": b.kind, "count": b.count, "score": _teams(b.score)}
            for b in replayed.match.bummerls
        ],
    }
    if replayed.error is not None:
        err = replayed.error
        report["error"] = {
            "deal": err.deal,
            "index": err.index,
            "action": err.action,
            "code": err.error.code,
            "message": err.error.message,
        }
    return report


def _teams(score: tuple[int, int]) -> dict[str, int]:
    return {TEAM_NAMES[0]: score[0], TEAM_NAMES[1]: score[1]}


def _seat(seat: int | None) -> str | None:
    return None if seat is None else SEAT_NAMES[seat]


def describe_deal(state: DealState) -> dict[str, Any]:
    result = state.result
    return {
        "dealer": SEAT_NAMES[state.dealer],
        "forehand": SEAT_NAMES[state.forehand],
        "trump": state.trump,
        "aufschlag_card": state.aufschlag_card,
        "contract": None if state.contract is None else state.contract.id,
        "declarer": _seat(state.declarer),
        "multiplier": state.multiplier if state.contract is not None else None,
        "tricks": [
            {
                "leader": SEAT_NAMES[t.leader],
                "cards": list(t.cards),
                "winner": SEAT_NAMES[t.winner],
                "points": t.points,
            }
            for t in state.tricks
        ],
        "marriages": [
            {
                "seat": SEAT_NAMES[m.seat],
                "suit": m.suit,
                "card": m.card,
                "value": m.value,
                "trick": m.trick_no,
                "counted": state.team_tricks[m.seat & 1] > 0,
            }
            for m in state.marriages
        ],
        "result": None
        if result is None
        else {
            "winner": TEAM_NAMES[result.winner],
            "base": result.base,
            "multiplier": result.multiplier,
            "game_points": result.game_points,
            "reason": result.reason,
        },
        "next": None
        if state.to_act is None
        else {
            "seat": SEAT_NAMES[state.to_act],
            "legal": [format_action(state.to_act, a) for a in legal_actions(state)],
        },
    }


# A record nests four levels deep (record, deals, deal, hands); anything far deeper is not a record, and is
# refused before any message quotes it. Numbers are refused past a length no setting needs, before Python's
# own limit on converting long digit strings (ValueError) is reached.
_MAX_DEPTH = 32
_MAX_DIGITS = 100
_INFINITY = float("inf")
_UNREAD = "not JSON the engine reads"
_TOO_DEEP = f"{_UNREAD}: lists and objects nested too deeply (more than {_MAX_DEPTH} levels)"


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > _MAX_DIGITS:
        raise MalformedInput("not_json", f"{_UNREAD}: a number of {digits} digits (at most {_MAX_DIGITS})")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if value in (_INFINITY, -_INFINITY):
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise MalformedInput("not_json", f"{_UNREAD}: the number {shown} is out of range")
    return value


def _parse_constant(name: str) -> Any:
    raise MalformedInput("not_json", f"not JSON: {name} is not a JSON value")


def _too_deep(data: Any) -> bool:
    """Whether lists and objects nest more than _MAX_DEPTH levels deep (checked without recursion)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > _MAX_DEPTH:
            return True
        children = value.values() if isinstance(value, dict) else value
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def load_record_text(text: str) -> GameRecord:
    """A record from its JSON text; MalformedInput (code ``not_json``) for anything the JSON reader refuses,
    however it fails: bad syntax, NaN or Infinity, a number too long, nesting too deep."""
    if text.startswith("\ufeff"):  # a byte order mark some editors write; RFC 8259 lets a reader skip it
        text = text[1:]
    try:
        data = json.loads(
            text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant
        )
    except json.JSONDecodeError as err:
        raise MalformedInput(
            "not_json", f"not JSON: {err.msg} at line {err.lineno} column {err.colno}"
        ) from None
    except RecursionError:
        raise MalformedInput("not_json", _TOO_DEEP) from None
    if isinstance(data, (dict, list)) and _too_deep(data):
        raise MalformedInput("not_json", _TOO_DEEP)
    return parse_record(data)
