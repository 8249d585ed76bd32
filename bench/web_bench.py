"""What the web companion costs: page time with many concurrent viewers, each page's first-load weight, and the
memory it adds to the process.

    python bench/web_bench.py [--viewers 50] [--seconds 20] [--deals 12]

A table of four people plays ``--deals`` deals through the table service on a fresh SQLite database, a second
table stays open mid-deal; then the web app is started in this process on a loopback port and a separate
process runs ``--viewers`` concurrent viewers, each loading the server, table, replay and player pages in turn
(and keeping the running table's live page open) for ``--seconds``. It prints the pages' time as the viewers
measure it (request sent to last byte, loopback: the server's time plus little), the first-load weight of each
page (HTML, CSS, script and every image it shows), and the process's resident memory before the web app
started and after the load (the card art, the app, the connections). The bot's own Discord work is not running
here: this measures the pages alone.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import re
import statistics
import sys
import tempfile
import time
from itertools import count
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiohttp
from aiohttp import web

import engine
from bot.db import Database
from bot.game.service import TableService
from bot.web.app import WebContext, make_app
from bot.web.cards import build_cards
from bot.web.live import LiveHub
from bot.web.security import RateLimiter
from bot.web.server import RUNNER_OPTIONS

GUILD, CHANNEL = 1, 500


def percentile(sorted_seconds: list[float], p: int) -> float:
    if not sorted_seconds:
        return float("nan")
    if p == 50:
        return statistics.median(sorted_seconds) * 1000
    return sorted_seconds[min(len(sorted_seconds) - 1, int(len(sorted_seconds) * p / 100))] * 1000


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def act(service: TableService, table):  # type: ignore[no-untyped-def]
    seat = table.deal.to_act
    occupant = table.seats[seat]
    return await service.act(table.id, seat, engine.legal_actions(table.deal)[0], table.version, user_id=occupant.user_id)


async def set_up(db: Database, deals: int) -> tuple[TableService, int, int, str]:
    service = TableService(db, seed_source=count(1).__next__)
    token = (await service.guilds.update_guild_settings(GUILD, web_pages=True)).web_token
    assert token is not None

    async def four(channel: int, first: int):  # type: ignore[no-untyped-def]
        table = await service.open_table(
            host_id=first, host_name=f"p{first}", guild_id=GUILD, channel_id=channel, preset="standard",
            deck="doppeldeutsch", turn_seconds=60, language="en",
        )
        for user in (first + 1, first + 2, first + 3):
            table = await service.take_seat(table.id, user, f"p{user}", None)
        return await service.start(table.id, first)

    table = await four(CHANNEL, 11)
    played = 0
    while played < deals:
        outcome = await act(service, table)
        table = outcome.table
        if outcome.finished_deal is not None:
            played += 1
        if table.status != "playing":
            table = await service.rematch(table.id, 11)
    finished_id = table.id
    running = await four(CHANNEL + 1, 21)
    for _ in range(9):  # into the play: cards on the table
        running = (await act(service, running)).table
    return service, finished_id, running.id, token


def viewers(base: str, paths: list[str], live: str, count_: int, seconds: float, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    async def main() -> None:
        timings: list[tuple[str, float]] = []
        statuses: dict[int, int] = {}
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(base, connector=connector) as session:
            stop = time.monotonic() + seconds

            async def viewer(number: int) -> None:
                async with session.get(live) as stream:  # a live page open the whole time
                    i = number
                    while time.monotonic() < stop:
                        path = paths[i % len(paths)]
                        i += 1
                        started = time.perf_counter()
                        async with session.get(path) as response:
                            await response.read()
                            statuses[response.status] = statuses.get(response.status, 0) + 1
                        timings.append((path, time.perf_counter() - started))
                    stream.close()

            await asyncio.gather(*(viewer(n) for n in range(count_)))
        out.put({"timings": timings, "statuses": statuses})

    asyncio.run(main())


async def first_load(base: str, path: str) -> tuple[int, int]:
    """Bytes of the page and of everything it loads (stylesheet, script, images), and how many requests."""
    async with aiohttp.ClientSession(base) as session:
        async with session.get(path) as response:
            html = await response.text()
        total, requests = len(html.encode()), 1
        assets = set(re.findall(r'(?:href|src)="(/(?:static|cards)/[^"]+)"', html))
        data = re.search(r'<script type="application/json" id="[a-z-]+">(.*?)</script>', html, re.S)
        if data is not None:  # the scrubber shows every card of the deal in turn
            payload = json.loads(data.group(1))
            deck = payload.get("deck", "doppeldeutsch")
            assets |= {f"/cards/{deck}/{card}.webp" for card in re.findall(r'"([HDCS][ATKQJ])"', data.group(1))}
        for asset in assets:
            async with session.get(asset) as response:
                total += len(await response.read())
                requests += 1
    return total, requests


async def run(args: argparse.Namespace) -> None:
    folder = Path(tempfile.mkdtemp())
    db = await Database.open(folder / "bench.sqlite3")
    service, finished_id, running_id, token = await set_up(db, args.deals)
    before = rss_mb()
    cards = await asyncio.to_thread(build_cards)
    hub = LiveHub(db, service.held)
    # The viewers all come from one address here: the per-client limit would refuse them, so it is lifted.
    context = WebContext(db, service, cards, hub, limiter=RateLimiter(rate=1e9, burst=10**9))
    runner = web.AppRunner(make_app(context), **RUNNER_OPTIONS)
    service.listen(context.table_changed)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    base = f"http://127.0.0.1:{port}"
    pages = {
        "server": f"/s/{token}/",
        "table (live)": f"/s/{token}/table/{running_id}",
        "table (finished)": f"/s/{token}/table/{finished_id}",
        "replay": f"/s/{token}/table/{finished_id}/deal/2",
        "player": f"/s/{token}/player/11",
    }
    print(f"first-load weight ({args.deals} deals played):")
    for name, path in pages.items():
        size, requests = await first_load(base, path)
        print(f"  {name:18} {size / 1024:6.1f} KB in {requests} requests")
    out: multiprocessing.Queue = multiprocessing.Queue()  # type: ignore[type-arg]
    child = multiprocessing.Process(
        target=viewers,
        args=(base, list(pages.values()), f"/s/{token}/table/{running_id}/events", args.viewers, args.seconds, out),
    )
    child.start()
    # the running table moves on meanwhile, a move every 2 s, so the live pages get events
    table = service.held(running_id)
    while child.is_alive():
        await asyncio.sleep(2)
        if table is not None and table.deal is not None and table.deal.to_act is not None and table.status == "playing":
            table = (await act(service, table)).table
        if not out.empty():
            break
    result = await asyncio.to_thread(out.get)
    child.join()
    after = rss_mb()
    timings = sorted(t for _, t in result["timings"])
    print(
        f"{args.viewers} viewers for {args.seconds:.0f} s: {len(timings)} pages ({len(timings) / args.seconds:.0f}/s), "
        f"p50 {percentile(timings, 50):.1f} ms, p95 {percentile(timings, 95):.1f} ms, statuses {result['statuses']}"
    )
    for name, path in pages.items():
        each = sorted(t for p, t in result["timings"] if p == path)
        print(f"  {name:18} p50 {percentile(each, 50):6.1f} ms, p95 {percentile(each, 95):6.1f} ms ({len(each)})")
    print(f"resident memory: {before:.1f} MB before the web app, {after:.1f} MB after ({after - before:+.1f} MB)")
    hub.close()
    await runner.cleanup()
    await db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--viewers", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--deals", type=int, default=12)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
