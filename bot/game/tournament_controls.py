"""The pure parts of the organiser's controls of a server tournament: the start time as an organiser types it,
and who signed up as the sign-up message lists them. The controls themselves are `TournamentService`'s
(bot/game/tournaments.py) and the shell's (bot/schnapsen/tournament_controls.py)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from bot.db.tournaments import SignupRow

from .errors import UserError

START_LIMIT_DAYS = 60  # a scheduled start at most this far ahead
_IN_MINUTES = re.compile(r"^\+?\s*(\d{1,5})\s*(m|min|minutes?|h|hours?)?$", re.IGNORECASE)
_DISCORD_TIMESTAMP = re.compile(r"^<t:(\d{1,12})(?::[a-zA-Z])?>$")


def parse_start(text: str, now: int) -> int:
    """A start time as an organiser types it, in unix seconds: ``2026-12-05 18:00`` (UTC: the bot knows no
    server's time zone), ``18:00`` (the next such time, UTC), ``90`` or ``90m`` (minutes from now), ``2h``, or
    a Discord timestamp ``<t:...>``. It must lie in the future, at most `START_LIMIT_DAYS` ahead; anything
    else is the user's error ``tournament.error.bad_start``.

    >>> now = int(datetime(2026, 12, 3, 19, 0, tzinfo=UTC).timestamp())
    >>> [(parse_start(text, now) - now) // 60 for text in ("30", "2h", "2026-12-03 20:15", "18:30", "<t:%d>" % (now + 60))]
    [30, 120, 75, 1410, 1]
    """
    text = " ".join(text.split())
    start: int | None = None
    if (minutes := _IN_MINUTES.match(text)) is not None:
        amount = int(minutes.group(1))
        unit = (minutes.group(2) or "m").lower()
        start = now + amount * (3600 if unit.startswith("h") else 60)
    elif (stamp := _DISCORD_TIMESTAMP.match(text)) is not None:
        start = int(stamp.group(1))
    else:
        today = datetime.fromtimestamp(now, UTC)
        for form in ("%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%H:%M"):
            try:
                parsed = datetime.strptime(text, form)
            except ValueError:
                continue
            if form == "%H:%M":
                parsed = datetime.combine(today.date(), parsed.time())
                if parsed.replace(tzinfo=UTC) <= today:
                    parsed += timedelta(days=1)
            start = int(parsed.replace(tzinfo=UTC).timestamp())
            break
    if start is None or not now < start <= now + START_LIMIT_DAYS * 86400:
        raise UserError("tournament.error.bad_start", days=START_LIMIT_DAYS)
    return start


def signup_roster(signups: Sequence[SignupRow]) -> tuple[list[tuple[SignupRow, SignupRow]], list[SignupRow]]:
    """Who signed up, as the sign-up message lists them: teams (two people who named each other) in sign-up
    order, and the people still waiting for a partner."""
    by_user = {s.user_id: s for s in signups}
    teams: list[tuple[SignupRow, SignupRow]] = []
    teamed: set[int] = set()
    for signup in signups:
        partner = by_user.get(signup.partner_id) if signup.partner_id is not None else None
        if signup.user_id in teamed or partner is None or partner.partner_id != signup.user_id:
            continue
        teams.append((signup, partner))
        teamed.update((signup.user_id, partner.user_id))
    return teams, [s for s in signups if s.user_id not in teamed]
