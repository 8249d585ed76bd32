"""Discord's rate limits as the fake enforces them: a global bucket per bot token, per-route buckets, the
old-message edit limit (error 30046) and the invalid-request ban.

The figures are settings (``DiscordLimits``); the defaults are Discord's documented or observed values, each
with its source below (see also ../shared/DISCORD.md). Discord itself says not to hard-code them: a client must
read the ``X-RateLimit-*`` headers, which is what the fake sends and discord.py reads.

How discord.py 2.7 uses the answers (discord/http.py, discord/webhook/async_.py), and so what the fake sends:

- On every answer of a route with a bucket: ``X-RateLimit-Limit``, ``-Remaining``, ``-Reset`` (unix time),
  ``-Reset-After`` (seconds) and ``-Bucket`` (a hash naming the bucket). discord.py keys its own limiter by
  that hash plus the top-level resource (channel, guild, webhook id + token), and once ``Remaining`` is 0 it
  holds further requests back until ``Reset-After`` has passed: a bucket that is kept is never hit.
- A 429 comes with ``Via`` (discord.py retries a 429 only when it came through Discord's proxy; without it,
  or with a body that is not JSON, it takes the answer for a Cloudflare ban and raises), ``Retry-After``,
  ``X-RateLimit-Scope`` (``user``, ``global`` or ``shared``), for the global limit ``X-RateLimit-Global:
  true``, and a JSON body ``{"message", "retry_after", "global"}`` (plus ``code`` for some limits, e.g.
  30046). discord.py sleeps ``retry_after`` and tries again, at most five times; on ``"global": true`` it
  holds every request of the client until then. It does not count the global limit ahead of time.
- The webhook adapter (interaction follow-ups and edits) keeps one lock per webhook id + token, delays the
  next request when ``Remaining`` is 0, and retries a 429 the same way.

Everything here runs on the fake's clock (``FakeClock``, unix seconds): a test moves it on instead of
sleeping, e.g. past the hour after which a message counts as old, or past a ban.
"""

from __future__ import annotations

import collections
import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# The routes Discord answers for an interaction's token: its callback, and the webhook of the application
# with the interaction's token (follow-ups, their edits, the edit of @original). Not bound to the global
# limit (developers/topics/rate-limits.mdx, "Global Rate Limit"; interactions/receiving-and-responding.mdx).
INTERACTION_ROUTE_PREFIXES = ("/interactions/", "/webhooks/")


def uses_interaction_token(template: str) -> bool:
    """Whether a route (its template, after /api/v10) is answered for an interaction's token rather than the
    bot's: such calls do not count against the bot's global limit."""
    return template.startswith(INTERACTION_ROUTE_PREFIXES)


class FakeClock:
    """Unix seconds: the real time plus whatever a test moved it on by (``advance``)."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("the fake's clock only moves forward")
        self.offset += seconds


@dataclass(frozen=True)
class RouteBucket:
    """A per-route limit: at most ``limit`` requests per ``per`` seconds for each top-level resource (the
    channel; for a webhook route, the webhook id and token) of the routes named (``"METHOD /template"``).
    Several routes in one bucket share it. ``scope`` is the ``X-RateLimit-Scope`` of its 429s: ``user`` (the
    bot's own limit, counted as an invalid request) or ``shared`` (the resource's, not counted)."""

    name: str
    routes: tuple[str, ...]
    limit: int
    per: float
    scope: str = "user"

    @property
    def hash(self) -> str:
        """The ``X-RateLimit-Bucket`` value: opaque like Discord's, stable per bucket name."""
        return hashlib.sha1(self.name.encode()).hexdigest()[:16]


# Per-channel message buckets. Discord publishes no figures; these are what bots observe in the headers.
MESSAGE_CREATE = RouteBucket(
    # About 5 per 5 s per channel: rustplusplus issue 475 (the headers of POST /channels/{id}/messages).
    "message create", ("POST /channels/{channel_id}/messages",), limit=5, per=5.0,
)
MESSAGE_EDIT = RouteBucket(
    # About 5 per 5 s per channel for edits: Discord.Net issue 2375 (X-RateLimit-Limit 5, reset 5 s).
    "message edit", ("PATCH /channels/{channel_id}/messages/{message_id}",), limit=5, per=5.0,
)
INTERACTION_WEBHOOK = RouteBucket(
    # Follow-ups and edits with an interaction's token: about 5 per 2 s per webhook id + token
    # (discord-api-docs issues 367, 2701, 3763). Exempt from the global limit, not from this one.
    "interaction webhook",
    (
        "POST /webhooks/{application_id}/{token}",
        "GET /webhooks/{application_id}/{token}/messages/{message_id}",
        "PATCH /webhooks/{application_id}/{token}/messages/{message_id}",
        "DELETE /webhooks/{application_id}/{token}/messages/{message_id}",
    ),
    limit=5,
    per=2.0,
)
DEFAULT_ROUTE_BUCKETS = (MESSAGE_CREATE, MESSAGE_EDIT, INTERACTION_WEBHOOK)
OLD_MESSAGE_CODE = 30046
OLD_MESSAGE_TEXT = "Maximum number of edits to messages older than 1 hour reached. Try again later"


