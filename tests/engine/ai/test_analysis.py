"""The coach's analysis: each decision of a seat judged with its view at the time, the same values as
``python -m engine.ai`` on the record cut off just before it, the costly ones biggest first."""

from __future__ import annotations

import json

import pytest

from engine import (
    STANDARD,
    DealRecord,
    GameRecord,
    MalformedInput,
    apply,
    deal_hands,
    format_action,
    new_deal,
    parse_record,
    view_for,
)
from engine.ai import analysis, choose_action
from engine.ai.__main__ import run

BUDGET = ["--budget-ms", "5", "--seed", "0"]


def finished_deal(seed: int = 6, careless_seat: int = 0) -> GameRecord:
    """One finished deal: ``careless_seat`` plays random legal moves, the others greedy."""
    hands = deal_hands(seed, 3)
    state = new_deal(STANDARD, 3, hands)
    actions = []
    while not state.finished:
        seat = state.to_act
        assert seat is not None
        player = "random" if seat == careless_seat else "greedy"
        action = choose_action(view_for(state, seat), player, seed=len(actions))
        actions.append(format_action(seat, action))
        state, _ = apply(state, seat, action)
    return GameRecord(STANDARD, 3, (DealRecord(hands, tuple(actions)),))


def cut_before(record: GameRecord, index: int) -> dict[str, object]:
    data = record.to_json()
    data["deals"][-1]["actions"] = data["deals"][-1]["actions"][:index]
    return data


def test_each_reviewed_decision_has_the_values_engine_ai_gives_at_that_position() -> None:
    record = finished_deal()
    status, answer = run(["-", "--review", "N", *BUDGET], json.dumps(record.to_json()))
    assert status == 0, answer
    assert answer["seat"] == "N" and answer["deal"] == 0 and answer["review"]
    for decision in answer["review"]:
        status, position = run(["-", *BUDGET], json.dumps(cut_before(record, decision["index"])))
        assert status == 0, position
        assert position["seat"] == "N" and position["phase"] == decision["phase"]
        assert position["evaluations"] == decision["evaluations"]
        assert position["action"] == decision["action"]
        values = {e["action"]: e["value"] for e in decision["evaluations"]}
        assert (
            abs(decision["loss"] - max(0.0, values[decision["action"]] - values[decision["played"]])) < 1e-3
        )


def test_only_the_seats_own_choices_are_judged_and_the_costly_come_biggest_first() -> None:
    record = finished_deal()
    decisions = analysis.review(record, 0, 0, seed=0, budget_ms=5)
    assert decisions and all(d.moment.view.seat == 0 and len(d.moment.view.legal) > 1 for d in decisions)
    actions = record.deals[0].actions
    assert all(actions[d.moment.index] == format_action(0, d.moment.played) for d in decisions)
    assert [d.moment.index for d in decisions] == sorted(d.moment.index for d in decisions)
    worst = analysis.costly(decisions)
    assert worst, "a random player's deal has a costly decision"
    assert [d.loss for d in worst] == sorted((d.loss for d in worst), reverse=True)
    assert all(d.loss >= analysis.COSTLY for d in worst)
    assert all(d.loss == 0 or d.best != d.moment.played for d in decisions)


def test_review_refuses_a_deal_the_record_does_not_have() -> None:
    status, answer = run(["-", "--review", "N", "--deal", "3"], json.dumps(finished_deal().to_json()))
    assert status == 2 and answer["error"]["code"] == "usage"


def test_a_practice_record_says_so_and_others_read_as_before() -> None:
    record = finished_deal()
    assert "practice" not in record.to_json()
    practice = GameRecord(record.rules, record.dealer, record.deals, practice=True)
    data = practice.to_json()
    assert data["practice"] is True
    assert parse_record(data) == practice
    assert parse_record(record.to_json()).practice is False
    with pytest.raises(MalformedInput):
        parse_record({**data, "practice": "yes"})
