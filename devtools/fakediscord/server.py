"""An aiohttp server on loopback that plays Discord's REST API and gateway for the real discord.py client.

The test side drives it like people would: it adds users, guilds and channels, injects slash commands and
button clicks over the gateway, and reads back every message the bot sent or edited. Waiting is done with
``wait_for``, which wakes on every state change; there are no sleeps.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import fnmatch
import json
import math
import random
import socket
import time
import traceback
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import discord
import yarl
from aiohttp import WSMsgType, web

from devtools.fakediscord import clients, spec
from devtools.fakediscord.components import find_component
from devtools.fakediscord.latency import DelayedDelivery
from devtools.fakediscord.limits import DiscordLimits, FakeClock, Limiter, Refusal, uses_interaction_token
from devtools.fakediscord.state import (
    ADMINISTRATOR,
    DEFAULT_ATTACHMENT_SIZE_LIMIT,
    DEFAULT_BOT_PERMISSIONS,
    EPHEMERAL_FLAG,
    LOADING_FLAG,
    WAIT_SECONDS,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeMessage,
    FakeRole,
    FakeUser,
    InteractionResponse,
    SnowflakeFactory,
    iso_now,
)
from devtools.fakediscord.validation import COMPONENTS_V2_FLAG, is_empty, message_problems

API_PREFIX = "/api/v10"
GUILD_MEMBERS_INTENT = 1 << 1
HEARTBEAT_INTERVAL_MS = 41_250
BACKLOG_LIMIT = 2000
# Close codes after which Discord does not let the session be resumed: invalid seq, session timed out.
NOT_RESUMABLE_CLOSE_CODES = (4007, 4009)
# Flags a bot may set or clear when editing; ephemeral and loading belong to the message for good.
EDITABLE_FLAGS = (1 << 2) | (1 << 12) | COMPONENTS_V2_FLAG

T = TypeVar("T")


class DiscordError(Exception):
    """Answered as Discord's JSON error body with the given HTTP status."""

    def __init__(self, status: int, code: int, message: str, errors: Any = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status, self.code, self.message, self.errors = status, code, message, errors

    def response(self) -> web.Response:
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors is not None:
            body["errors"] = self.errors
        return json_response(body, status=self.status)


def refusal_response(refusal: Refusal) -> web.Response:
    if refusal.body is None:
        return web.Response(status=429, text=refusal.text, content_type="text/html", headers=refusal.headers)
    return json_response(refusal.body, status=429, headers=refusal.headers)


def json_response(data: Any, *, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    # discord.py decodes a body only when Content-Type is exactly application/json (no charset).
    return web.Response(status=status, body=json.dumps(data).encode(), content_type="application/json",
                        headers=headers)


@dataclass
class Upload:
    filename: str
    data: bytes


@dataclass
class RecordedRequest:
    method: str
    path: str
    template: str
    query: dict[str, str]
    status: int | None = None
    payload: Any = None
    files: list[Upload] = field(default_factory=list)
    at: float = field(default_factory=time.monotonic)  # when the bot sent it (it reached the fake's door)
    # When it took effect in the fake: ``at`` plus the latency on the way in (latency.py).
    effective_at: float = field(default_factory=time.monotonic)

    def matches(self, method: str, pattern: str) -> bool:
        return method_matches(method, self.method) and path_matches(pattern, self.path, self.template)


RECORD_KEY = web.RequestKey("record", RecordedRequest)
BODY_KEY = web.RequestKey("body", tuple)  # the body as _read_body parsed it, read once per request


def method_matches(wanted: str, actual: str) -> bool:
    return wanted in ("*", actual)


def path_matches(pattern: str, path: str, template: str) -> bool:
    return pattern == template or fnmatch.fnmatchcase(path, pattern)


@dataclass
class FaultRule:
    """The next ``times`` requests matching method and path pattern get this failure instead of an answer."""

    method: str
    pattern: str
    status: int
    times: int
    retry_after: float
    code: int
    message: str
    is_global: bool
    fired: int = 0
    applied: bool = False  # the request takes effect, and then the failure is answered (the answer was lost)
    # X-RateLimit-Scope of a 429: "user", "shared" or "global"; None: "global" if is_global else "shared".
    scope: str | None = None

    def response(self) -> web.Response:
        if self.status != 429:
            return json_response({"message": self.message, "code": self.code}, status=self.status)
        scope = self.scope or ("global" if self.is_global else "shared")
        reset_at = time.time() + self.retry_after
        headers = {
            # discord.py retries a 429 only when it came through Discord's proxy, which sets Via.
            "Via": "1.1 google",
            "Retry-After": str(max(1, math.ceil(self.retry_after))),
            "X-RateLimit-Limit": "5",
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": f"{reset_at:.3f}",
            "X-RateLimit-Reset-After": f"{self.retry_after:.3f}",
            "X-RateLimit-Bucket": f"fake-{abs(hash(self.pattern)):x}",
            "X-RateLimit-Scope": scope,
        }
        if self.is_global:
            headers["X-RateLimit-Global"] = "true"
        body = {"message": "You are being rate limited.", "retry_after": self.retry_after,
                "global": self.is_global, "code": 0}
        return json_response(body, status=429, headers=headers)


SERVER_ERROR_MESSAGES = {500: "500: Internal Server Error", 502: "502: Bad Gateway",
                         503: "503: Service Unavailable", 504: "504: Gateway Timeout"}


@dataclass
class RandomFaultRule:
    """Each matching request fails with ``probability``: a 429 (with ``retry_after`` drawn from the range, the
    X-RateLimit headers and a scope of "user" or "shared", or now and then "global") or a 5xx, the status drawn
    from ``statuses``. A 5xx happens, with ``applied_fraction``, *after* the request took effect (Discord made
    the message but the answer was lost on the way back), otherwise before. ``exclude`` lists path globs or
    route templates the rule leaves alone. Switch it off and on with ``active``; ``fired`` counts per status.
    """

    method: str
    pattern: str
    probability: float
    statuses: tuple[int, ...]
    retry_after: tuple[float, float]
    applied_fraction: float
    exclude: tuple[str, ...]
    rng: random.Random
    global_fraction: float = 0.05
    active: bool = True
    fired: collections.Counter[int] = field(default_factory=collections.Counter)
    applied: int = 0  # 5xx answered after the request had taken effect

    @property
    def total(self) -> int:
        return sum(self.fired.values())

    def draw(self, record: RecordedRequest) -> tuple[FaultRule, bool] | None:
        """The failure for this request, and whether it is answered after the request took effect."""
        if not self.active or not record.matches(self.method, self.pattern):
            return None
        if any(path_matches(pattern, record.path, record.template) for pattern in self.exclude):
            return None
        if self.rng.random() >= self.probability:
            return None
        status = self.rng.choice(self.statuses)
        self.fired[status] += 1
        if status == 429:
            retry_after = round(self.rng.uniform(*self.retry_after), 3)
            is_global = self.rng.random() < self.global_fraction
            scope = "global" if is_global else self.rng.choice(("user", "shared"))
            return FaultRule(self.method, self.pattern, 429, 1, retry_after, 0, "", is_global, scope=scope), False
        after = self.rng.random() < self.applied_fraction
        self.applied += after
        message = SERVER_ERROR_MESSAGES.get(status, f"{status}: Server Error")
        return FaultRule(self.method, self.pattern, status, 1, 0.0, 0, message, False), after


@dataclass
class RateLimitRule:
    """Discord-like bucket: at most ``limit`` matching requests per ``per`` seconds for each major resource
    (channel, or interaction webhook); the next one gets a 429 telling how long until a slot frees up."""

    method: str
    pattern: str
    limit: int
    per: float
    rejected: int = 0
    _windows: dict[str, collections.deque] = field(default_factory=dict)

    def check(self, record: RecordedRequest) -> FaultRule | None:
        if not record.matches(self.method, self.pattern):
            return None
        parts = record.path.split("/")
        bucket = "/".join(parts[:4] if parts[1] == "webhooks" else parts[:3])
        window = self._windows.setdefault(bucket, collections.deque())
        now = time.monotonic()
        while window and now - window[0] >= self.per:
            window.popleft()
        if len(window) < self.limit:
            window.append(now)
            return None
        self.rejected += 1
        retry_after = max(0.001, window[0] + self.per - now)
        return FaultRule(self.method, self.pattern, 429, 1, retry_after, 0, "", False)


@dataclass
class CommandSync:
    guild_id: int | None
    commands: list[dict[str, Any]]
    at: float = field(default_factory=time.monotonic)


@dataclass(eq=False)
class GatewaySession:
    session_id: str
    intents: int
    ws: web.WebSocketResponse | None = None
    sequence: int = 0
    resumable: bool = True
    backlog: collections.deque = field(default_factory=lambda: collections.deque(maxlen=BACKLOG_LIMIT))
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # [shard_id, shard_count] from IDENTIFY; an unsharded client's session is shard 0 of 1.
    shard: tuple[int, int] = (0, 1)
    # With latency (latency.py): the frames on their way, and the newest sequence sent on the current socket.
    delivery: DelayedDelivery | None = None
    sent_sequence: int = 0

    @property
    def connected(self) -> bool:
        return self.ws is not None and not self.ws.closed

    def serves(self, guild_id: int | None) -> bool:
        """Whether Discord sends this guild's events on this session: the guild's shard is
        ``(guild_id >> 22) % shard_count``; events outside any guild (DMs) go to shard 0 only."""
        shard_id, shard_count = self.shard
        return shard_of(guild_id, shard_count) == shard_id


def shard_of(guild_id: int | None, shard_count: int) -> int:
    """The shard Discord delivers a guild's events on; everything outside a guild (DMs) is shard 0's."""
    return 0 if guild_id is None else (guild_id >> 22) % shard_count


def guild_of_event(event: str, data: dict[str, Any]) -> int | None:
    """The guild a dispatch belongs to (a GUILD_* event names it as ``id``), None for DMs."""
    raw = data.get("id") if event.startswith("GUILD_") and "guild_id" not in data else data.get("guild_id")
    return None if raw is None else int(raw)


class FakeDiscord:
    """Discord's REST API and gateway on 127.0.0.1, with a test-side API to act as users."""

    def __init__(self, *, bot_name: str = "Schnapsbot", interaction_deadline: float = 3.0,
                 guild_ready_timeout: float = 0.1, record_requests: bool = True,
                 keep_history: bool = True, limits: DiscordLimits | None = None,
                 clock: Callable[[], float] | None = None, latency: float = 0.0, check_spec: bool = True) -> None:
        # Unix seconds for snowflakes, message times and the rate limits; a test moves a FakeClock on
        # (``advance_clock``) instead of sleeping. Interaction deadlines run on real elapsed time.
        self.clock: Callable[[], float] = clock if clock is not None else FakeClock()
        # Discord's rate limits (limits.py): off unless ``limits.enforce``.
        self.limiter = Limiter(limits if limits is not None else DiscordLimits(), self.clock)
        self.ids = SnowflakeFactory(self.clock)
        # What GET /gateway/bot recommends (a client without a shard count of its own launches that many).
        self.recommended_shards = 1
        self.token = "fake-bot-token.for-tests"
        self.application_id = self.ids.next()
        self.bot_user = FakeUser(self.application_id, bot_name, bot=True)
        self.owner_user = FakeUser(self.ids.next(), "app-owner")
        self.bot_permissions = DEFAULT_BOT_PERMISSIONS
        # Discord refuses callbacks that arrive later than this after the interaction was created.
        self.interaction_deadline = interaction_deadline
        # Seconds each way between the bot and the fake, for REST calls and gateway dispatches (latency.py);
        # set it before the bot connects.
        self.latency = latency
        # An interaction's token works for follow-ups and edits of its messages this long (Discord: 15 min);
        # after that its webhook answers 401 Invalid Webhook Token (50027).
        self.interaction_token_lifetime = 15 * 60.0
        # discord.py waits this long after the last GUILD_CREATE before `ready`; its default is 2 s.
        self.guild_ready_timeout = guild_ready_timeout
        # Benchmarks turn these off so the fake's own memory stays flat over thousands of interactions.
        self.record_requests = record_requests
        self.keep_history = keep_history
        # How long a message's nonce is enforced (Discord says "the past few minutes"); None means forever.
        self.nonce_window: float | None = None
        # Creates answered with an existing message because of ``enforce_nonce``.
        self.nonce_hits = 0
        self._nonces: dict[tuple[int, int, str], tuple[FakeMessage, float]] = {}

        self.users: dict[int, FakeUser] = {self.bot_user.id: self.bot_user}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.dm_channels: dict[int, FakeChannel] = {}
        self.messages: dict[int, FakeMessage] = {}
        self.interactions: list[FakeInteraction] = []
        self._interactions_by_id: dict[int, FakeInteraction] = {}
        self._interactions_by_token: dict[str, FakeInteraction] = {}
        self.commands: dict[int | None, list[dict[str, Any]]] = {}
        self.command_syncs: list[CommandSync] = []

        self.requests: list[RecordedRequest] = []
        self.hits: collections.Counter[str] = collections.Counter()
        self.faults: list[FaultRule] = []
        self.rate_limits: list[RateLimitRule] = []
        self.random_faults_rules: list[RandomFaultRule] = []
        self.unhandled: list[RecordedRequest] = []
        self.internal_errors: list[str] = []
        # Every request is checked against Discord's published API spec (spec.py) unless ``check_spec`` is
        # off; each one that did not fit it (and was answered as Discord would: 400 50035, or 404/405 for a
        # route or method Discord lacks), as "METHOD /path: why". The fixture fails the test on any.
        self.check_spec = check_spec
        self.spec_violations: list[str] = []
        # What a timed-out ``wait_for`` adds to its message, so that it says where things stood (a test
        # harness adds its tables' positions, the bot's running jobs).
        self.diagnostics: list[Callable[[], str]] = []
        self.identifies: list[dict[str, Any]] = []
        self.sessions: list[GatewaySession] = []
        self.resumes = 0
        self.heartbeats = 0
        self.gateway_closes: collections.Counter[int] = collections.Counter()  # by drop_gateway, per code
        self.invalidations: collections.Counter[bool] = collections.Counter()  # op 9 sent, per resumable
        self.reconnect_requests = 0  # op 7 sent

        self._condition = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self._sockets: set[web.WebSocketResponse] = set()
        self._dropped_by_us: set[web.WebSocketResponse] = set()
        self._client_tasks: dict[discord.Client, asyncio.Task[None]] = {}
        self.port = 0

    # ----------------------------------------------------------------- lifecycle

    @property
    def http_base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return self.http_base + API_PREFIX

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    async def start(self, *, refuse_connections_for: float = 0.0) -> FakeDiscord:
        """Listen on a free port. ``refuse_connections_for`` seconds (``math.inf``: until
        ``accept_connections``): the port is taken but nothing listens, so every connection is refused
        (ECONNREFUSED), as when Discord cannot be reached at all."""
        app = web.Application(middlewares=[self._middleware], client_max_size=64 * 1024 * 1024)
        self._add_routes(app)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        self.port = listener.getsockname()[1]
        self._listener: socket.socket | None = listener
        if refuse_connections_for <= 0:
            await self.accept_connections()
        elif math.isfinite(refuse_connections_for):
            self._accepting = asyncio.ensure_future(self._accept_later(refuse_connections_for))
        return self

    async def _accept_later(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
        await self.accept_connections()

    async def accept_connections(self) -> None:
        """Start listening (after ``start(refuse_connections_for=...)``); nothing happens when listening."""
        listener, self._listener = self._listener, None
        if listener is not None and self._runner is not None:
            await web.SockSite(self._runner, listener).start()

    async def stop(self) -> None:
        accepting, listener = getattr(self, "_accepting", None), getattr(self, "_listener", None)
        if accepting is not None:
            accepting.cancel()
        if listener is not None:  # never listened (refused connections to the end)
            listener.close()
        await self.stop_all_clients()
        for session in self.sessions:
            if session.delivery is not None:
                await session.delivery.stop()
        for ws in list(self._sockets):
            await ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        spec.save_stats()

    @contextlib.contextmanager
    def redirect(self) -> Iterator[None]:
        """Point discord.py's REST base and default gateway at this fake; restore them afterwards."""
        saved_base = discord.http.Route.BASE
        saved_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
        discord.http.Route.BASE = self.api_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)
        try:
            yield
        finally:
            discord.http.Route.BASE = saved_base
            discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = saved_gateway

    async def start_client(self, client: discord.Client, *, timeout: float = WAIT_SECONDS) -> discord.Client:
        """Log ``client`` in, connect it and return once it is ready (requires ``redirect`` to be active)."""
        return await clients.start_client(self, client, timeout=timeout)

    async def stop_client(self, client: discord.Client, *, timeout: float = WAIT_SECONDS) -> None:
        await clients.stop_client(self, client, timeout=timeout)

    async def stop_all_clients(self) -> None:
        for client in list(self._client_tasks):
            await self.stop_client(client)

    # ----------------------------------------------------------------- waiting

    async def wait_for(self, predicate: Callable[[], T], timeout: float = WAIT_SECONDS,
                       what: str | None = None) -> T:
        """Return the first truthy value of ``predicate()``, re-checked after every state change."""
        async with self._condition:
            try:
                return await asyncio.wait_for(self._condition.wait_for(predicate), timeout)
            except TimeoutError:
                raise AssertionError(f"fake Discord: timed out after {timeout} s waiting for "
                                     f"{what or getattr(predicate, '__name__', predicate)}"
                                     f"{self.diagnosis()}") from None

    async def wait_event(self, event: asyncio.Event, timeout: float = WAIT_SECONDS, what: str = "an event") -> None:
        """Wait for an event the test set up (the bot reached a point it patched in); a timeout says what the
        ``diagnostics`` report, as ``wait_for``'s does."""
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except TimeoutError:
            raise AssertionError(f"fake Discord: timed out after {timeout} s waiting for {what}"
                                 f"{self.diagnosis()}") from None

    def diagnosis(self) -> str:
        """What the ``diagnostics`` say now, one block each (a describer that fails says so instead)."""
        blocks = []
        for describe in self.diagnostics:
            try:
                blocks.append(describe())
            except Exception as error:  # a diagnosis must never hide the timeout it explains
                blocks.append(f"({getattr(describe, '__qualname__', describe)} failed: {error!r})")
        return "".join(f"\n{block}" for block in blocks if block)

    async def changed(self) -> None:
        """Wake every ``wait_for``; called after each request and gateway event."""
        async with self._condition:
            self._condition.notify_all()

    def take_spec_violations(self) -> list[str]:
        """The requests Discord's API spec refused so far, forgotten here (a test that sends one on purpose
        takes it, so that the fixture does not fail the test for it)."""
        taken, self.spec_violations = self.spec_violations, []
        spec.refused_on_purpose(len(taken))
        return taken

    # ----------------------------------------------------------------- world setup (test side)

    def add_user(self, name: str, *, dms_open: bool = True, locale: str = "en-US",
                 global_name: str | None = None) -> FakeUser:
        user = FakeUser(self.ids.next(), name, global_name=global_name, dms_open=dms_open, locale=locale)
        self.users[user.id] = user
        return user

    def add_guild(self, name: str = "Test Server", *, preferred_locale: str = "en-US",
                  owner: FakeUser | None = None, shard: tuple[int, int] | None = None) -> FakeGuild:
        """A guild; ``shard=(id, count)`` gives it an id Discord delivers on that shard of ``count``."""
        guild_id = self.ids.next() if shard is None else self.ids.next_on_shard(*shard)
        guild = FakeGuild(self, guild_id, name, owner, preferred_locale)
        self.guilds[guild.id] = guild
        return guild

    def dm_channel(self, user: FakeUser) -> FakeChannel | None:
        return self.dm_channels.get(user.id)

    def open_dm(self, user: FakeUser) -> FakeChannel:
        """The DM channel between the bot and ``user``, created if needed (to type a command there)."""
        channel = self.dm_channels.get(user.id)
        if channel is None:
            channel = FakeChannel(self, self.ids.next(), 1, recipient=user)
            self.dm_channels[user.id] = channel
            self.channels[channel.id] = channel
        return channel

    async def wait_for_dm(self, user: FakeUser, predicate: Callable[[FakeMessage], bool] | None = None,
                          timeout: float = WAIT_SECONDS) -> FakeMessage:
        """The newest DM to ``user`` (satisfying ``predicate``), waiting until there is one."""
        def newest() -> FakeMessage | None:
            matching = [m for m in self.dm_messages(user) if predicate is None or predicate(m)]
            return matching[-1] if matching else None

        return await self.wait_for(newest, timeout=timeout, what=f"a DM to {user.name}")

    def dm_messages(self, user: FakeUser) -> list[FakeMessage]:
        """The user's DMs from the bot as they look now (edits applied, deletions gone)."""
        channel = self.dm_channels.get(user.id)
        return channel.messages if channel is not None else []

    def ephemeral_messages(self, user: FakeUser) -> list[FakeMessage]:
        """Every ephemeral message shown to ``user``, oldest first."""
        return [m for m in self.messages.values()
                if m.ephemeral and not m.deleted and m.interaction is not None and m.interaction.user is user]

    # ----------------------------------------------------------------- rate limits and the clock

    @property
    def limits(self) -> DiscordLimits:
        """The rate limits' settings; ``fake.limits.enforce = True`` turns them on."""
        return self.limiter.limits

    def enforce_limits(self, **settings: Any) -> DiscordLimits:
        """Enforce Discord's rate limits from now on, with any setting of ``DiscordLimits`` changed."""
        for name, value in settings.items():
            if not hasattr(self.limits, name):
                raise AttributeError(f"DiscordLimits has no setting {name!r}")
            setattr(self.limits, name, value)
        self.limits.enforce = True
        return self.limits

    def advance_clock(self, seconds: float) -> None:
        """Let ``seconds`` pass on the fake's clock: messages age (their snowflakes and timestamps are made
        on it), buckets and bans run out. A bot that judges a message's age by its own clock must be given
        this one (``bot.service.clock = fake.clock``, as tests move the service's clock)."""
        if not isinstance(self.clock, FakeClock):
            raise TypeError("the fake was given a clock of its own; move that one")
        self.clock.advance(seconds)

    @staticmethod
    def uses_interaction_token(template: str) -> bool:
        """Whether a route template (as in ``hits``) is called with an interaction's token, which Discord
        does not count against the bot's global limit."""
        return uses_interaction_token(template)

    # ----------------------------------------------------------------- faults and counters

    def fail_next(self, method: str, path_pattern: str, *, status: int = 429, times: int = 1,
                  retry_after: float = 0.05, code: int = 0, message: str = "Injected failure",
                  is_global: bool = False, applied: bool = False) -> FaultRule:
        """Make the next ``times`` matching requests fail. ``path_pattern`` is a glob over the path after
        /api/v10 (``/channels/*/messages/*``) or an exact route template
        (``/channels/{channel_id}/messages/{message_id}``). ``applied``: each request takes effect first and
        only its answer is the failure (Discord did it; the answer was lost)."""
        rule = FaultRule(method.upper(), path_pattern, status, times, retry_after, code, message, is_global,
                         applied=applied)
        self.faults.append(rule)
        return rule

    def random_faults(self, method: str = "*", path_pattern: str = "*", *, probability: float,
                      statuses: tuple[int, ...] = (429, 500, 502, 503, 504),
                      retry_after: tuple[float, float] = (0.05, 1.0), applied_fraction: float = 0.0,
                      exclude: tuple[str, ...] = (), seed: int | None = None,
                      global_fraction: float = 0.05) -> RandomFaultRule:
        """Fail each matching request with ``probability`` (see ``RandomFaultRule``); one-off ``fail_next``
        rules and rate limits are checked first. ``path_pattern`` "*" matches every route."""
        if not 0.0 <= probability <= 1.0:
            raise ValueError("probability must be between 0 and 1")
        rule = RandomFaultRule(method.upper(), path_pattern, probability, tuple(statuses), retry_after,
                               applied_fraction, tuple(exclude), random.Random(seed),
                               global_fraction=global_fraction)
        self.random_faults_rules.append(rule)
        return rule

    def bot_permissions_in(self, channel: FakeChannel) -> int:
        """What the bot may do in ``channel``: its overwrite, a thread its parent's, else the guild's."""
        if channel.is_thread and channel.parent is not None:
            channel = channel.parent
        if channel.bot_permissions is not None:
            return channel.bot_permissions
        return self.bot_permissions

    def bot_may(self, channel: FakeChannel, **permissions: bool) -> bool:
        wanted = discord.Permissions(**permissions).value
        held = self.bot_permissions_in(channel)
        return bool(held & ADMINISTRATOR) or held & wanted == wanted

    async def announce_thread(self, thread: FakeChannel) -> None:
        """THREAD_CREATE for a thread a person opened (the bot hears of every public thread it can see)."""
        await self._dispatch_if_connected("THREAD_CREATE", {**thread.payload(), "newly_created": True})

    async def _dispatch_if_connected(self, event: str, data: dict[str, Any]) -> None:
        if self.session_for(guild_of_event(event, data)) is not None:
            await self.dispatch(event, data)

    def close_dms(self, user: FakeUser) -> None:
        """The user closes their DMs (or blocks the bot) now: from then on every message create or edit in
        their DM channel answers 403 with code 50007; the messages already there stay as they are."""
        user.dms_open = False

    def open_dms(self, user: FakeUser) -> None:
        user.dms_open = True

    def rate_limit(self, method: str, path_pattern: str, *, limit: int = 5, per: float = 5.0) -> RateLimitRule:
        """Enforce a rate limit like Discord's (default: 5 per 5 s per channel, as for message edits);
        ``rule.rejected`` counts the 429s it produced."""
        rule = RateLimitRule(method.upper(), path_pattern, limit, per)
        self.rate_limits.append(rule)
        return rule

    def requests_to(self, method: str, path_pattern: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.matches(method.upper(), path_pattern)]

    def hit_count(self, method: str, path_pattern: str) -> int:
        return len(self.requests_to(method, path_pattern))

    # ----------------------------------------------------------------- gateway (test side)

    @property
    def active_session(self) -> GatewaySession | None:
        """The newest live session (with one shard per client, the one a test means)."""
        for session in reversed(self.sessions):
            if session.resumable:
                return session
        return None

    @property
    def live_sessions(self) -> list[GatewaySession]:
        """Every session that is connected or may resume, newest first (one per shard)."""
        return [session for session in reversed(self.sessions) if session.resumable]

    def session_for(self, guild_id: int | None) -> GatewaySession | None:
        """The session Discord sends a guild's events on (DM events: shard 0's), the newest if several."""
        return next((session for session in self.live_sessions if session.serves(guild_id)), None)

    async def drop_gateway(self, code: int = 4000, *, resumable: bool | None = None) -> None:
        """Close the bot's gateway socket with ``code`` the way Discord does on a hiccup.

        By default the session may be resumed (the client RESUMEs and gets what it missed), except for the
        codes after which Discord does not resume one (4007 invalid seq, 4009 session timed out): then a
        RESUME is answered with op 9 and the client identifies afresh. ``resumable`` overrides the default.
        Until the client has identified again, ``dispatch`` has no session to send to.
        """
        session = self.active_session
        if session is None or session.ws is None:
            raise RuntimeError("no bot is connected to the fake gateway")
        if resumable is None:
            resumable = code not in NOT_RESUMABLE_CLOSE_CODES
        self._dropped_by_us.add(session.ws)
        if not resumable:
            session.resumable = False
        self.gateway_closes[code] += 1
        await session.ws.close(code=code)

    async def invalidate_session(self, *, resumable: bool = False) -> None:
        """Send op 9 INVALID_SESSION. Not resumable (the default): the client must identify again and gets a
        fresh READY. Resumable (``d: true``): the client reconnects and RESUMEs the same session."""
        session = self.active_session
        if session is None or session.ws is None:
            raise RuntimeError("no bot is connected to the fake gateway")
        if not resumable:
            session.resumable = False
        self._dropped_by_us.add(session.ws)
        self.invalidations[resumable] += 1
        await session.ws.send_str(json.dumps({"op": 9, "d": resumable, "s": None, "t": None}))

    async def request_reconnect(self) -> None:
        """Send op 7 RECONNECT: the client closes the socket and RESUMEs the session on a new one."""
        session = self.active_session
        if session is None or session.ws is None:
            raise RuntimeError("no bot is connected to the fake gateway")
        self._dropped_by_us.add(session.ws)
        self.reconnect_requests += 1
        await session.ws.send_str(json.dumps({"op": 7, "d": None, "s": None, "t": None}))

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Send a DISPATCH event to the session of the shard it belongs to (a guild's shard; shard 0 for DMs);
        kept for replay if that session is reconnecting."""
        guild_id = guild_of_event(event, data)
        session = self.session_for(guild_id)
        if session is None:
            where = f"guild {guild_id}" if guild_id is not None else "DMs"
            raise RuntimeError(f"cannot send {event}: no bot session of the shard of {where} is connected")
        await self._send_event(session, event, data)

    async def announce_guild(self, guild: FakeGuild) -> None:
        """GUILD_CREATE for a guild added after the bot connected (the bot "joins" it), on its shard."""
        session = self.session_for(guild.id)
        if session is None:
            raise RuntimeError(f"no bot session of the shard of guild {guild.id} is connected")
        await self._send_event(session, "GUILD_CREATE",
                               guild.payload(include_all_members=bool(session.intents & GUILD_MEMBERS_INTENT)))

    # ----------------------------------------------------------------- interactions (test side)

    async def slash(self, user: FakeUser, channel: FakeChannel, command: str, *path: str,
                    options: dict[str, Any] | None = None, locale: str | None = None,
                    **named_options: Any) -> FakeInteraction:
        """Type ``/command path... name:value`` as ``user`` in ``channel``.

        Option types come from the commands the bot synced; without a sync they are inferred from the values.
        ``FakeUser``/``FakeChannel`` values become user/channel options with ``resolved`` data.
        """
        values = {**(options or {}), **named_options}
        definition, is_guild_command = self._registered_command(command, channel.guild)
        resolved: dict[str, dict[str, Any]] = {}
        built = self._command_options(command, definition, list(path), values, resolved, channel.guild)
        data: dict[str, Any] = {
            "id": str(definition["id"]) if definition else str(self.ids.next()),
            "name": command,
            "type": 1,
            "options": built,
        }
        if is_guild_command and channel.guild is not None:
            data["guild_id"] = str(channel.guild.id)
        if resolved:
            data["resolved"] = resolved
        return await self._inject(FakeInteraction.APPLICATION_COMMAND, user, channel, data, locale=locale)

    async def click(self, user: FakeUser, message: FakeMessage, custom_id: str | None = None, *,
                    label: str | None = None, force: bool = False, locale: str | None = None) -> FakeInteraction:
        """Click a button on ``message`` as ``user``, by ``custom_id`` or ``label``.

        Refuses what a real client cannot do (a disabled or missing button, a message the user cannot see)
        unless ``force`` is set, which is how a test forges a click.
        """
        if custom_id is None or label is not None:
            custom_id = message.button(label, custom_id=custom_id)["custom_id"]
        if not force:
            self._check_clickable(user, message, custom_id)
        data = {"custom_id": custom_id, "component_type": 2}
        return await self._inject(FakeInteraction.COMPONENT, user, message.channel, data, message=message,
                                  locale=locale)

    async def select(self, user: FakeUser, message: FakeMessage, custom_id: str, values: list[str], *,
                     force: bool = False, locale: str | None = None) -> FakeInteraction:
        """Choose ``values`` in a select menu on ``message``."""
        component = find_component(message.components, custom_id)
        if not force:
            self._check_clickable(user, message, custom_id)
        component_type = component.get("type", 3) if component else 3
        data = {"custom_id": custom_id, "component_type": component_type, "values": list(values)}
        return await self._inject(FakeInteraction.COMPONENT, user, message.channel, data, message=message,
                                  locale=locale)

    async def submit_modal(self, user: FakeUser, interaction: FakeInteraction, values: dict[str, str], *,
                           locale: str | None = None) -> FakeInteraction:
        """Fill in and submit the modal the bot opened in answer to ``interaction``."""
        if interaction.response_type != 9:
            raise ValueError(f"{interaction!r} was not answered with a modal")
        modal = interaction.response.data if interaction.response else {}
        rows = [
            {"type": 1, "components": [{"type": 4, "custom_id": custom_id, "value": value}]}
            for custom_id, value in values.items()
        ]
        data = {"custom_id": modal.get("custom_id"), "components": rows}
        return await self._inject(FakeInteraction.MODAL_SUBMIT, user, interaction.channel, data,
                                  message=interaction.message, locale=locale)

    def _check_clickable(self, user: FakeUser, message: FakeMessage, custom_id: str) -> None:
        if message.deleted:
            raise LookupError(f"{message!r} is deleted; nobody can click on it")
        if message.channel.is_dm and message.channel.recipient is not user:
            raise PermissionError(f"{user!r} cannot see a DM sent to {message.channel.recipient!r}")
        if message.ephemeral and message.interaction is not None and message.interaction.user is not user:
            raise PermissionError(f"{user!r} cannot see an ephemeral message shown to {message.interaction.user!r}")
        if message.channel.guild is not None:
            message.channel.guild.member(user)
        component = find_component(message.components, custom_id)
        if component is None:
            raise LookupError(f"{message!r} has no component {custom_id!r}")
        if component.get("disabled"):
            raise ValueError(f"component {custom_id!r} on {message!r} is disabled")

    async def _inject(self, interaction_type: int, user: FakeUser, channel: FakeChannel, data: dict[str, Any],
                      *, message: FakeMessage | None = None, locale: str | None = None) -> FakeInteraction:
        if channel.guild is not None:
            channel.guild.member(user)
        interaction = FakeInteraction(self, self.ids.next(), interaction_type, user, channel, message=message,
                                      locale=locale or user.locale, data=data)
        self.interactions.append(interaction)
        self._interactions_by_id[interaction.id] = interaction
        self._interactions_by_token[interaction.token] = interaction
        payload = self._interaction_payload(interaction)
        interaction.created_at = time.monotonic()
        await self.dispatch("INTERACTION_CREATE", payload)
        return interaction

    def _interaction_payload(self, interaction: FakeInteraction) -> dict[str, Any]:
        channel = interaction.channel
        data: dict[str, Any] = {
            "id": str(interaction.id),
            "application_id": str(self.application_id),
            "type": interaction.type,
            "token": interaction.token,
            "version": 1,
            "data": interaction.data,
            "channel_id": str(channel.id),
            "channel": channel.payload(),
            "locale": interaction.locale,
            "app_permissions": str(self.bot_permissions_in(channel)),
            "entitlements": [],
            "entitlement_sku_ids": [],
            "authorizing_integration_owners": interaction.integration_owners(),
            "attachment_size_limit": DEFAULT_ATTACHMENT_SIZE_LIMIT,
        }
        guild = channel.guild
        if guild is not None:
            data["context"] = 0
            data["guild_id"] = str(guild.id)
            data["guild"] = {"id": str(guild.id), "locale": guild.preferred_locale, "features": []}
            data["guild_locale"] = guild.preferred_locale
            data["member"] = guild.member(interaction.user).payload(with_permissions=True)
        else:
            data["context"] = 1
            data["user"] = interaction.user.payload()
        if interaction.message is not None:
            data["message"] = interaction.message.payload()
        return data

    def _registered_command(self, name: str, guild: FakeGuild | None) -> tuple[dict[str, Any] | None, bool]:
        if guild is not None:
            for command in self.commands.get(guild.id, []):
                if command["name"] == name:
                    return command, True
        for command in self.commands.get(None, []):
            if command["name"] == name:
                return command, False
        return None, False

    def _command_options(self, command: str, definition: dict[str, Any] | None, path: list[str],
                         values: dict[str, Any], resolved: dict[str, dict[str, Any]],
                         guild: FakeGuild | None) -> list[dict[str, Any]]:
        definitions = definition.get("options", []) if definition else None
        chain: list[tuple[str, int]] = []
        for depth, name in enumerate(path):
            option_type = 1 if depth == len(path) - 1 else 2
            if definitions is not None:
                found = next((o for o in definitions if o["name"] == name and o.get("type") in (1, 2)), None)
                if found is None:
                    raise LookupError(f"/{command} has no subcommand or group {name!r} (path {path})")
                option_type = found["type"]
                definitions = found.get("options", [])
            chain.append((name, option_type))
        leaves = [self._option_value(name, value, definitions, resolved, guild) for name, value in values.items()]
        if definitions is not None:
            given = set(values)
            missing = [o["name"] for o in definitions if o.get("required") and o["name"] not in given]
            if missing:
                raise ValueError(f"/{command} {' '.join(path)} needs the options {missing}")
        for name, option_type in reversed(chain):
            leaves = [{"type": option_type, "name": name, "options": leaves}]
        return leaves

    def _option_value(self, name: str, value: Any, definitions: list[dict[str, Any]] | None,
                      resolved: dict[str, dict[str, Any]], guild: FakeGuild | None) -> dict[str, Any]:
        option_type = infer_option_type(value)
        if definitions is not None:
            found = next((o for o in definitions if o["name"] == name), None)
            if found is None:
                raise LookupError(f"no option {name!r}; the command has {[o['name'] for o in definitions]}")
            option_type = found["type"]
            choices = [c["value"] for c in found.get("choices", [])]
            if choices and value not in choices:
                raise ValueError(f"option {name!r} must be one of {choices}, not {value!r}")
        if isinstance(value, FakeUser):
            resolved.setdefault("users", {})[str(value.id)] = value.payload()
            if guild is not None and value.id in guild.members:
                member_data = guild.members[value.id].payload(with_permissions=True)
                del member_data["user"]
                resolved.setdefault("members", {})[str(value.id)] = member_data
            value = str(value.id)
        elif isinstance(value, FakeRole):
            resolved.setdefault("roles", {})[str(value.id)] = value.payload()
            value = str(value.id)
        elif isinstance(value, FakeChannel):
            channel_data = value.payload()
            channel_data["permissions"] = str(self.bot_permissions)
            resolved.setdefault("channels", {})[str(value.id)] = channel_data
            value = str(value.id)
        return {"type": option_type, "name": name, "value": value}

    # ----------------------------------------------------------------- HTTP plumbing

    def _add_routes(self, app: web.Application) -> None:
        routes = [
            ("GET", "/users/@me", self._get_me),
            ("GET", "/oauth2/applications/@me", self._get_application),
            ("GET", "/gateway", self._get_gateway),
            ("GET", "/gateway/bot", self._get_gateway),
            ("GET", "/applications/{application_id}/commands", self._get_commands),
            ("PUT", "/applications/{application_id}/commands", self._put_commands),
            ("GET", "/applications/{application_id}/guilds/{guild_id}/commands", self._get_commands),
            ("PUT", "/applications/{application_id}/guilds/{guild_id}/commands", self._put_commands),
            ("POST", "/users/@me/channels", self._create_dm),
            ("GET", "/users/{user_id}", self._get_user),
            ("GET", "/guilds/{guild_id}", self._get_guild),
            ("GET", "/guilds/{guild_id}/members/{user_id}", self._get_member),
            ("GET", "/channels/{channel_id}", self._get_channel),
            ("PATCH", "/channels/{channel_id}", self._patch_channel),
            ("DELETE", "/channels/{channel_id}", self._delete_channel),
            ("POST", "/channels/{channel_id}/threads", self._start_thread),
            ("GET", "/channels/{channel_id}/messages", self._get_messages),
            ("POST", "/channels/{channel_id}/messages", self._post_message),
            ("GET", "/channels/{channel_id}/messages/{message_id}", self._get_message),
            ("PATCH", "/channels/{channel_id}/messages/{message_id}", self._patch_message),
            ("DELETE", "/channels/{channel_id}/messages/{message_id}", self._delete_message),
            ("POST", "/interactions/{interaction_id}/{token}/callback", self._interaction_callback),
            ("POST", "/webhooks/{application_id}/{token}", self._post_followup),
            ("GET", "/webhooks/{application_id}/{token}/messages/{message_id}", self._get_webhook_message),
            ("PATCH", "/webhooks/{application_id}/{token}/messages/{message_id}", self._patch_webhook_message),
            ("DELETE", "/webhooks/{application_id}/{token}/messages/{message_id}", self._delete_webhook_message),
        ]
        for method, path, handler in routes:
            app.router.add_route(method, API_PREFIX + path, handler)
        app.router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self._get_attachment)
        app.router.add_get("/", self._gateway)
        app.router.add_route("*", "/{tail:.*}", self._unhandled)

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Callable[..., Any]) -> web.StreamResponse:
        resource = request.match_info.route.resource
        template = resource.canonical if resource is not None else request.path
        if not template.startswith(API_PREFIX):
            if not request.path.startswith(API_PREFIX):
                return await handler(request)  # the gateway, an attachment's download
            template = request.path  # a route the fake does not serve: answered 404 as one, recorded
        template = template.removeprefix(API_PREFIX)
        path = request.path.removeprefix(API_PREFIX)
        record = RecordedRequest(request.method, path, template, dict(request.query))
        request[RECORD_KEY] = record
        if self.latency > 0:
            await asyncio.sleep(self.latency)  # on its way from the bot: it takes effect when it arrives
            record.effective_at = time.monotonic()
        self.hits[f"{request.method} {template}"] += 1
        if self.record_requests:
            self.requests.append(record)
        limit_headers: dict[str, str] = {}
        try:
            response, after = self._injected_fault(record)
            # An injected failure that does not take effect stands for Discord's own refusal (a 429, a 5xx):
            # Discord served nothing, so it takes no slot of the rate-limit buckets. One that takes effect
            # (``applied``) was served, and counts like any request.
            if response is None or after:
                refusal = None
                if self.limits.enforce:
                    refusal, limit_headers = self.limiter.admit(
                        request.method, template, self._limited_resource(request),
                        self._token_of(request, template), self._edited_message_created(request, template))
                if refusal is not None:
                    response = refusal_response(refusal)
                else:
                    self._check_auth(request, template)
                    if self.check_spec:
                        await self._check_spec(request, path)
                    answer = await handler(request)
                    response = response if after else answer
        except DiscordError as error:
            response = error.response()
        except ConnectionResetError:
            # The client went away while its request was read (a bot process killed mid-request): nobody is
            # left to answer, and the fake did nothing wrong. 499 as nginx logs it: client closed request.
            response = web.Response(status=499)
        except Exception:
            self.internal_errors.append(f"{request.method} {path}\n{traceback.format_exc()}")
            response = json_response({"message": "fake Discord crashed; see internal_errors", "code": 0},
                                     status=500)
        record.status = response.status
        if self.limits.enforce:
            response.headers.update(limit_headers)
            self.limiter.answered(response.status, response.headers.get("X-RateLimit-Scope"))
        await self.changed()
        if self.latency > 0:
            await asyncio.sleep(self.latency)  # the answer on its way back to the bot
        return response

    @staticmethod
    def _limited_resource(request: web.Request) -> str:
        """The top-level resource Discord keys a route's bucket by: the channel, or the webhook and token."""
        info = request.match_info
        if "channel_id" in info:
            return f"channel {info['channel_id']}"
        if "application_id" in info and "token" in info:
            return f"webhook {info['application_id']}/{info['token']}"
        return ""

    @staticmethod
    def _token_of(request: web.Request, template: str) -> str | None:
        """Whose global bucket a request counts against: the bot token it carries (without one, the IP's, as
        Discord does); None for interaction routes, which are exempt."""
        if uses_interaction_token(template):
            return None
        return request.headers.get("Authorization") or "no token: the IP"

    def _edited_message_created(self, request: web.Request, template: str) -> float | None:
        """When the channel message a PATCH edits was made (the old-message rule), else None."""
        if request.method != "PATCH" or template != "/channels/{channel_id}/messages/{message_id}":
            return None
        with contextlib.suppress(ValueError):
            message = self.messages.get(int(request.match_info["message_id"]))
            if message is not None:
                return message.created_at
        return None

    def _injected_fault(self, record: RecordedRequest) -> tuple[web.Response | None, bool]:
        """The injected failure for this request, if any, and whether the request takes effect anyway."""
        for rule in self.faults:
            if rule.fired < rule.times and record.matches(rule.method, rule.pattern):
                rule.fired += 1
                return rule.response(), rule.applied
        for limit in self.rate_limits:
            refusal = limit.check(record)
            if refusal is not None:
                return refusal.response(), False
        for random_rule in self.random_faults_rules:
            drawn = random_rule.draw(record)
            if drawn is not None:
                fault, after = drawn
                return fault.response(), after
        return None, False

    def _check_auth(self, request: web.Request, template: str) -> None:
        # Interaction callbacks and interaction webhooks are authorised by their token alone.
        if uses_interaction_token(template):
            return
        if request.headers.get("Authorization") != f"Bot {self.token}":
            raise DiscordError(401, 0, "401: Unauthorized")

    async def _check_spec(self, request: web.Request, path: str) -> None:
        """Discord's answer to a request its published API spec does not allow (spec.py)."""
        payload, _ = await self._read_body(request)
        try:
            operation = spec.check_request(request.method, path, dict(request.query), request.content_type,
                                           payload, request.body_exists)
            spec.count(request.method, path, operation, None)
        except spec.SpecViolation as violation:
            spec.count(request.method, path, spec.find_operation(request.method, path), violation)
            self.spec_violations.append(f"{request.method} {path}: {violation.summary}")
            if violation.status == 404:
                raise DiscordError(404, 0, f"404: Not Found ({violation.summary})") from None
            if violation.status == 405:
                raise DiscordError(405, 0, f"405: Method Not Allowed ({violation.summary})") from None
            raise DiscordError(400, spec.INVALID_FORM_BODY, "Invalid Form Body", violation.errors) from None

    async def _read_body(self, request: web.Request) -> tuple[Any, dict[int, Upload]]:
        if BODY_KEY in request:
            return request[BODY_KEY]
        record = request[RECORD_KEY]
        files: dict[int, Upload] = {}
        payload: Any = None
        if request.content_type.startswith("multipart/"):
            reader = await request.multipart()
            async for part in reader:
                name = part.name or ""
                if name == "payload_json":
                    payload = json.loads(await part.text())
                elif name.startswith("files[") and name.endswith("]"):
                    files[int(name[6:-1])] = Upload(part.filename or "file", bytes(await part.read()))
        elif request.can_read_body:
            payload = json.loads(await request.text())
        record.payload = payload
        record.files = [files[index] for index in sorted(files)]
        request[BODY_KEY] = (payload, files)
        return payload, files

    async def _unhandled(self, request: web.Request) -> web.Response:
        record = request.get(RECORD_KEY)
        if record is not None:
            self.unhandled.append(record)
        raise DiscordError(404, 0, "404: Not Found (the fake does not implement this route)")

    # ----------------------------------------------------------------- REST: login, commands, users

    def _bot_user_payload(self) -> dict[str, Any]:
        return {**self.bot_user.payload(), "verified": True, "mfa_enabled": False, "locale": "en-US"}

    async def _get_me(self, request: web.Request) -> web.Response:
        return json_response(self._bot_user_payload())

    async def _get_application(self, request: web.Request) -> web.Response:
        return json_response({
            "id": str(self.application_id),
            "name": self.bot_user.name,
            "description": "",
            "icon": None,
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": self.owner_user.payload(),
            "team": None,
            "verify_key": "0" * 64,
            "flags": 0,
            "bot": self.bot_user.payload(),
            "interactions_endpoint_url": None,
            "redirect_uris": [],
            "tags": [],
        })

    async def _get_gateway(self, request: web.Request) -> web.Response:
        return json_response({
            "url": self.gateway_url.rstrip("/"),
            "shards": self.recommended_shards,
            "session_start_limit": {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1},
        })

    def _command_scope(self, request: web.Request) -> int | None:
        if int(request.match_info["application_id"]) != self.application_id:
            raise DiscordError(403, 50001, "Missing Access")
        guild_id = request.match_info.get("guild_id")
        if guild_id is not None and int(guild_id) not in self.guilds:
            # Discord's answer for a server the application is not in (or was removed from).
            raise DiscordError(403, 50001, "Missing Access")
        return int(guild_id) if guild_id is not None else None

    async def _get_commands(self, request: web.Request) -> web.Response:
        return json_response(self.commands.get(self._command_scope(request), []))

    async def _put_commands(self, request: web.Request) -> web.Response:
        guild_id = self._command_scope(request)
        payload, _ = await self._read_body(request)
        previous = {c["name"]: c for c in self.commands.get(guild_id, [])}
        stored = []
        for command in payload:
            old = previous.get(command["name"])
            entry = {
                "type": 1,
                "description": "",
                "options": [],
                "default_member_permissions": None,
                "nsfw": False,
                "contexts": None,
                "integration_types": None,
                **command,
                "id": old["id"] if old else str(self.ids.next()),
                "application_id": str(self.application_id),
                "version": str(self.ids.next()),
            }
            if guild_id is not None:
                entry["guild_id"] = str(guild_id)
            stored.append(entry)
        self.commands[guild_id] = stored
        self.command_syncs.append(CommandSync(guild_id, payload))
        return json_response(stored)

    def _user(self, user_id: Any) -> FakeUser:
        try:
            return self.users[int(user_id)]
        except (KeyError, ValueError):
            raise DiscordError(404, 10013, "Unknown User") from None

    async def _get_user(self, request: web.Request) -> web.Response:
        return json_response(self._user(request.match_info["user_id"]).payload())

    async def _get_guild(self, request: web.Request) -> web.Response:
        guild = self.guilds.get(int(request.match_info["guild_id"]))
        if guild is None:  # Discord's answer for a server the bot is not in
            raise DiscordError(403, 50001, "Missing Access")
        return json_response(guild.payload(include_all_members=False))

    async def _get_member(self, request: web.Request) -> web.Response:
        guild = self.guilds.get(int(request.match_info["guild_id"]))
        if guild is None:
            raise DiscordError(404, 10004, "Unknown Guild")
        member = guild.members.get(int(request.match_info["user_id"]))
        if member is None:
            raise DiscordError(404, 10007, "Unknown Member")
        return json_response(member.payload())

    async def _create_dm(self, request: web.Request) -> web.Response:
        payload, _ = await self._read_body(request)
        user = self._user(payload.get("recipient_id"))
        # Opening the DM channel succeeds even when the user's DMs are closed; sending does not.
        return json_response(self.open_dm(user).payload())

    # ----------------------------------------------------------------- REST: channel messages

    def _channel(self, request: web.Request) -> FakeChannel:
        try:
            return self.channels[int(request.match_info["channel_id"])]
        except (KeyError, ValueError):
            raise DiscordError(404, 10003, "Unknown Channel") from None

    def _channel_message(self, request: web.Request) -> FakeMessage:
        channel = self._channel(request)
        message = self.messages.get(int(request.match_info["message_id"]))
        # Ephemeral messages exist only for their interaction's webhook, never for the channel API.
        if message is None or message.channel is not channel or message.deleted or message.ephemeral:
            raise DiscordError(404, 10008, "Unknown Message")
        return message

    async def _get_channel(self, request: web.Request) -> web.Response:
        return json_response(self._channel(request).payload())

    async def _get_messages(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        limit = int(request.query.get("limit", 50))
        newest_first = list(reversed(channel.messages))[:limit]
        return json_response([m.payload() for m in newest_first])

    async def _get_message(self, request: web.Request) -> web.Response:
        return json_response(self._channel_message(request).payload())

    async def _post_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        payload, files = await self._read_body(request)
        payload = payload or {}
        if channel.is_dm and channel.recipient is not None and not channel.recipient.dms_open:
            raise DiscordError(403, 50007, "Cannot send messages to this user")
        if channel.is_thread:
            await self._may_post_in_thread(channel)
        nonce = self._nonce_of(payload)
        if nonce is not None and payload.get("enforce_nonce"):
            existing = self._message_by_nonce(channel, self.bot_user, nonce)
            if existing is not None:
                # Discord answers a repeated create with the message the first one made, and makes nothing.
                self.nonce_hits += 1
                return json_response(existing.payload())
        message = self._new_message(channel, payload, files)
        if nonce is not None:
            message.nonce = nonce
            self._nonces[(channel.id, self.bot_user.id, nonce)] = (message, time.monotonic())
        return json_response(message.payload())

    @staticmethod
    def _nonce_of(payload: dict[str, Any]) -> str | None:
        nonce = payload.get("nonce")
        if nonce is None:
            return None
        if isinstance(nonce, bool) or not isinstance(nonce, (str, int)) or len(str(nonce)) > 25:
            raise DiscordError(400, 50035, "Invalid Form Body",
                               errors={"nonce": "must be an integer or a string of at most 25 characters"})
        return str(nonce)

    def _message_by_nonce(self, channel: FakeChannel, author: FakeUser, nonce: str) -> FakeMessage | None:
        found = self._nonces.get((channel.id, author.id, nonce))
        if found is None:
            return None
        message, created = found
        if message.deleted or (self.nonce_window is not None and time.monotonic() - created > self.nonce_window):
            return None
        return message

    async def _patch_message(self, request: web.Request) -> web.Response:
        message = self._channel_message(request)
        if message.author is not self.bot_user:
            raise DiscordError(403, 50005, "Cannot edit a message authored by another user")
        recipient = message.channel.recipient
        if message.channel.is_dm and recipient is not None and not recipient.dms_open:
            raise DiscordError(403, 50007, "Cannot send messages to this user")
        if message.channel.is_thread and message.channel.archived:
            raise DiscordError(400, 50083, "Thread is archived")
        payload, files = await self._read_body(request)
        self._edit_message(message, payload or {}, files)
        return json_response(message.payload())

    # ----------------------------------------------------------------- REST: threads

    async def _start_thread(self, request: web.Request) -> web.Response:
        """Start Thread without Message: a public thread (type 11) in a text or announcement channel."""
        parent = self._channel(request)
        payload, _ = await self._read_body(request)
        payload = payload or {}
        if parent.guild is None or parent.type not in (0, 5):
            raise DiscordError(400, 50024, "Cannot execute action on this channel type")
        if not self.bot_may(parent, view_channel=True):
            raise DiscordError(403, 50001, "Missing Access")
        if int(payload.get("type") or 12) != FakeChannel.PUBLIC_THREAD:
            raise DiscordError(400, 50035, "Invalid Form Body", errors={"type": "the fake opens public threads only"})
        if not self.bot_may(parent, create_public_threads=True):
            raise DiscordError(403, 50013, "Missing Permissions")
        name = str(payload.get("name") or "")
        duration = int(payload.get("auto_archive_duration") or 4320)
        if not 1 <= len(name) <= 100 or duration not in (60, 1440, 4320, 10080):
            raise DiscordError(400, 50035, "Invalid Form Body",
                               errors={"name": "1 to 100 characters", "auto_archive_duration": "60, 1440, 4320 or 10080"})
        thread = parent.guild.add_thread(parent, name, self.bot_user)
        thread.auto_archive_duration = duration
        await self._dispatch_if_connected("THREAD_CREATE", {**thread.payload(), "newly_created": True})
        return json_response(thread.payload(), status=201)

    def _thread(self, request: web.Request) -> FakeChannel:
        channel = self._channel(request)
        if not channel.is_thread:
            raise DiscordError(403, 50013, "Missing Permissions")  # the fake edits and deletes threads only
        return channel

    async def _patch_channel(self, request: web.Request) -> web.Response:
        """Modify a thread: name, archived, locked, auto_archive_duration. Its creator may rename and archive
        it; locking, and anything on another's thread, needs Manage Threads. An archived thread takes only
        an unarchive."""
        thread = self._thread(request)
        payload, _ = await self._read_body(request)
        payload = payload or {}
        manages = self.bot_may(thread, manage_threads=True)
        owns = thread.owner_id == self.bot_user.id
        if not manages and (not owns or ("locked" in payload and bool(payload["locked"]) != thread.locked)):
            raise DiscordError(403, 50013, "Missing Permissions")
        if thread.archived and payload.get("archived", True):
            raise DiscordError(400, 50083, "Thread is archived")
        if thread.locked and not manages:
            raise DiscordError(403, 50013, "Missing Permissions")
        if "name" in payload:
            thread.name = str(payload["name"])[:100]
        if "locked" in payload:
            thread.locked = bool(payload["locked"])
        if "archived" in payload:
            thread.archived = bool(payload["archived"])
            thread.archive_timestamp = iso_now()
        if "auto_archive_duration" in payload:
            thread.auto_archive_duration = int(payload["auto_archive_duration"])
        await self._dispatch_if_connected("THREAD_UPDATE", thread.payload())
        return json_response(thread.payload())

    async def _delete_channel(self, request: web.Request) -> web.Response:
        thread = self._thread(request)
        if not self.bot_may(thread, manage_threads=True):
            raise DiscordError(403, 50013, "Missing Permissions")
        assert thread.guild is not None and thread.parent is not None
        thread.deleted = True
        del thread.guild.threads[thread.id]
        del self.channels[thread.id]
        await self._dispatch_if_connected("THREAD_DELETE", {
            "id": str(thread.id), "guild_id": str(thread.guild.id), "parent_id": str(thread.parent.id),
            "type": thread.type,
        })
        return json_response(thread.payload())

    async def _may_post_in_thread(self, thread: FakeChannel) -> None:
        """Posting needs Send Messages in Threads; a locked archived thread takes nothing, an unlocked one is
        unarchived by the post (as on Discord)."""
        if not self.bot_may(thread, send_messages_in_threads=True):
            raise DiscordError(403, 50013, "Missing Permissions")
        if thread.archived:
            if thread.locked and not self.bot_may(thread, manage_threads=True):
                raise DiscordError(400, 50083, "Thread is archived")
            thread.archived = False
            thread.archive_timestamp = iso_now()
            await self._dispatch_if_connected("THREAD_UPDATE", thread.payload())

    async def _delete_message(self, request: web.Request) -> web.Response:
        self._delete(self._channel_message(request))
        return web.Response(status=204)

    # ----------------------------------------------------------------- REST: interactions and webhooks

    def _interaction_for(self, request: web.Request) -> FakeInteraction:
        interaction = self._interactions_by_token.get(request.match_info["token"])
        if interaction is None or int(request.match_info["application_id"]) != self.application_id:
            raise DiscordError(404, 10015, "Unknown Webhook")
        if time.monotonic() - interaction.created_at > self.interaction_token_lifetime:
            raise DiscordError(401, 50027, "Invalid Webhook Token")
        return interaction

    async def _interaction_callback(self, request: web.Request) -> web.Response:
        interaction = self._interactions_by_id.get(int(request.match_info["interaction_id"]))
        if interaction is None or interaction.token != request.match_info["token"]:
            raise DiscordError(404, 10062, "Unknown interaction")
        payload, files = await self._read_body(request)
        arrived = time.monotonic()
        if interaction.response is not None:
            interaction.rejected_callbacks.append(payload)
            raise DiscordError(400, 40060, "Interaction has already been acknowledged.")
        if arrived - interaction.created_at > self.interaction_deadline:
            interaction.rejected_callbacks.append(payload)
            raise DiscordError(404, 10062, "Unknown interaction")

        response_type = int(payload["type"])
        data = payload.get("data") or {}
        is_component = interaction.type in (FakeInteraction.COMPONENT, FakeInteraction.MODAL_SUBMIT)
        if response_type in (6, 7) and not (is_component and interaction.message is not None):
            raise DiscordError(400, 50035, f"Interaction response type {response_type} needs a message component")
        ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL_FLAG)
        if response_type == 4:
            interaction.original = self._new_message(interaction.channel, data, files, interaction=interaction)
        elif response_type == 5:
            interaction.original = self._new_message(
                interaction.channel, {"flags": LOADING_FLAG | (EPHEMERAL_FLAG if ephemeral else 0)}, {},
                interaction=interaction, allow_empty=True)
        elif response_type == 6:
            # The message the button was on, as Discord knows it by its id (a test's tampered copy of a message,
            # harness.as_shown, is not what a later edit of @original changes).
            assert interaction.message is not None
            interaction.original = self.messages.get(interaction.message.id, interaction.message)
        elif response_type == 7:
            assert interaction.message is not None
            self._edit_message(interaction.message, data, files)
            interaction.original = interaction.message
        elif response_type not in (8, 9):
            raise DiscordError(400, 50035, f"Unsupported interaction response type {response_type}")
        interaction.response = InteractionResponse(
            response_type, data, [(f.filename, f.data) for _, f in sorted(files.items())], arrived)

        if request.query.get("with_response", "").lower() not in ("1", "true"):
            return web.Response(status=204)
        original = interaction.original
        body: dict[str, Any] = {
            "interaction": {
                "id": str(interaction.id),
                "type": interaction.type,
                "response_message_loading": response_type == 5,
                "response_message_ephemeral": bool(original and original.ephemeral),
            },
            "resource": {"type": response_type},
        }
        if original is not None:
            body["interaction"]["response_message_id"] = str(original.id)
            body["resource"]["message"] = original.payload()
        return json_response(body)

    def _webhook_message(self, request: web.Request) -> tuple[FakeInteraction, FakeMessage]:
        interaction = self._interaction_for(request)
        wanted = request.match_info["message_id"]
        if wanted == "@original":
            message = interaction.original
        else:
            message = next((m for m in interaction.messages if str(m.id) == wanted), None)
        if message is None or message.deleted:
            raise DiscordError(404, 10008, "Unknown Message")
        return interaction, message

    async def _get_webhook_message(self, request: web.Request) -> web.Response:
        _, message = self._webhook_message(request)
        return json_response(message.payload())

    async def _patch_webhook_message(self, request: web.Request) -> web.Response:
        _, message = self._webhook_message(request)
        payload, files = await self._read_body(request)
        self._edit_message(message, payload or {}, files)
        return json_response(message.payload())

    async def _delete_webhook_message(self, request: web.Request) -> web.Response:
        _, message = self._webhook_message(request)
        self._delete(message)
        return web.Response(status=204)

    async def _post_followup(self, request: web.Request) -> web.Response:
        interaction = self._interaction_for(request)
        if interaction.response is None:
            raise DiscordError(404, 10015, "Unknown Webhook")
        payload, files = await self._read_body(request)
        payload = payload or {}
        original = interaction.original
        if interaction.response.type == 5 and original is not None and original.loading:
            # After a deferred "thinking" response, Discord turns the first followup into that message,
            # which keeps the visibility chosen when deferring.
            self._edit_message(original, payload, files)
            message = original
        else:
            message = self._new_message(interaction.channel, payload, files, interaction=interaction)
        interaction.followups.append(message)
        if request.query.get("wait", "").lower() not in ("1", "true"):
            return web.Response(status=204)
        return json_response(message.payload())

    # ----------------------------------------------------------------- messages

    def _new_message(self, channel: FakeChannel, payload: dict[str, Any], files: dict[int, Upload], *,
                     interaction: FakeInteraction | None = None, allow_empty: bool = False) -> FakeMessage:
        message_type = 0
        if interaction is not None and interaction.type == FakeInteraction.APPLICATION_COMMAND:
            message_type = 20
        message = FakeMessage(self, self.ids.next(), channel, self.bot_user, message_type=message_type,
                              interaction=interaction)
        flags = int(payload.get("flags") or 0)
        if interaction is None:
            flags &= ~(EPHEMERAL_FLAG | LOADING_FLAG)
        message.flags = flags
        self._apply(message, payload, files, editing=False, allow_empty=allow_empty)
        self.messages[message.id] = message
        channel.all_messages.append(message)
        return message

    def _edit_message(self, message: FakeMessage, payload: dict[str, Any], files: dict[int, Upload]) -> None:
        self._apply(message, payload, files, editing=True, allow_empty=False)

    def _apply(self, message: FakeMessage, payload: dict[str, Any], files: dict[int, Upload], *,
               editing: bool, allow_empty: bool) -> None:
        """Validate the message as it would look after ``payload`` and commit it only if Discord would."""
        content = (payload.get("content") or "") if "content" in payload else message.content
        embeds = list(payload.get("embeds") or []) if "embeds" in payload else message.embeds
        components = list(payload.get("components") or []) if "components" in payload else message.components
        flags = message.flags
        if editing and "flags" in payload:
            flags = (flags & ~EDITABLE_FLAGS) | (int(payload["flags"] or 0) & EDITABLE_FLAGS)
        if editing and message.loading:
            flags &= ~LOADING_FLAG
        attachments = self._attachments_after(message, payload, files, editing=editing)

        for upload in files.values():
            if len(upload.data) > DEFAULT_ATTACHMENT_SIZE_LIMIT:
                raise DiscordError(413, 40005, "Request entity too large")
        if not allow_empty and not flags & COMPONENTS_V2_FLAG and is_empty(
                content, embeds, components, len(attachments)):
            raise DiscordError(400, 50006, "Cannot send an empty message")
        problems = message_problems(content, embeds, components, len(attachments), flags)
        if problems:
            raise DiscordError(400, 50035, "Invalid Form Body", errors={"problems": problems})

        message.content, message.embeds, message.components = content, embeds, components
        message.attachments, message.flags = attachments, flags
        if editing:
            message.edited_timestamp = iso_now(self.clock)
        message.record_version()

    def _attachments_after(self, message: FakeMessage, payload: dict[str, Any], files: dict[int, Upload], *,
                           editing: bool) -> list[FakeAttachment]:
        """Discord's rule: a listed ``attachments`` array is the complete new set, naming kept attachments by
        id and new uploads by their ``files[n]`` index; without it, uploads are added to what is there."""
        existing = {a.id: a for a in message.attachments} if editing else {}
        if "attachments" not in payload:
            kept = list(message.attachments) if editing else []
            return kept + [self._stored(message, upload, None, None) for _, upload in sorted(files.items())]
        result: list[FakeAttachment] = []
        used: set[int] = set()
        for entry in payload["attachments"] or []:
            entry_id = int(entry["id"])
            if entry_id in existing:
                result.append(existing[entry_id])
            elif entry_id in files:
                used.add(entry_id)
                result.append(self._stored(message, files[entry_id], entry.get("filename"),
                                           entry.get("description")))
            else:
                raise DiscordError(400, 50035, "Invalid Form Body",
                                   errors={"attachments": f"unknown attachment or file index {entry_id}"})
        result += [self._stored(message, upload, None, None) for index, upload in sorted(files.items())
                   if index not in used]
        return result

    def _stored(self, message: FakeMessage, upload: Upload, filename: str | None,
                description: str | None) -> FakeAttachment:
        return FakeAttachment(self.ids.next(), filename or upload.filename, upload.data, message.channel.id,
                              self.http_base, description)

    def _delete(self, message: FakeMessage) -> None:
        message.deleted = True

    async def _get_attachment(self, request: web.Request) -> web.Response:
        attachment_id = int(request.match_info["attachment_id"])
        for message in self.messages.values():
            for attachment in message.attachments:
                if attachment.id == attachment_id:
                    return web.Response(body=attachment.data, content_type=attachment.content_type)
        raise web.HTTPNotFound()

    # ----------------------------------------------------------------- gateway

    async def _send_event(self, session: GatewaySession, event: str, data: dict[str, Any]) -> None:
        async with session.lock:
            session.sequence += 1
            frame = json.dumps({"op": 0, "t": event, "s": session.sequence, "d": data})
            session.backlog.append((session.sequence, frame))
            if self.latency > 0 or (session.delivery is not None and session.delivery.pending):
                # On its way to the bot (latency.py); frames in flight keep their order if latency drops to 0.
                if session.delivery is None:
                    session.delivery = DelayedDelivery(session)
                session.delivery.emit(session.sequence, frame, self.latency)
            elif session.connected:
                assert session.ws is not None
                # A socket that is going away loses the frame here; the client gets it again on RESUME.
                with contextlib.suppress(ConnectionError, RuntimeError):
                    await session.ws.send_str(frame)

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        self._sockets.add(ws)
        session: GatewaySession | None = None
        try:
            await ws.send_json({"op": 10, "d": {"heartbeat_interval": HEARTBEAT_INTERVAL_MS}, "s": None, "t": None})
            async for frame in ws:
                if frame.type is not WSMsgType.TEXT:
                    continue
                message = json.loads(frame.data)
                op, data = message.get("op"), message.get("d")
                if op == 1:
                    self.heartbeats += 1
                    await ws.send_json({"op": 11, "d": None, "s": None, "t": None})
                elif op == 2:
                    session = await self._identify(ws, data)
                elif op == 6:
                    session = await self._resume(ws, data)
                elif op == 8 and session is not None:
                    await self._send_member_chunk(session, data)
                await self.changed()
        except Exception:
            self.internal_errors.append(f"gateway\n{traceback.format_exc()}")
        finally:
            self._sockets.discard(ws)
            dropped_by_us = ws in self._dropped_by_us
            self._dropped_by_us.discard(ws)
            if session is not None and session.ws is ws:
                session.ws = None
                # The client closing with 1000/1001 ends its session; any other close may be resumed.
                if not dropped_by_us and ws.close_code in (1000, 1001):
                    session.resumable = False
            await self.changed()
        return ws

    async def _identify(self, ws: web.WebSocketResponse, data: dict[str, Any]) -> GatewaySession | None:
        if data.get("token") != self.token:
            await ws.close(code=4004, message=b"Authentication failed.")
            return None
        shard = data.get("shard") or [0, 1]
        shard_id, shard_count = int(shard[0]), int(shard[1])
        if not 0 <= shard_id < shard_count:
            await ws.close(code=4010, message=b"Invalid shard.")
            return None
        self.identifies.append(data)
        for old in self.sessions:
            if old.shard[0] == shard_id:  # a new IDENTIFY for a shard replaces its old session
                old.resumable = False
        session = GatewaySession(uuid.uuid4().hex, int(data.get("intents") or 0), ws=ws,
                                 shard=(shard_id, shard_count))
        self.sessions.append(session)
        guilds = [guild for guild in self.guilds.values() if session.serves(guild.id)]
        ready = {
            "v": 10,
            "user": self._bot_user_payload(),
            "guilds": [{"id": str(guild.id), "unavailable": True} for guild in guilds],
            "shard": [shard_id, shard_count],
            "session_id": session.session_id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
        }
        await self._send_event(session, "READY", ready)
        with_members = bool(session.intents & GUILD_MEMBERS_INTENT)
        for guild in guilds:
            await self._send_event(session, "GUILD_CREATE", guild.payload(include_all_members=with_members))
        return session

    async def _resume(self, ws: web.WebSocketResponse, data: dict[str, Any]) -> GatewaySession | None:
        session = next((s for s in self.sessions if s.session_id == data.get("session_id")), None)
        if session is None or not session.resumable or data.get("token") != self.token:
            await ws.send_json({"op": 9, "d": False, "s": None, "t": None})
            return None
        last_seen = data.get("seq") or 0
        async with session.lock:
            session.ws = ws
            session.sent_sequence = last_seen
            # Frames still on their way (latency.py) are left to their delivery, which sends them on this socket.
            in_flight = session.delivery.first_pending() if session.delivery is not None else None
            for sequence, frame in list(session.backlog):
                if sequence > last_seen and (in_flight is None or sequence < in_flight):
                    await ws.send_str(frame)
                    session.sent_sequence = sequence
        await self._send_event(session, "RESUMED", {})
        self.resumes += 1
        return session

    async def _send_member_chunk(self, session: GatewaySession, data: dict[str, Any]) -> None:
        guild = self.guilds.get(int(data["guild_id"]))
        members = list(guild.members.values()) if guild is not None else []
        await self._send_event(session, "GUILD_MEMBERS_CHUNK", {
            "guild_id": str(data["guild_id"]),
            "members": [m.payload() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
            "nonce": data.get("nonce"),
        })


def infer_option_type(value: Any) -> int:
    """Discord option types for a value when the command's definition is unknown."""
    if isinstance(value, bool):
        return 5
    if isinstance(value, int):
        return 4
    if isinstance(value, float):
        return 10
    if isinstance(value, FakeUser):
        return 6
    if isinstance(value, FakeChannel):
        return 7
    if isinstance(value, FakeRole):
        return 8
    return 3
