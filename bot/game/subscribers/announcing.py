"""What a change owes Discord, stored in the outbox in the change's own transaction: a finished deal's result
message (with the tally and rating changes deal accounting answered) and the last edit of its hand messages,
and the notices of the channel (a new host, an idle warning, a take-over, closed DMs, the table closed or set
aside). A table that closes, for whatever reason, also owes the last edit of every hand message it still has
(a running deal's, or the finished Bummerl's last) and of its table message (with the closing notice), so that
no message of a closed table is left offering a move, after a restart too. The shell delivers them
(bot/schnapsen/messages.py)."""

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
        announcements = owed(change.row, change.events, await self.hands_left(change))
        owing = [encode(announcement) for announcement in announcements]
        await self.db.outbox.add_announcements(change.row.id, owing, change.now)
        return ()

    async def hands_left(self, change: Change) -> list[FinalHand]:
        """The last edits a closing table owes its hand messages: every person's of the latest deal (a running
        one's, or the finished Bummerl's last), unless the deal ended in this very change (its own last edits
        are owed with its result)."""
        closes = any(isinstance(event, TableClosed | TableSetAside) for event in change.events)
        if not closes or change.row.status == "lobby" or any(isinstance(e, DealEnded) for e in change.events):
            return []
        deal_no = await self.db.records.latest_deal_no(change.row.id)
        if deal_no is None:
            return []
        return [
            FinalHand(deal_no, s.seat, s.user_id, s.dm_channel_id, s.dm_message_id)
            for s in await self.db.seats.seats_of(change.row.id)
            if s.user_id is not None and s.dm_channel_id is not None and s.dm_message_id is not None
        ]


def owed(row: TableRow, events: Sequence[TableEvent], hands_left: Sequence[FinalHand] = ()) -> list[Announcement]:
    """What ``events`` of the table ``row`` owe, in the order they are to arrive; ``hands_left``: the last edits
    of the hand messages a closing table still has, which go before its closing notice."""
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
                found.extend(hands_left)
                found.append(Notice(channel, lang, reason_key, archive_thread=archive, closes_table=True))
            case TableSetAside():
                found.extend(hands_left)
                found.append(SetAside(channel, lang, archive))
    return found
