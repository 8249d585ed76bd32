"""Each closed set is defined once; what is keyed by one of them covers exactly its members."""

from __future__ import annotations

from typing import get_args

import engine
from bot import vocabulary
from bot.db import stats
from bot.i18n import catalogue
from bot.render import names


def test_every_preset_name_has_its_ruleset() -> None:
    assert tuple(engine.PRESETS) == get_args(engine.Preset)
    assert all(rules.preset == name for name, rules in engine.PRESETS.items())


def test_the_phase_constants_are_the_phases_in_order_of_play() -> None:
    assert (engine.TRUMP, engine.AUCTION, engine.DOUBLING, engine.PLAY, engine.FINISHED) == engine.PHASES


def test_the_open_statuses_are_all_but_closed() -> None:
    assert set(vocabulary.TABLE_STATUSES) - set(vocabulary.OPEN_STATUSES) == {"closed"}


def test_the_leaderboard_ranks_by_each_sort_and_names_it() -> None:
    assert set(stats._RANK_ORDER) == set(vocabulary.LEADERBOARD_SORTS)
    assert all(f"leaderboard.sort.{sort}" in catalogue("en") for sort in vocabulary.LEADERBOARD_SORTS)


def test_the_renderer_names_the_cards_of_each_deck_in_each_language() -> None:
    for table in (names.SUIT_NAMES, names.RANK_NAMES):
        assert set(table) == set(vocabulary.DECK_STYLES)
        assert all(set(by_language) == set(vocabulary.LANGUAGES) for by_language in table.values())
    assert set(names.CARD_PATTERNS) == set(names.LABELS) == set(vocabulary.LANGUAGES)
