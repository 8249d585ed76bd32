"""Discord's budget for bad answers, and channels the bot may not use.

Discord bans a bot's IP for a while once it has had 10,000 answers of 401, 403 or 429 in 10 minutes (429s of
scope ``shared``, a busy resource rather than the bot's own limit, do not count). `BadAnswers` counts every
bad answer of the bot's REST calls in a sliding window, seen through discord.py's public ``http_trace`` hook
(`trace_config`), so it also sees the 429s discord.py waits out and retries itself; it warns (at most once a
minute) once the window holds more than a tenth of the budget.

`ChannelGate` keeps the bot from hammering a channel that answered 403: the supervised jobs (coalesce.py)
park on a refused channel instead of retrying into it, until something changes there (a permission update,
an interaction in it that shows the bot may post) or, as a last resort, a long pause has passed.

`retry_after` reads how long a 429 raised to the bot asks to wait.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace

import aiohttp
import discord
from discord.ext import commands

log = logging.getLogger(__name__)

BAN_WINDOW = 600.0  # Discord: 10,000 invalid answers in 10 minutes ban the IP
BAN_BUDGET = 10_000
WARN_FRACTION = 0.1  # warn past a tenth of the budget
WARN_EVERY = 60.0  # seconds between two warnings
BAD_STATUSES = frozenset({401, 403, 404, 429})
BLOCK_FOR = 600.0  # a refused channel is tried again after this long if nothing changed before
MISSING_ACCESS = 50001  # Discord: the bot cannot see the channel
CHANNEL_IN_PATH = re.compile(r"/channels/(\d+)(?:/|$)")


@dataclass
class BadAnswers:
    """Bad answers (401/403/404/429) in the last ``window`` seconds, and how many of them count toward Discord's
    ban (``budget`` in ``window``): 401, 403 and every 429 but those of scope ``shared``."""

    window: float = BAN_WINDOW
    budget: int = BAN_BUDGET
    warn_fraction: float = WARN_FRACTION
    warn_every: float = WARN_EVERY
    clock: Callable[[], float] = time.monotonic
    total: Counter[str] = field(default_factory=Counter)  # since start, by kind ("429 global", "403", ...)
    _recent: deque[tuple[float, str, bool]] = field(default_factory=deque)  # (when, kind, counts toward ban)
    _counted: int = 0  # of _recent, those that count toward the ban
    _warned_at: float | None = None

    def record(self, status: int, scope: str | None = None) -> None:
        """One answer of a REST call; anything but a bad one is ignored."""
        if status not in BAD_STATUSES:
            return
        kind = f"429 {scope or 'unscoped'}" if status == 429 else str(status)
        counts = status != 404 and not (status == 429 and scope == "shared")
        now = self.clock()
        self._forget_before(now - self.window)
        self._recent.append((now, kind, counts))
        self._counted += counts
        self.total[kind] += 1
        if counts and self._counted > self.warn_fraction * self.budget:
            self._warn(now)

    def _forget_before(self, horizon: float) -> None:
        while self._recent and self._recent[0][0] < horizon:
            _, _, counted = self._recent.popleft()
            self._counted -= counted

    def _warn(self, now: float) -> None:
        if self._warned_at is not None and now - self._warned_at < self.warn_every:
            return
        self._warned_at = now
        log.warning(
            "Discord's invalid-request budget: %s (a ban of the bot's IP comes at %d in %.0f s)",
            self.summary(), self.budget, self.window,
        )

    def in_window(self) -> Counter[str]:
        """Bad answers in the window by kind."""
        self._forget_before(self.clock() - self.window)
        return Counter(kind for _, kind, _ in self._recent)

    def counted(self) -> int:
        """Bad answers in the window that count toward the ban."""
        self._forget_before(self.clock() - self.window)
        return self._counted

    def summary(self) -> str:
        """One line for logs and the bench: ``"1,203 of 10,000 (12.0%) in 600 s; 403: 3, 429 global: 1,200"``."""
        counted, kinds = self.counted(), self.in_window()
        by_kind = ", ".join(f"{kind}: {count:,}" for kind, count in sorted(kinds.items())) or "none"
        share = 100 * counted / self.budget if self.budget else 0.0
        return f"{counted:,} of {self.budget:,} ({share:.1f}%) in the last {self.window:.0f} s; {by_kind}"


def trace_config(answers: BadAnswers) -> aiohttp.TraceConfig:
    """An aiohttp trace for discord.py's ``http_trace``: every answer of a REST call (the bot token's and the
    interaction tokens', retries discord.py makes itself included) goes to ``answers``."""

    async def on_request_end(
        session: aiohttp.ClientSession, context: SimpleNamespace, params: aiohttp.TraceRequestEndParams
    ) -> None:
        response = params.response
        answers.record(response.status, response.headers.get("X-RateLimit-Scope"))

    config = aiohttp.TraceConfig()
    config.on_request_end.append(on_request_end)
    return config


