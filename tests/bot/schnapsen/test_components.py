"""The button families' templates: every custom id the bot makes is claimed by exactly one family, and the
item discord.py builds from a click carries the same id (buttons on old messages keep working)."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from bot.schnapsen.components import (
    COMPONENTS,
    GameActionButton,
    HandButton,
    HostButton,
    LeaderboardButton,
    SeatButton,
    UnknownVerbButton,
)
from bot.schnapsen.ids import GAME_VERBS, HAND_VERBS, HOST_VERBS, SEAT_VERBS, ButtonId


def families_claiming(custom_id: str) -> list[type[Any]]:
    """The registered classes whose template discord.py would run for a click on ``custom_id``."""
    return [cls for cls in COMPONENTS if cls.__discord_ui_compiled_template__.fullmatch(custom_id)]


@pytest.mark.parametrize(
    ("verbs", "family"),
    [(GAME_VERBS, GameActionButton), (SEAT_VERBS, SeatButton), (HOST_VERBS, HostButton), (HAND_VERBS, HandButton)],
)
def test_each_verb_belongs_to_exactly_one_family(verbs: tuple[str, ...], family: type[Any]) -> None:
    for verb in verbs:
        assert families_claiming(f"bs:12:34:{verb}:Ha") == [family], verb


@pytest.mark.parametrize("custom_id", ["bs:12:34:zap:", "bs:12:34:playx:Ha", "bs:12:34:sitt:1", "bs:1:0:pla:"])
def test_a_forged_verb_is_claimed_only_to_be_refused(custom_id: str) -> None:
    assert families_claiming(custom_id) == [UnknownVerbButton]


@pytest.mark.parametrize("custom_id", ["bslb:winrate:3", "bslb:points:0"])
def test_leaderboard_pages_have_their_own_family(custom_id: str) -> None:
    assert families_claiming(custom_id) == [LeaderboardButton]


@pytest.mark.parametrize("custom_id", ["bs:12:34:play:Ha:x", "bslb:wins:1", "bs:x:34:play:Ha", "other:1"])
def test_ids_of_no_shape_are_claimed_by_nobody(custom_id: str) -> None:
    assert families_claiming(custom_id) == []


@pytest.mark.parametrize(
    "button",
    [ButtonId(7, 9, "mar", "HK40"), ButtonId(7, 0, "sit", "2"), ButtonId(7, 9, "close"), ButtonId(7, 0, "back")],
)
async def test_a_click_rebuilds_the_button_it_was_made_from(button: ButtonId) -> None:
    [family] = families_claiming(str(button))
    made = family(button, "label")
    assert made.custom_id == str(button)
    match = family.__discord_ui_compiled_template__.fullmatch(made.custom_id)
    rebuilt = await family.from_custom_id(None, made.item, match)
    assert isinstance(rebuilt, family) and rebuilt.button == button


def test_views_hold_the_families_buttons_as_plain_discord_buttons() -> None:
    view = discord.ui.View(timeout=None)
    view.add_item(SeatButton(ButtonId(7, 0, "sit", "1"), "Sit East", discord.ButtonStyle.primary, row=0))
    [row] = view.to_components()
    assert row["components"] == [
        {"type": 2, "style": 1, "label": "Sit East", "disabled": False, "custom_id": "bs:7:0:sit:1"}
    ]