@dataclass
class DiscordLimits:
    """The fake's rate limits. Off unless ``enforce`` (the test suite plays far faster than Discord allows;
    the tests of the limits and ``bench/bot_bench.py --discord-limits`` turn them on)."""

    enforce: bool = False
    # 50 requests per second per bot token, whatever the shards or processes; interaction routes exempt
    # (developers/topics/rate-limits.mdx, "Global Rate Limit").
    global_limit: int = 50
    global_per: float = 1.0
    route_buckets: tuple[RouteBucket, ...] = DEFAULT_ROUTE_BUCKETS
    # Editing a message older than an hour: 3 edits per 6 s per channel, then 429 with code 30046
    # (docs.discord.food resources/message, "Edit Message"; the code: topics/opcodes-and-status-codes.mdx).
    old_message_age: float = 3600.0
    old_message_edits: int = 3
    old_message_per: float = 6.0
    # 10,000 answers of 401, 403 or 429 (429s of scope "shared" not counted) in 10 minutes per IP, then the
    # IP is refused for a while (rate-limits.mdx, "Invalid Request Limit"; 24 hours by docs.discord.food).
    invalid_limit: int = 10_000
    invalid_window: float = 600.0
    ban_seconds: float = 24 * 3600.0

    def describe(self) -> str:
        """One line: the settings, for a bench's output."""
        if not self.enforce:
            return "Discord's rate limits not enforced (every request answered at once)"
        buckets = "; ".join(f"{b.name} {b.limit} per {b.per:g} s ({b.scope})" for b in self.route_buckets)
        return (
            f"Discord's rate limits enforced: global {self.global_limit} per {self.global_per:g} s per bot token "
            f"(interaction routes exempt); per channel or webhook: {buckets}; edits of messages older than "
            f"{self.old_message_age:g} s: {self.old_message_edits} per {self.old_message_per:g} s per channel "
            f"(else {OLD_MESSAGE_CODE}); invalid requests: {self.invalid_limit} per {self.invalid_window:g} s, "
            f"then refused for {self.ban_seconds:g} s"
        )


@dataclass
class Refusal:
    """A 429 the fake answers instead of the request: status, headers, body (None: not JSON, a ban page)."""

    kind: str  # "global", "route", "old message", "banned"
    headers: dict[str, str]
    body: dict[str, Any] | None
    text: str = ""


@dataclass
class Window:
    """A fixed window as discord.py models a bucket: it opens with its first request and resets ``per``
    seconds later to the full limit."""

    opened: float = -math.inf
    used: int = 0

    def current(self, now: float, per: float) -> Window:
        if now >= self.opened + per:
            self.opened, self.used = now, 0
        return self

    def resets_after(self, now: float, per: float) -> float:
        return max(0.0, self.opened + per - now)


@dataclass
class LimitStats:
    """What the limits did: 429s answered by kind and by route, answers that left a route bucket empty (by
    bucket name: discord.py then holds that bucket's next requests back until it resets, a wait no 429 shows),
    invalid answers counted, requests refused while banned, bans begun."""

    refused: collections.Counter[str] = field(default_factory=collections.Counter)
    emptied: collections.Counter[str] = field(default_factory=collections.Counter)
    refused_by_route: collections.Counter[str] = field(default_factory=collections.Counter)
    invalid: int = 0
    banned_requests: int = 0
    bans: int = 0


