"""The play model (engine/ai/playmodel.py): the chance of each card for a seat's cards at a moment of play,
fitted to the AI's own choices, and the inference from play weighing worlds by it."""

from __future__ import annotations

import pytest

from engine import STANDARD, apply, legal_actions, view_for
from engine.actions import PlayCard
from engine.ai import greedy, playmodel
from engine.ai.compact import mask_of
from engine.ai.knowledge import table_of
from engine.ai.pimc import _play_likelihood
from engine.state import DealState
from tests.engine.ai.games import normal_game_at_first_card


def _normal_game(seed: int, plays: int) -> DealState | None:
    """A normal game after ``plays`` cards greedy chose (None if it ended before)."""
    state = normal_game_at_first_card(seed)
    for _ in range(plays):
        seat = state.to_act
        if seat is None:
            return None
        state, _ = apply(state, seat, greedy.choose(view_for(state, seat), STANDARD))
    return state if state.to_act is not None else None


def _chances(state: DealState) -> tuple[dict[str, float], str, dict[str, list[float]]]:
    seat = state.to_act
    assert seat is not None
    view = view_for(state, seat)
    table = table_of(view, STANDARD)
    assert table is not None
    greedys = greedy.choose(view, STANDARD)
    assert isinstance(greedys, PlayCard)
    rows = playmodel.features(view, table, greedys.card)
    return playmodel.probabilities(rows), greedys.card, rows


def test_every_card_to_choose_from_has_a_chance_and_they_add_up_to_one() -> None:
    for seed in range(30):
        for plays in (0, 1, 3, 6):
            state = _normal_game(seed, plays)
            if state is None:
                continue
            chances, greedys, rows = _chances(state)
            cards = {a.card for a in legal_actions(state) if isinstance(a, PlayCard)}
            assert set(chances) == cards == set(rows)
            assert all(len(row) == len(playmodel.FEATURES) for row in rows.values())
            assert sum(chances.values()) == pytest.approx(1.0)
            assert all(0 < chance < 1 or len(cards) == 1 for chance in chances.values())
            assert rows[greedys][playmodel.FEATURES.index("greedy")] == 1.0


def test_greedys_card_is_the_likeliest_and_points_given_away_unlikely() -> None:
    greedy_first = choices = 0
    give = playmodel.FEATURES.index("give")
    for seed in range(40):
        for plays in (1, 2, 5):
            state = _normal_game(seed, plays)
            if state is None:
                continue
            chances, greedys, rows = _chances(state)
            if len(chances) < 2:
                continue
            choices += 1
            greedy_first += max(chances, key=chances.__getitem__) == greedys
            given = [card for card in chances if rows[card][give] >= 10 / 11]
            cheap = [card for card in chances if rows[card][give] <= 3 / 11 and rows[card][0] == 0.0]
            if given and cheap:  # an Ace or Ten thrown on the opponents' trick is less likely than a low card
                assert max(chances[c] for c in given) < max(chances[c] for c in cheap)
    assert greedy_first >= 0.8 * choices


def test_with_the_model_a_world_counts_by_the_chances_of_the_cards_played(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("engine.ai.pimc.PLAY_MODEL", True)
    monkeypatch.setattr("engine.ai.pimc.MARRIAGE_SILENCE", None)
    seed, plays = 8, 6
    state, after = _normal_game(seed, 0), _normal_game(seed, plays)
    assert state is not None and after is not None
    expected = 1.0
    me = after.to_act
    for _ in range(plays):  # the chance of each card greedy played, at its seat's moment
        seat = state.to_act
        assert seat is not None
        chances, greedys, _ = _chances(state)
        if seat != me and len(chances) > 1:
            expected *= chances[greedys]
        state, _ = apply(state, seat, greedy.choose(view_for(state, seat), STANDARD))
    view = view_for(state, me)
    table = table_of(view, STANDARD)
    assert table is not None
    likelihood = _play_likelihood(view, STANDARD, table)
    assert likelihood is not None
    weight, _ = likelihood([mask_of(state.hands[seat]) for seat in range(4)])
    assert expected < 1.0
    assert weight == pytest.approx(expected)
