"""The outbox codec: every announcement is read back as the value that was stored, and what earlier versions
stored (dicts written by hand) is read as the same types, so that what was owed across an upgrade arrives."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.db import OutboxEntry
from bot.game.announcements import Announcement, DealResult, FinalHand, Notice, Owed, SetAside, decode, encode

EXAMPLES: list[Announcement] = [
    DealResult(500, "de", 3),
    DealResult(500, "en", 7, (2, 1), (("alice", 14, 1014), ("bob", -9, 991))),
    FinalHand(3, 1, 12, 900, 901),
    Notice(500, "en", "notice.closed_by"),
    Notice(500, "en", "notice.idle_warning", (("seconds", 20),), mention=11),
    Notice(500, "en", "notice.closed_abandoned", archive_thread=500),
    Notice(500, "en", "notice.closed_by", closes_table=True),
    SetAside(500, "en"),
    SetAside(500, "de", 500),
]


@pytest.mark.parametrize("announcement", EXAMPLES)
def test_an_announcement_is_read_back_as_stored(announcement: Announcement) -> None:
    kind, payload = encode(announcement)
    stored = json.loads(json.dumps(payload))  # as the outbox keeps it
    assert decode(kind, stored) == announcement
    assert Owed.of(OutboxEntry(1, 7, kind, stored, 0)).announcement == announcement


@pytest.mark.parametrize(
    ("kind", "payload", "expected"),
    [
        (
            "result",
            {"channel_id": 5, "lang": "en", "deal_no": 2, "tally": None, "ratings": []},
            DealResult(5, "en", 2),
        ),
        (
            "result",
            {"channel_id": 5, "lang": "en", "deal_no": 2, "tally": [3, 1],
             "ratings": [{"name": "a", "delta": 5, "shown": 1005}]},
            DealResult(5, "en", 2, (3, 1), (("a", 5, 1005),)),
        ),
        (
            "final_hand",
            {"deal_no": 2, "seat": 3, "user_id": 14, "channel_id": 8, "message_id": 9},
            FinalHand(2, 3, 14, 8, 9),
        ),
        (
            "notice",
            {"channel_id": 5, "lang": "de", "key": "notice.new_host", "values": {"name": "bob"}},
            Notice(5, "de", "notice.new_host", (("name", "bob"),)),
        ),
        (
            "notice",
            {"channel_id": 5, "lang": "en", "key": "notice.dms_closed", "values": {}, "mention": 11},
            Notice(5, "en", "notice.dms_closed", mention=11),
        ),
        (
            "notice",
            {"channel_id": 5, "lang": "en", "key": "notice.closed_by", "values": {}, "archive_thread": 5},
            Notice(5, "en", "notice.closed_by", archive_thread=5),  # a close before its table message was owed
        ),
        ("set_aside", {"channel_id": 5, "lang": "en", "archive_thread": 5}, SetAside(5, "en", 5)),
    ],
)
def test_what_earlier_versions_stored_is_read_as_the_same_types(
    kind: str, payload: dict[str, Any], expected: Announcement
) -> None:
    assert decode(kind, payload) == expected
    assert encode(expected) == (kind, payload), "and it is stored as they stored it"


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown outbox kind"):
        decode("telegram", {})
