"""The button families' templates: every custom id the bot makes is claimed by exactly one family, and the
item discord.py builds from a click carries the same id (buttons on old messages keep working)."""

from __future__ import annotations

from typing import Any

import discord
import pytest

import engine
from bot.schnapsen.components import (
    COMPONENTS,
    GAME_VERBS,
    HAND_VERBS,
    HOST_VERBS,
    SEAT_VERBS,
    CoachButton,
    GameActionButton,
    HandButton,
    HostButton,
    SeatButton,
    UnknownVerbButton,
)
from bot.schnapsen.ids import ButtonId
from bot.schnapsen.shellbuttons import DealReviewButton, ForgetMeButton, LeaderboardButton


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


# Custom ids exactly as earlier versions posted them (written out, not built): a table survives a restart, so
# every button already on a message must keep reaching its family and mean what it meant.
POSTED_EARLIER: list[tuple[str, type[Any], Any]] = [
    ("bs:7:9:trump:H", GameActionButton, engine.ChooseTrump("H")),
    ("bs:7:9:auf:", GameActionButton, engine.AUFSCHLAGEN),
    ("bs:7:9:bid:schnapser", GameActionButton, engine.Bid(engine.Contract.SCHNAPSER)),
    ("bs:7:9:pass:", GameActionButton, engine.PASS),
    ("bs:7:9:dbl:kontra", GameActionButton, engine.Double("kontra")),
    ("bs:7:9:play:HA", GameActionButton, engine.PlayCard("HA")),
    ("bs:7:9:mar:HK40", GameActionButton, engine.PlayCard("HK", 40)),
    ("bs:7:0:sit:2", SeatButton, None),
    ("bs:7:0:ai:", SeatButton, None),
    ("bs:7:0:leave:", SeatButton, None),
    ("bs:7:0:start:", SeatButton, None),
    ("bs:7:0:practice:1", SeatButton, None),
    ("bs:7:9:rematch:", HostButton, None),
    ("bs:7:9:close:", HostButton, None),
    ("bs:7:0:stop:", HostButton, None),
    ("bs:7:0:hand:", HandButton, None),
    ("bs:7:0:back:", HandButton, None),
    ("bs:7:0:review:3", CoachButton, None),
    ("bs:7:9:hint:", CoachButton, None),
]


@pytest.mark.parametrize(("custom_id", "family", "action"), POSTED_EARLIER)
async def test_a_button_posted_by_an_earlier_version_still_reaches_its_family(
    custom_id: str, family: type[Any], action: Any
) -> None:
    assert families_claiming(custom_id) == [family]
    match = family.__discord_ui_compiled_template__.fullmatch(custom_id)
    rebuilt = await family.from_custom_id(None, discord.ui.Button(custom_id=custom_id), match)
    assert rebuilt.custom_id == custom_id and str(rebuilt.button) == custom_id
    if action is not None:
        assert GameActionButton.action_of(rebuilt.button) == action
        assert str(GameActionButton.id_of(7, 9, action)) == custom_id  # and is what the family builds today


def test_the_families_build_the_ids_earlier_versions_posted() -> None:
    built = [
        SeatButton.sit(7, 2, "Sit", taken=False),
        SeatButton.add_ai(7, "AI"),
        SeatButton.leave(7, "Leave"),
        SeatButton.start(7, "Start"),
        SeatButton.practice_toggle(7, False, "Practice"),
        HostButton.rematch(7, 9, "Rematch"),
        HostButton.close(7, 9, "Close"),
        HostButton.stop(7, "Stop"),
        HandButton.my_hand(7, "My hand"),
        HandButton.back(7, "Back"),
        CoachButton.review(7, 3, "Review"),
        CoachButton.hint(7, 9, "Hint"),
        DealReviewButton(7, 3, "Show the deal"),
        ForgetMeButton(42, "Forget me"),
        LeaderboardButton("winrate", 3, "▶"),
    ]
    assert [button.custom_id for button in built] == [
        "bs:7:0:sit:2", "bs:7:0:ai:", "bs:7:0:leave:", "bs:7:0:start:", "bs:7:0:practice:1", "bs:7:9:rematch:",
        "bs:7:9:close:", "bs:7:0:stop:", "bs:7:0:hand:", "bs:7:0:back:", "bs:7:0:review:3", "bs:7:9:hint:",
        "bsdeal:7:3", "bsforget:42", "bslb:winrate:3",
    ]  # fmt: skip
    for button in built:
        assert families_claiming(button.custom_id) == [type(button)]
