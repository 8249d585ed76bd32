"""What a stored change owes Discord, as typed values, and the one codec that stores them in the outbox and
reads them back as the same types.

The stored form (kind + JSON payload, bot/db/outbox.py) is the one earlier versions wrote, so that what a
running bot owed before an upgrade is still delivered after it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.db import OutboxEntry, OutboxKind

NoticeValue = str | int


@dataclass(frozen=True, slots=True)
class DealResult:
    """A deal's result message; ``tally`` and ``ratings`` only when it ended a rated Bummerl."""

    channel_id: int
    lang: str
    deal_no: int
    tally: tuple[int, int] | None = None
    ratings: tuple[tuple[str, int, int], ...] = ()  # (name, delta, shown) per person, in seat order

    def rating_changes(self) -> list[dict[str, object]]:
        """The rating changes as the result message's text takes them."""
        return [{"name": name, "delta": delta, "shown": shown} for name, delta, shown in self.ratings]


@dataclass(frozen=True, slots=True)
class FinalHand:
    """The last edit of a finished deal's hand message (without buttons)."""

    deal_no: int
    seat: int
    user_id: int | None
    channel_id: int
    message_id: int


@dataclass(frozen=True, slots=True)
class Notice:
    """A line in the table's channel. ``closes_table``: the table closed, and its table message shows that
    (no buttons) before this is sent; ``archive_thread``: the thread the bot opened for it is archived once
    this has arrived."""

    channel_id: int
    lang: str
    key: str
    values: tuple[tuple[str, NoticeValue], ...] = ()
    mention: int | None = None
    archive_thread: int | None = None
    closes_table: bool = False


@dataclass(frozen=True, slots=True)
class SetAside:
    """The table no longer replayed and was closed: its table message shows it closed, then its channel gets
    the record."""

    channel_id: int
    lang: str
    archive_thread: int | None = None


Announcement = DealResult | FinalHand | Notice | SetAside


def encode(announcement: Announcement) -> tuple[OutboxKind, dict[str, Any]]:
    """The outbox's kind and payload of ``announcement``."""
    match announcement:
        case DealResult(channel_id, lang, deal_no, tally):
            return "result", {
                "channel_id": channel_id,
                "lang": lang,
                "deal_no": deal_no,
                "tally": None if tally is None else list(tally),
                "ratings": announcement.rating_changes(),
            }
        case FinalHand(deal_no, seat, user_id, channel_id, message_id):
            return "final_hand", {
                "deal_no": deal_no,
                "seat": seat,
                "user_id": user_id,
                "channel_id": channel_id,
                "message_id": message_id,
            }
        case Notice(channel_id, lang, key, values, mention, archive_thread, closes_table):
            payload: dict[str, Any] = {"channel_id": channel_id, "lang": lang, "key": key, "values": dict(values)}
            if mention is not None:
                payload["mention"] = mention
            if closes_table:  # absent in what earlier versions wrote: read back as False
                payload["closes_table"] = True
            return "notice", _archiving(payload, archive_thread)
        case SetAside(channel_id, lang, archive_thread):
            return "set_aside", _archiving({"channel_id": channel_id, "lang": lang}, archive_thread)


def decode(kind: str, payload: dict[str, Any]) -> Announcement:
    """``announcement`` back from its stored kind and payload; a kind no version wrote raises ValueError."""
    match kind:
        case "result":
            tally = payload.get("tally")
            return DealResult(
                payload["channel_id"],
                payload["lang"],
                payload["deal_no"],
                None if not tally else (tally[0], tally[1]),
                tuple((r["name"], r["delta"], r["shown"]) for r in payload.get("ratings") or ()),
            )
        case "final_hand":
            return FinalHand(
                payload["deal_no"], payload["seat"], payload["user_id"], payload["channel_id"], payload["message_id"]
            )
        case "notice":
            return Notice(
                payload["channel_id"],
                payload["lang"],
                payload["key"],
                tuple(payload.get("values", {}).items()),
                payload.get("mention"),
                payload.get("archive_thread"),
                bool(payload.get("closes_table", False)),
            )
        case "set_aside":
            return SetAside(payload["channel_id"], payload["lang"], payload.get("archive_thread"))
    raise ValueError(f"unknown outbox kind {kind!r}")


@dataclass(frozen=True, slots=True)
class Owed:
    """An announcement still owed, as read back from the outbox."""

    id: int
    table_id: int
    created_at: int
    announcement: Announcement

    @classmethod
    def of(cls, entry: OutboxEntry) -> Owed:
        return cls(entry.id, entry.table_id, entry.created_at, decode(entry.kind, entry.payload))

    @property
    def kind(self) -> OutboxKind:
        return encode(self.announcement)[0]

    @property
    def payload(self) -> dict[str, Any]:
        """The stored form (for logs and tests that read it as stored)."""
        return encode(self.announcement)[1]


def _archiving(payload: dict[str, Any], thread_id: int | None) -> dict[str, Any]:
    return payload if thread_id is None else {**payload, "archive_thread": thread_id}
