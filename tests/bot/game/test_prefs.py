"""A person's own choices: stored once for every guild, read back after a restart, unknown values refused."""

from __future__ import annotations

import pytest

from bot.db import Database, PlayerPrefs
from bot.game.errors import UserError
from bot.game.service import TableService


async def test_defaults_until_chosen_then_only_what_is_given_changes(
    service: TableService, db: Database
) -> None:
    assert await service.prefs.player_prefs(7) == PlayerPrefs(7, "dm", "sorted")
    assert await service.prefs.set_player_prefs(7, hand_place="channel") == PlayerPrefs(7, "channel", "sorted")
    assert await service.prefs.set_player_prefs(7, hand_order="dealt") == PlayerPrefs(7, "channel", "dealt")
    assert service.prefs.cached_prefs(7) == PlayerPrefs(7, "channel", "dealt")
    assert await TableService(db).prefs.player_prefs(7) == PlayerPrefs(7, "channel", "dealt")  # as after a restart


async def test_an_unknown_choice_changes_nothing(service: TableService, db: Database) -> None:
    with pytest.raises(UserError):
        await service.prefs.set_player_prefs(8, hand_place="carrier-pigeon")
    assert await db.prefs.get_player_prefs(8) == PlayerPrefs(8)