class Limiter:
    """The state of the limits: windows per bucket and resource, recent invalid answers, a ban."""

    def __init__(self, limits: DiscordLimits, clock: Callable[[], float]) -> None:
        self.limits = limits
        self.clock = clock
        self.stats = LimitStats()
        self._global: dict[str, Window] = {}
        self._routes: dict[tuple[str, str], Window] = {}
        self._old_edits: dict[str, Window] = {}
        self._invalid: collections.deque[float] = collections.deque()
        self.banned_until = -math.inf
        self._bucket_of: dict[str, RouteBucket] = {}
        self._known_buckets: tuple[RouteBucket, ...] = ()

    def bucket_for(self, method: str, template: str) -> RouteBucket | None:
        if self._known_buckets is not self.limits.route_buckets:  # the settings were changed: index afresh
            self._known_buckets = self.limits.route_buckets
            self._bucket_of = {route: bucket for bucket in self._known_buckets for route in bucket.routes}
        return self._bucket_of.get(f"{method} {template}")

    @property
    def banned(self) -> bool:
        return self.clock() < self.banned_until

    def admit(self, method: str, template: str, resource: str, token: str | None,
              message_created: float | None) -> tuple[Refusal | None, dict[str, str]]:
        """Count the request against its buckets, or refuse it. Returns the refusal (None: go ahead) and the
        rate-limit headers for the answer. ``resource`` names the top-level resource (channel id, or webhook
        id + token); ``token`` the bot token the request carried (None: an interaction route);
        ``message_created`` when an edited channel message was made (the 30046 rule)."""
        now = self.clock()
        if now < self.banned_until:
            self.stats.banned_requests += 1
            return self._ban_page(now), {}
        route = f"{method} {template}"
        if token is not None and not uses_interaction_token(template):
            window = self._global.setdefault(token, Window()).current(now, self.limits.global_per)
            if window.used >= self.limits.global_limit:
                retry_after = window.resets_after(now, self.limits.global_per)
                return self._refuse(route, self._global_refusal(retry_after)), {}
            window.used += 1
        bucket = self.bucket_for(method, template)
        window = None
        if bucket is not None:
            window = self._routes.setdefault((bucket.name, resource), Window()).current(now, bucket.per)
            if window.used >= bucket.limit:
                headers = self._bucket_headers(bucket, window, now)
                return self._refuse(route, self._route_refusal(bucket, window, now, headers)), {}
        old = self._old_edit_window(resource, now, message_created)
        if old is not None and old.used >= self.limits.old_message_edits:
            headers = self._bucket_headers(bucket, window, now) if bucket and window else {}
            return self._refuse(route, self._old_message_refusal(old, now, headers)), {}
        if old is not None:
            old.used += 1
        if bucket is None or window is None:
            return None, {}
        window.used += 1
        if window.used >= bucket.limit:
            self.stats.emptied[bucket.name] += 1
        return None, self._bucket_headers(bucket, window, now)

    def _old_edit_window(self, resource: str, now: float, message_created: float | None) -> Window | None:
        if message_created is None or now - message_created < self.limits.old_message_age:
            return None
        return self._old_edits.setdefault(resource, Window()).current(now, self.limits.old_message_per)

    def answered(self, status: int, scope: str | None) -> None:
        """Count an answer toward the invalid-request limit (401, 403, 429 but not a ``shared`` 429); past the
        limit in the window, every request is refused for ``ban_seconds``."""
        if status not in (401, 403, 429) or (status == 429 and scope == "shared"):
            return
        now = self.clock()
        if now < self.banned_until:
            return
        self.stats.invalid += 1
        self._invalid.append(now)
        while self._invalid and now - self._invalid[0] >= self.limits.invalid_window:
            self._invalid.popleft()
        if len(self._invalid) > self.limits.invalid_limit:
            self.banned_until = now + self.limits.ban_seconds
            self.stats.bans += 1
            self._invalid.clear()

    @property
    def invalid_in_window(self) -> int:
        now = self.clock()
        return sum(1 for at in self._invalid if now - at < self.limits.invalid_window)

    def _refuse(self, route: str, refusal: Refusal) -> Refusal:
        self.stats.refused[refusal.kind] += 1
        self.stats.refused_by_route[route] += 1
        return refusal

    def _bucket_headers(self, bucket: RouteBucket, window: Window, now: float) -> dict[str, str]:
        reset_after = window.resets_after(now, bucket.per)
        return {
            "X-RateLimit-Limit": str(bucket.limit),
            "X-RateLimit-Remaining": str(max(0, bucket.limit - window.used)),
            "X-RateLimit-Reset": f"{now + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": bucket.hash,
        }

    @staticmethod
    def _limited(kind: str, retry_after: float, scope: str, headers: dict[str, str], *, is_global: bool = False,
                 message: str = "You are being rate limited.", code: int | None = None) -> Refusal:
        retry_after = max(0.001, round(retry_after, 3))
        headers = {**headers, "Via": "1.1 google", "Retry-After": str(math.ceil(retry_after)),
                   "X-RateLimit-Scope": scope}
        if is_global:
            headers["X-RateLimit-Global"] = "true"
        body: dict[str, Any] = {"message": message, "retry_after": retry_after, "global": is_global}
        if code is not None:
            body["code"] = code
        return Refusal(kind, headers, body)

    def _global_refusal(self, retry_after: float) -> Refusal:
        return self._limited("global", retry_after, "global", {}, is_global=True)

    def _route_refusal(self, bucket: RouteBucket, window: Window, now: float, headers: dict[str, str]) -> Refusal:
        message = "The resource is being rate limited." if bucket.scope == "shared" else "You are being rate limited."
        return self._limited("route", window.resets_after(now, bucket.per), bucket.scope, headers, message=message)

    def _old_message_refusal(self, old: Window, now: float, headers: dict[str, str]) -> Refusal:
        # A sub-limit without headers of its own: the answer carries the edit bucket's (with requests left,
        # which discord.py logs as a sub-ratelimit) and the code in the body.
        return self._limited("old message", old.resets_after(now, self.limits.old_message_per), "user", headers,
                             message=OLD_MESSAGE_TEXT, code=OLD_MESSAGE_CODE)

    def _ban_page(self, now: float) -> Refusal:
        # Cloudflare's answer to a banned IP: 429 without Via and not JSON; discord.py raises it as it is.
        return Refusal("banned", {"Retry-After": str(math.ceil(self.banned_until - now))}, None,
                       text="error code: 1015")