def retry_after(err: BaseException) -> float | None:
    """How long a 429 raised to the bot asks to wait, in seconds; None for anything else. discord.py keeps
    the answer's headers (its body is gone by then): ``Retry-After`` is the body's ``retry_after`` rounded
    up, ``X-RateLimit-Reset-After`` the route bucket's exact reset."""
    if isinstance(err, discord.RateLimited):
        return err.retry_after
    if not isinstance(err, discord.HTTPException) or err.status != 429:
        return None
    headers = getattr(err.response, "headers", None) or {}
    waits = []
    for name in ("Retry-After", "X-RateLimit-Reset-After"):
        try:
            waits.append(float(headers[name]))
        except (KeyError, TypeError, ValueError):
            continue
    return max(waits, default=1.0)  # a 429 without either header (a Cloudflare ban page): wait a second


def is_global_limit(err: BaseException) -> bool:
    """A 429 of the token's global limit: every job of the process waits for the same reset."""
    headers = getattr(getattr(err, "response", None), "headers", None) or {}
    return headers.get("X-RateLimit-Global") == "true" or headers.get("X-RateLimit-Scope") == "global"


def refused_channel(err: BaseException) -> int | None:
    """The channel a 403 answer refused (from the request's URL), if the request named one."""
    if not isinstance(err, discord.Forbidden):
        return None
    url = getattr(err.response, "url", None)
    found = CHANNEL_IN_PATH.search(getattr(url, "path", "") or "")
    return int(found.group(1)) if found else None


@dataclass(frozen=True)
class Place:
    """Where a channel is, as far as the bot's cache knows: its server, its parent (a thread's channel), a
    name for the log, and which permissions the bot is missing there (empty when unknown)."""

    guild_id: int | None = None
    parent_id: int | None = None
    name: str = ""
    missing: tuple[str, ...] = ()


@dataclass
class Refusal:
    place: Place
    code: int
    until: float  # the clock's time of the last-resort retry
    reopened: asyncio.Event = field(default_factory=asyncio.Event)


