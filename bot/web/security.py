"""What every answer of the web pages gets, whatever the page: strict headers (a Content-Security-Policy that
allows nothing but this server's own files), read-only methods, one 404 page for every bad request (logged at
DEBUG, never louder), and a per-client rate limit."""

from __future__ import annotations

import ipaddress
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web
from aiohttp.typedefs import Middleware

log = logging.getLogger(__name__)

# Nothing from anywhere else, no inline script or style, no frames, no forms, no plugins.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    # The token in a page's address is never sent to another site.
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    # The pages are for the people the links were shared with, not for search engines.
    "X-Robots-Tag": "noindex, nofollow",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
}
READ_ONLY_METHODS = frozenset({"GET", "HEAD"})

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
NotFoundPage = Callable[[web.Request], web.Response]


class NotFound(Exception):
    """A request for something that is not there, or not for this asker (a bad token, an unknown id, a
    malformed query): answered with the same 404 page, whatever the reason, so a guess learns nothing."""


@dataclass(slots=True)
class _Bucket:
    tokens: float
    stamp: float


class RateLimiter:
    """A token bucket per client: ``burst`` requests at once, refilled at ``rate`` a second. At most
    ``clients`` buckets are kept (the least recently seen forgotten), so a flood of addresses costs bounded
    memory."""

    def __init__(
        self, rate: float = 3.0, burst: int = 60, clients: int = 10_000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.clients = clients
        self.clock = clock
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def allow(self, client: str) -> bool:
        now = self.clock()
        bucket = self._buckets.pop(client, None)
        if bucket is None:
            bucket = _Bucket(float(self.burst), now)
        else:
            bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.stamp) * self.rate)
            bucket.stamp = now
        self._buckets[client] = bucket
        while len(self._buckets) > self.clients:
            self._buckets.popitem(last=False)
        if bucket.tokens < 1:
            return False
        bucket.tokens -= 1
        return True


def client_of(request: web.Request) -> str:
    """Who asks, for the rate limit: the peer's address; behind a reverse proxy on this machine or a private
    network (the peer is loopback or private), the address the proxy appended last to X-Forwarded-For (the
    one it saw; what a client wrote there itself comes before it)."""
    peer = request.remote or ""
    forwarded = request.headers.get("X-Forwarded-For", "")
    if forwarded and _is_proxy(peer):
        last = forwarded.split(",")[-1].strip()
        if last:
            return last[:64]
    return peer


def _is_proxy(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address == ""  # a Unix socket or a test client: whatever forwards to it is the proxy
    return ip.is_loopback or ip.is_private


def guard(limiter: RateLimiter, not_found_page: NotFoundPage) -> Middleware:
    """The middleware: rate limit, read-only, 404 for everything that is not found, the headers on every
    answer. An unexpected failure is logged (it is the bot's, not the asker's) and answered 500."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        response: web.StreamResponse
        if not limiter.allow(client_of(request)):
            log.debug("web: rate limit for %s", client_of(request))
            response = web.Response(status=429, text="Too many requests; try again in a few seconds.\n")
            response.headers["Retry-After"] = "5"
        elif request.method not in READ_ONLY_METHODS:
            response = _not_found(request, not_found_page, "method")
        else:
            try:
                response = await handler(request)
            except (NotFound, web.HTTPNotFound, web.HTTPMethodNotAllowed):
                response = _not_found(request, not_found_page, "not found")
            except web.HTTPException as err:
                if err.status >= 400:
                    response = _not_found(request, not_found_page, f"HTTP {err.status}")
                else:
                    raise
        if not response.prepared:
            response.headers.update(SECURITY_HEADERS)
        return response

    return middleware


def _not_found(request: web.Request, page: NotFoundPage, why: str) -> web.Response:
    log.debug("web: 404 for %s %s (%s)", request.method, request.path_qs[:200], why)
    return page(request)
