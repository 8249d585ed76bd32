"""bench/player_view.py's people click a card again only when their client lets them: Discord's client disables a
message's buttons while an interaction from it waits for its answer."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from bench.player_view import INTERACTION_FAILS_AFTER, waits_for_answer

LATENCY = 0.08
CLICKED = 100.0  # the fake's monotonic time of the click


def interaction(answered_at: float | None) -> Any:
    response = None if answered_at is None else SimpleNamespace(type=7, at=answered_at)
    return SimpleNamespace(created_at=CLICKED, response=response)


def test_the_client_waits_until_the_answer_reached_the_person() -> None:
    answered = interaction(CLICKED + 0.2)
    assert waits_for_answer(answered, LATENCY, CLICKED + 0.15)  # no answer yet
    assert waits_for_answer(answered, LATENCY, CLICKED + 0.25)  # answered, still on its way to the person
    assert not waits_for_answer(answered, LATENCY, CLICKED + 0.2 + LATENCY + 0.001)


def test_an_interaction_never_answered_fails_after_its_three_seconds_and_frees_the_buttons() -> None:
    unanswered = interaction(None)
    assert waits_for_answer(unanswered, LATENCY, CLICKED + INTERACTION_FAILS_AFTER)
    assert not waits_for_answer(unanswered, LATENCY, CLICKED + INTERACTION_FAILS_AFTER + LATENCY + 0.001)