class ChannelGate:
    """Channels that answered 403: no job tries them again until something changes there (see `reopen`) or
    ``block_for`` seconds have passed. ``locate`` tells the server, parent and missing permissions of a
    channel (the bot's cache; None: nothing known)."""

    def __init__(
        self,
        *,
        block_for: float = BLOCK_FOR,
        locate: Callable[[int], Place | None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.block_for = block_for
        self.locate = locate
        self.clock = clock
        self._refused: dict[int, Refusal] = {}
        self.refusals = 0  # channels blocked so far (for tests and the bench)

    def refuse(self, channel_id: int, code: int, what: str) -> None:
        """A 403 for ``what`` in the channel: block it (logged once per block, not per attempt)."""
        if channel_id in self._refused:
            return
        place = (self.locate(channel_id) if self.locate else None) or Place()
        self._refused[channel_id] = Refusal(place, code, self.clock() + self.block_for)
        self.refusals += 1
        log.error(
            "channel %s%s refused %s (403, code %s): the bot is likely missing %s; nothing more is sent there "
            "until its permissions change or %.0f s pass (the tables' state is kept and redrawn then)",
            channel_id, f" ({place.name})" if place.name else "", what, code, likely_missing(code, place),
            self.block_for,
        )

    def blocked_for(self, channel_id: int) -> float:
        """Seconds until the refused channel is tried again (0: it is open)."""
        refusal = self._refused.get(channel_id)
        if refusal is None:
            return 0.0
        left = refusal.until - self.clock()
        if left <= 0:
            self._open(channel_id, "the pause after its refusal passed")
            return 0.0
        return left

    def reopened(self, channel_id: int) -> asyncio.Event:
        """Set when the refused channel opens again (a fresh, set event when it is open)."""
        refusal = self._refused.get(channel_id)
        if refusal is None:
            opened = asyncio.Event()
            opened.set()
            return opened
        return refusal.reopened

    def blocked(self) -> list[int]:
        return [channel_id for channel_id in list(self._refused) if self.blocked_for(channel_id) > 0]

    def reopen(self, *, channel_id: int | None = None, guild_id: int | None = None, why: str) -> None:
        """Something changed: the channel (and its threads) or every refused channel of the server is tried
        again."""
        for refused_id, refusal in list(self._refused.items()):
            place = refusal.place
            if (
                (channel_id is not None and channel_id in (refused_id, place.parent_id))
                or (guild_id is not None and guild_id == place.guild_id)
            ):
                self._open(refused_id, why)

    def may_post_now(self, channel_id: int, permissions: discord.Permissions, *, in_thread: bool) -> None:
        """An interaction in the channel shows the bot's permissions there: if they let it post, try again."""
        if channel_id not in self._refused:
            return
        posts = permissions.send_messages_in_threads if in_thread else permissions.send_messages
        if permissions.view_channel and posts:
            self._open(channel_id, "an interaction there shows the bot may post")

    def _open(self, channel_id: int, why: str) -> None:
        refusal = self._refused.pop(channel_id, None)
        if refusal is not None:
            log.info("channel %s is tried again: %s", channel_id, why)
            refusal.reopened.set()


def likely_missing(code: int, place: Place) -> str:
    """The permission a 403 most likely means, for the log."""
    if place.missing:
        return " and ".join(place.missing)
    if code == MISSING_ACCESS:
        return "View Channel"
    return "Send Messages (Send Messages in Threads in a thread), Embed Links or Attach Files"


def locator(client: discord.Client) -> Callable[[int], Place | None]:
    """What the client's cache knows of a channel: server, parent (a thread's channel, else the category),
    name, and which of the permissions a table needs the bot lacks there."""

    def locate(channel_id: int) -> Place | None:
        channel = client.get_channel(channel_id)
        if not isinstance(channel, (discord.abc.GuildChannel, discord.Thread)):
            return None
        in_thread = isinstance(channel, discord.Thread)
        parent_id = channel.parent_id if isinstance(channel, discord.Thread) else channel.category_id
        me = channel.guild.me
        permissions = channel.permissions_for(me) if me is not None else None
        needed = ("view_channel", "send_messages_in_threads" if in_thread else "send_messages",
                  "embed_links", "attach_files")
        missing = () if permissions is None else tuple(
            name.replace("_", " ").title() for name in needed if not getattr(permissions, name)
        )
        return Place(channel.guild.id, parent_id, f"#{channel.name} in {channel.guild.name}", missing)

    return locate


def watch_permissions(client: commands.Bot, gate: ChannelGate) -> None:
    """Open refused channels again when something there changes: the channel (or its category or a thread's
    parent), a role of its server, a thread's state, or an interaction in it showing the bot may post. (A
    role given to the bot itself comes as a member update, which needs the privileged members intent the bot
    does not ask for: the interaction check and the last-resort pause cover it.)"""

    async def channel_updated(before: discord.abc.GuildChannel, after: discord.abc.GuildChannel) -> None:
        gate.reopen(channel_id=after.id, why="its channel was updated")

    async def thread_updated(before: discord.Thread, after: discord.Thread) -> None:
        gate.reopen(channel_id=after.id, why="its thread was updated")

    async def role_updated(before: discord.Role, after: discord.Role) -> None:
        gate.reopen(guild_id=after.guild.id, why=f"role {after.name} of its server was updated")

    async def interaction(interaction: discord.Interaction[discord.Client]) -> None:
        if interaction.channel_id is not None and interaction.guild_id is not None:
            in_thread = isinstance(interaction.channel, discord.Thread)
            gate.may_post_now(interaction.channel_id, interaction.app_permissions, in_thread=in_thread)

    client.add_listener(channel_updated, "on_guild_channel_update")
    client.add_listener(thread_updated, "on_thread_update")
    client.add_listener(role_updated, "on_guild_role_update")
    client.add_listener(interaction, "on_interaction")
