"""Network latency between the bot and the fake Discord, as from a server far from Discord's.

``FakeDiscord(latency=0.08)`` (or ``fake.latency = 0.08``) is 80 ms each way: a REST request takes effect in
the fake 80 ms after the bot sent it and its answer reaches the bot 80 ms after that (the middleware sleeps
on both sides of the handler, so rate limits, faults and the interaction deadline all see the request when it
takes effect), and every gateway dispatch (an INTERACTION_CREATE for a click, a GUILD_CREATE, ...) reaches
the bot 80 ms after the fake emitted it. The hello, heartbeat acknowledgements and the session's control
opcodes (7, 9, 11) are not delayed: they say nothing about the game. Off (0) by default, as the tests run.

A delayed dispatch keeps its place in the session's order and its sequence number, and stays in the backlog
from the moment it is emitted: a RESUME replays what the client missed among the frames already due and
leaves the rest to the delivery, which sends each frame once per connection.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from devtools.fakediscord.server import GatewaySession


class DelayedDelivery:
    """The gateway frames of one session on their way to the bot: each is sent ``latency`` seconds after it
    was emitted, in order, on whatever socket the session has then."""

    def __init__(self, session: GatewaySession) -> None:
        self.session = session
        self.pending: collections.deque[tuple[float, int, str]] = collections.deque()  # (due, seq, frame)
        self._task: asyncio.Task[None] | None = None

    def emit(self, sequence: int, frame: str, latency: float) -> None:
        """Queue a frame the session just numbered (called under the session's lock)."""
        self.pending.append((time.monotonic() + latency, sequence, frame))
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._deliver(), name=f"gateway delivery {self.session.session_id}")

    def first_pending(self) -> int | None:
        """The sequence of the oldest frame not yet due, which a RESUME leaves to the delivery."""
        return self.pending[0][1] if self.pending else None

    async def _deliver(self) -> None:
        session = self.session
        while self.pending:
            due, _, _ = self.pending[0]
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            async with session.lock:
                _, sequence, frame = self.pending.popleft()
                if sequence <= session.sent_sequence or not session.connected:
                    continue  # replayed by a RESUME already, or in the backlog for the next one
                session.sent_sequence = sequence
                assert session.ws is not None
                # A socket that is going away loses the frame here; the client gets it again on RESUME.
                with contextlib.suppress(ConnectionError, RuntimeError):
                    await session.ws.send_str(frame)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
