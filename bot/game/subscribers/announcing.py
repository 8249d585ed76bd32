"""What a change owes Discord, stored in the outbox in the change's own transaction: a finished deal's result
message (with the tally and rating changes deal accounting answered) and the last edit of its hand messages,
and the notices of the channel (a new host, an idle warning, a take-over, closed DMs, the table closed or set
aside). The shell delivers them (bot/schnapsen/messages.py)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.db import Database, TableRow
from bot.game.announcements import Announcement, DealResult, FinalHand, Notice, SetAside, encode
from bot.game.events import (
    BummerlRated,
    Change,
    DealEnded,
    DmsClosed,
    HostChanged,
    PlayerWarned,
    TableClosed,
    TableEvent,
    TableSetAside,
    TakenOver,
)


class Announcing:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def __call__(self, change: Change) -> Sequence[TableEvent]:
        for announcement in owed(change.row, change.events):
            kind, payload = encode(announcement)
            await self.db.outbox.add_announcement(change.row.id, kind, payload, change.now)
        return ()


def owed(row: TableRow, events: Sequence[TableEvent]) -> list[Announcement]:
    """What ``events`` of the table ``row`` owe, in the order they are to arrive."""
    rated = next((event for event in events if isinstance(event, BummerlRated)), None)
    channel, lang = row.channel_id, row.language
    archive = row.channel_id if row.thread_parent_id is not None else None
    found: list[Announcement] = []
    for event in events:
        match event:
            case DealEnded(table):
                tally, changes = (None, ()) if rated is None else (rated.tally, rated.ratings)
                found.append(DealResult(channel, lang, table.deal_no, tally, changes))
                found.extend(  # the finished deal's hand messages get a last edit, without buttons
                    FinalHand(table.deal_no, s.seat, s.user_id, s.dm_channel_id, s.dm_message_id)
                    for s in table.humans()
                    if s.dm_channel_id is not None and s.dm_message_id is not None
                )
            case HostChanged(_, name):
                found.append(Notice(channel, lang, "notice.new_host", (("name", name),)))
            case PlayerWarned(_, user_id, seconds):
                found.append(Notice(channel, lang, "notice.idle_warning", (("seconds", seconds),), mention=user_id))
            case TakenOver(_, name):
                found.append(Notice(channel, lang, "notice.taken_over", (("name", name),)))
            case DmsClosed(_, user_id):
                found.append(Notice(channel, lang, "notice.dms_closed", mention=user_id))
            case TableClosed(reason_key):
                found.append(Notice(channel, lang, reason_key, archive_thread=archive))
            case TableSetAside():
                found.append(SetAside(channel, lang, archive))
    return found
