"""What the web companion costs: page time with many concurrent viewers, each page's first-load weight, and the
memory it adds to the process.

    python bench/web_bench.py [--viewers 50] [--seconds 20] [--deals 12]
    python bench/web_bench.py --with-bot [--tables 40] [--viewers 50] [--seconds 60]

With ``--with-bot`` (issue 36's figures): the real bot on one core serves ``--tables`` tables of four people at
human pace through the fake Discord (bench/bot_bench.py's paced steps, reused as they are), three steps back to
back: web pages off; on, with nobody looking; on, with ``--viewers`` people looking at them at a person's pace
(each keeps a table's live page open and opens another page every 2-6 s: the server page, a table's page, a
replay it links to, a player's page), from a process on the other core. Printed per step: the bot's click ->
next buttons p50/p95 (the figure of the capacity rows in docs/performance.md), the bot's resident memory
at the end, and with viewers the pages' time as the viewers measure it (request to last byte) and the live
events they got. Judged: the p95 with viewers within 10% of the p95 without, the memory the pages add
(viewers and all, against pages off) at most 30 MB.

Alone (without ``--with-bot``):
a table of four people plays ``--deals`` deals through the table service on a fresh SQLite database, a second
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
import os
import random
import re
import socket
import statistics
import sys
import tempfile
import time
from itertools import count
from pathlib import Path
from typing import Any

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


# --- with the bot serving tables at human pace (--with-bot) ---------------------------------------------------

THINK = (2.0, 6.0)  # seconds a viewer looks at a page before opening the next
PAGE_KINDS = ("server", "table", "replay", "player")


def paced_viewers(
    server_url: str,
    table_ids: list[int],
    user_ids: list[int],
    viewers_: int,
    seconds: float,
    cpus: set[int],
    out: multiprocessing.Queue,  # type: ignore[type-arg]
) -> None:
    """``viewers_`` people at a person's pace: each keeps one table's live page open and opens a page every
    THINK seconds, going round the server page, a table's page, a finished deal's replay that page links to
    and a player's page (someone seated at the tables). Each comes from an address of its own (all of 127/8
    is this machine): the pages' rate limit is per client, as 50 people's browsers are 50 clients. Reports
    each page's time (request to last byte) and the live events."""
    if cpus:
        os.sched_setaffinity(0, cpus)
    timings: list[tuple[str, float]] = []
    statuses: dict[int, int] = {}
    events = [0]
    base = server_url.split("/s/")[0]

    async def fetch(session: aiohttp.ClientSession, kind: str, url: str) -> str:
        started = time.perf_counter()
        async with session.get(url) as response:
            text = await response.text()
            statuses[response.status] = statuses.get(response.status, 0) + 1
        if response.status == 200:  # a 404 (a player with no deal finished yet) is not timed
            timings.append((kind, time.perf_counter() - started))
        return text

    async def live(session: aiohttp.ClientSession, table_id: int) -> None:
        async with session.get(f"{server_url}table/{table_id}/events") as stream:
            statuses[stream.status] = statuses.get(stream.status, 0) + 1
            async for line in stream.content:
                if line.startswith(b"data: "):
                    events[0] += 1

    async def viewer(number: int, stop: float) -> None:
        rng = random.Random(number)
        address = f"127.0.{1 + number // 250}.{1 + number % 250}"
        connector = aiohttp.TCPConnector(limit=0, local_addr=(address, 0))
        async with aiohttp.ClientSession(connector=connector) as session:
            await asyncio.sleep(rng.uniform(0, THINK[1]))  # people come in one by one
            watching = asyncio.create_task(live(session, table_ids[number % len(table_ids)]))
            replays: list[str] = []
            turn = number
            while time.monotonic() < stop:
                kind = PAGE_KINDS[turn % len(PAGE_KINDS)]
                turn += 1
                if kind == "server":
                    await fetch(session, kind, server_url)
                elif kind == "table":
                    html = await fetch(session, kind, f"{server_url}table/{rng.choice(table_ids)}")
                    finished = html.partition('id="deals"')[2]  # the list of the table's finished deals
                    replays = re.findall(r'href="(/s/[^"]+/deal/\d+)"', finished) or replays
                elif kind == "replay" and replays:
                    await fetch(session, kind, base + rng.choice(replays))
                elif kind == "player":
                    await fetch(session, kind, f"{server_url}player/{rng.choice(user_ids)}")
                else:
                    continue
                await asyncio.sleep(rng.uniform(*THINK))
            watching.cancel()

    async def main() -> None:
        stop = time.monotonic() + seconds
        await asyncio.gather(*(viewer(n, stop) for n in range(viewers_)), return_exceptions=True)

    asyncio.run(main())
    out.put({"timings": timings, "statuses": statuses, "events": events[0]})


