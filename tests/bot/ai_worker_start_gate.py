"""A worker start that the test decides: ``AiWorker(search=GATED)`` (``tests/bot/ai_worker_faults.py``) makes
every worker process import this module while it starts, and the import asks the test's start gate, at the
address in ``$SCHNAPSEN_TEST_AI_START_GATE``, whether it may go on: "go" (it starts and then searches as
``ai_worker_faults.search``), "die" (it is killed by SIGKILL before it is ready, as a fault-injection harness
kills a starting worker: the bot reads the end of its pipe, EOFError), or no word yet (it waits, so the test
holds it starting as long as it likes).

Only worker processes import this module; the test names it by its path.
"""

from __future__ import annotations

import os
import signal
import socket

from tests.bot.ai_worker_faults import START_GATE, search

__all__ = ["search"]


def _ask_the_gate() -> None:
    address = os.environ.get(START_GATE)
    if not address:
        return
    host, port = address.rsplit(":", 1)
    with socket.create_connection((host, int(port))) as line:
        line.sendall(f"{os.getpid()}\n".encode())
        verdict = line.makefile().readline().strip()
    if verdict == "die":
        os.kill(os.getpid(), signal.SIGKILL)


_ask_the_gate()
