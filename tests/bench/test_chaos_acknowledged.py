"""bench/chaos.py's count of acknowledged but unstored clicks, on clicks as the fake Discord records them."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from bench.chaos import GameClick, acknowledged, acknowledged_unstored
from bot.schnapsen.clickanswers import REPEAT_WINDOW

TABLE = 7
DEAL_STARTED = 1_000  # unix seconds
ACTIONS = {(TABLE, 0, 0, "N pass"), (TABLE, 0, 1, "E pass"), (TABLE, 0, 2, "S play HA")}
DEALS = [(TABLE, 0, DEAL_STARTED), (TABLE, 1, DEAL_STARTED + 100)]


def message(content: str = "", embeds: tuple[Any, ...] = ()) -> SimpleNamespace:
    return SimpleNamespace(content=content, embeds=list(embeds))


def click(custom_id: str, response_type: int | None, *, followups: tuple[Any, ...] = (), seat: int = 0,
          at: float = DEAL_STARTED + 5.0, interaction_id: int = 0) -> GameClick:  # fmt: skip
    response = None if response_type is None else SimpleNamespace(type=response_type)
    interaction = SimpleNamespace(
        id=interaction_id,
        custom_id=custom_id,
        response=response,
        response_type=response_type,
        followups=list(followups),
        messages=list(followups),
    )
    return GameClick(interaction, seat, at)  # type: ignore[arg-type]


def test_what_counts_as_acknowledged() -> None:
    hand = message(embeds=({"title": "Your hand"},))
    assert acknowledged(click("bs:7:3:pass:", 6).interaction)
    assert acknowledged(click("bs:7:3:pass:", 7).interaction)
    assert acknowledged(click("bs:7:3:pass:", 5, followups=(hand,)).interaction)
    assert not acknowledged(click("bs:7:3:pass:", 5).interaction)  # still "thinking"
    assert not acknowledged(click("bs:7:3:pass:", None).interaction)  # "This interaction failed"
    refused = message("That button is out of date: the game has moved on. Use the newest message.")
    assert not acknowledged(click("bs:7:3:pass:", 6, followups=(refused,)).interaction)
    assert not acknowledged(click("bs:7:3:pass:", 4, followups=(refused,)).interaction)


def test_one_acknowledged_click_per_position_is_accounted_for_by_a_stored_move() -> None:
    clicks = [
        click("bs:7:3:pass:", 6, seat=0),  # stored: N pass
        click("bs:7:4:pass:", 6, seat=1),  # acknowledged, then killed before its commit ...
        click("bs:7:4:pass:", 6, seat=1, at=DEAL_STARTED + 9.0),  # ... and clicked again: stored this time
        click("bs:7:5:play:HA", 7, seat=2),  # stored: S play HA
        click("bs:7:6:play:HK", 6, seat=3),  # acknowledged, never stored
        click("bs:7:6:play:HQ", 6, seat=3, followups=(message("out of date"),)),  # refused: not counted
        click("bs:7:9:pass:", 6, seat=0, at=DEAL_STARTED + 150.0),  # N passed in deal 0, not in deal 1
    ]

    found, lost, examples = acknowledged_unstored(clicks, ACTIONS, DEALS)

    assert (found, lost) == (6, 3)
    assert [example.split()[0] for example in examples] == ["bs:7:4:pass:", "bs:7:6:play:HK", "bs:7:9:pass:"]


def test_a_click_acknowledged_as_a_repeat_claims_its_positions_stored_move() -> None:
    clicks = [
        click("bs:7:5:play:HA", 7, seat=2, interaction_id=1),  # stored: S play HA
        click("bs:7:5:play:HA", 6, seat=2, interaction_id=2),  # the bot logged it as a repeat of that move
        click("bs:7:6:play:HK", 6, seat=3, interaction_id=3),  # logged as a repeat, yet no such move is stored
        click("bs:7:6:play:HK", 6, seat=3, interaction_id=4),  # not logged as a repeat: a claim of its own
    ]

    found, lost, examples = acknowledged_unstored(clicks, ACTIONS, DEALS, repeats={2, 3})

    assert (found, lost) == (4, 2)
    assert [example.split()[0] for example in examples] == ["bs:7:6:play:HK", "bs:7:6:play:HK"]
    # Without the log's word, the repeat of HA would count as a second claim on its position, and be lost.
    assert acknowledged_unstored(clicks[:2], ACTIONS, DEALS)[1] == 1
    # A repeat of a deal's last card may come after the next deal started, within the window it is taken in.
    late = click("bs:7:5:play:HA", 6, seat=2, interaction_id=5, at=DEAL_STARTED + 100 + 1 + REPEAT_WINDOW)
    assert acknowledged_unstored([late], ACTIONS, DEALS, repeats={5})[1] == 0
    later = click("bs:7:5:play:HA", 6, seat=2, interaction_id=6, at=DEAL_STARTED + 100 + 2 + REPEAT_WINDOW)
    assert acknowledged_unstored([later], ACTIONS, DEALS, repeats={6})[1] == 1


def test_a_click_shown_its_hand_as_it_stands_with_out_of_date_claims_no_move() -> None:
    clicks = [
        click("bs:7:5:play:HA", 7, seat=2, interaction_id=1),  # stored: S play HA
        click("bs:7:5:play:HK", 7, seat=2, interaction_id=2),  # the hand in the channel as it stands, "out of date"
    ]

    assert acknowledged_unstored(clicks, ACTIONS, DEALS, moved_on={2})[:2] == (1, 0)
    # Without the log's word it would count as a second claim on its position, and be lost.
    assert acknowledged_unstored(clicks, ACTIONS, DEALS)[:2] == (2, 1)