class ViewersBeside:
    """bot_bench's window hook: turns the bench guild's pages on, then runs the viewers through the window."""

    def __init__(self, viewers_: int, web_port: int, cpus: set[int]) -> None:
        self.viewers = viewers_
        self.web_port = web_port
        self.cpus = cpus
        self.server_url = ""

    async def prepare(self, fake: object, admin: object, guilds: list[object]) -> None:
        guild = guilds[0]
        channel = next(iter(guild.channels.values()))  # type: ignore[attr-defined]
        answer = await fake.slash(admin, channel, "schnapsen", "settings", web_pages=True)  # type: ignore[attr-defined]
        if (await answer.wait_response(timeout=60)).type == 5:  # thinking first: the answer follows
            await answer.wait_followups(1, timeout=60)
        said = " ".join(message.visible_text for message in answer.messages)
        found = re.search(rf"http://127\.0\.0\.1:{self.web_port}/s/[A-Za-z0-9_-]+/", said)
        if found is None:
            raise RuntimeError(f"the bot did not turn its pages on: {said!r}")
        self.server_url = found[0]

    async def during(self, seconds: float, tables: list[Any]) -> dict[str, object]:
        if not self.viewers:
            return {}
        table_ids = [table.bot_table_id for table in tables]
        user_ids = [person.id for table in tables for person in table.people]
        out: multiprocessing.Queue = multiprocessing.Queue()  # type: ignore[type-arg]
        child = multiprocessing.Process(
            target=paced_viewers,
            args=(self.server_url, table_ids, user_ids, self.viewers, seconds, self.cpus, out),
        )
        child.start()
        result = await asyncio.to_thread(out.get)
        await asyncio.to_thread(child.join)
        return result  # type: ignore[no-any-return]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def page_line(result: dict[str, object], seconds: float) -> str:
    timings = result["timings"]  # type: ignore[assignment]
    every = sorted(t for _, t in timings)  # type: ignore[attr-defined]
    kinds = ", ".join(
        f"{kind} p50 {percentile(each, 50):.0f} / p95 {percentile(each, 95):.0f} ms ({len(each)})"
        for kind in PAGE_KINDS
        if (each := sorted(t for k, t in timings if k == kind))  # type: ignore[attr-defined]
    )
    return (
        f"  pages: {len(every)} in {seconds:.0f} s ({len(every) / seconds:.1f}/s), p50 {percentile(every, 50):.0f} ms, "
        f"p95 {percentile(every, 95):.0f} ms; {kinds}; statuses {result['statuses']} (404: a player with no deal "
        f"finished yet; not timed); live events received "
        f"{result['events']}"
    )


async def run_with_bot(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bot_bench

    bench_args = bot_bench.make_parser().parse_args(
        ["--pace", "human", "--tables", str(args.tables), "--seconds", str(args.seconds),
         "--start-spread", str(args.start_spread), "--seed", str(args.seed)]
    )  # fmt: skip
    cpus = sorted(os.sched_getaffinity(0))
    bench_args.bot_cpus = [cpus[-1]]  # the bot on one core; the fake Discord, its people and the viewers on the rest
    others = set(cpus) - {cpus[-1]}
    bot_bench.pin_parent(bench_args.bot_cpus)
    print(bot_bench.describe_setup(bench_args), flush=True)
    print(f"load average before: {os.getloadavg()[0]:.1f} (the machine is shared)", flush=True)
    steps: list[tuple[str, dict[str, Any]]] = []
    plan = [("pages off", False, 0)]
    for _ in range(args.rounds):  # the machine is shared: pairs back to back, so each pair saw similar load
        plan += [("pages on, nobody looking", True, 0), (f"pages on, {args.viewers} viewers", True, args.viewers)]
    for name, pages_on, viewers_ in plan:
        bench_args.web_port = free_port() if pages_on else None
        bench_args.window_hook = ViewersBeside(viewers_, bench_args.web_port, others) if pages_on else None
        step = await bot_bench.paced_step(bench_args, args.tables, None)
        steps.append((name, step))
        rss = step["bot_rss_at_stop_kb"][0] / 1024  # type: ignore[index]
        print(
            f"{name}: {bot_bench.step_line(step, 0)}\n  bot resident memory at the end {rss:.1f} MB; "
            f"load average {os.getloadavg()[0]:.1f}",
            flush=True,
        )
        if step.get("beside"):
            print(page_line(step["beside"], args.seconds), flush=True)  # type: ignore[arg-type]
    off = steps[0][1]
    pairs = [(steps[i][1], steps[i + 1][1]) for i in range(1, len(steps), 2)]
    ratios = [watched["next_p95_ms"] / quiet["next_p95_ms"] for quiet, watched in pairs]
    added = [(watched["bot_rss_at_stop_kb"][0] - off["bot_rss_at_stop_kb"][0]) / 1024 for _, watched in pairs]
    print(
        "click -> next buttons p95 with the viewers / without, each pair: "
        + ", ".join(f"{ratio:.2f}" for ratio in ratios)
        + f" (median {statistics.median(ratios):.2f}; at most 1.10); memory the pages add (viewers' connections "
        "included) against pages off: " + ", ".join(f"{mb:+.1f}" for mb in added) + " MB (at most 30)",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--viewers", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=None, help="default 20 alone, 60 with --with-bot")
    parser.add_argument("--deals", type=int, default=12)
    parser.add_argument("--with-bot", action="store_true", help="the bot serves tables at human pace meanwhile")
    parser.add_argument("--tables", type=int, default=40, help="--with-bot: tables of four people")
    parser.add_argument("--start-spread", type=float, default=30.0, help="--with-bot: the tables start over this")
    parser.add_argument("--seed", type=int, default=1, help="--with-bot: the people's thinking times")
    parser.add_argument("--rounds", type=int, default=1, help="--with-bot: pairs of steps without and with viewers")
    args = parser.parse_args()
    if args.with_bot:
        args.seconds = args.seconds or 60.0
        asyncio.run(run_with_bot(args))
    else:
        args.seconds = args.seconds or 20.0
        asyncio.run(run(args))


if __name__ == "__main__":
    main()
