"""Which files of bot/ one card click runs through, from the click's dispatch (INTERACTION_CREATE) until the
bot's message queues are idle again: four people at a table, one of them plays a card into a trick under
way. Printed twice: for every bot/ file, and for the control path (leaves that only compute a value left
out: texts, translations, drawing helpers, the snapshot's accessors, the cache, storage models), as files
visited, cross-file calls (a function entered from the nearest bot/ frame of another file; a coroutine
counts when it first runs, not at each resumption), how many of those go back into a file visited before,
jobs started without a bot/ caller (tasks, callbacks) and the file-to-file edges.
Counted with ``sys.setprofile`` on the event loop's thread (drawing in the render pool is not counted).

Run from the repository root (it runs itself under pytest, with the fake Discord's fixtures):

    python tests/tools/click_trace.py
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import bot as bot_package
import engine
from devtools.fakediscord import FakeDiscord
from tests.bot.schnapsen import conftest as schnapsen_fixtures
from tests.bot.schnapsen.harness import Table, current_button

warm_renderer, world = schnapsen_fixtures.warm_renderer, schnapsen_fixtures.world  # the fixtures it uses

ROOT = Path(bot_package.__file__).resolve().parent


def project(frame) -> str | None:
    name = frame.f_code.co_filename
    return os.path.relpath(name, ROOT.parent) if name.startswith(str(ROOT)) else None


async def test_trace_one_card_click(fake_discord: FakeDiscord, world: Table) -> None:
    people = [world.add_player(name) for name in ("anna", "bert", "cleo", "dora")]
    await world.start_bot()
    table = await world.open_table(people[0], people[1:])
    # Play until a card play with a trick under way (a middle click: not the first or last of a trick).
    await world.play(people, until=lambda t: t.deal is not None and t.deal.phase == engine.PLAY and len(t.deal.trick) == 1)
    now = table.snapshot()

    def turn() -> object:
        return next((u for u in people if current_button(world.hand_message(u), now.version) is not None), None)

    user = await world.fake.wait_for(turn, what="the DM with the current buttons")
    message = world.hand_message(user)
    button = current_button(message, now.version)
    messages = world.bot.runtime.messages
    await messages.edits.drain(timeout=10)
    await messages.sends.drain(timeout=10)
    events = []

    def profile(frame, event, arg):
        if event in ("call", "return"):
            file = project(frame)
            if file is not None:
                ancestors = []
                outer = frame.f_back
                while outer is not None:
                    if (name := project(outer)) is not None:
                        ancestors.append(name)
                    outer = outer.f_back
                events.append((event, frame, file, ancestors))

    sys.setprofile(profile)
    try:
        await world.click_and_settle(user, message, button["custom_id"])
        await messages.edits.drain(timeout=10)
        await messages.sends.drain(timeout=10)
    finally:
        sys.setprofile(None)
    report("all bot/ files", events, lambda file: True)
    # The control path: leaves that only compute a value (texts, translations, drawing helpers, the
    # snapshot's accessors, the cache, storage models) left out, as a reader following the click would.
    leaves = ("bot/i18n/", "bot/render/", "bot/game/table.py", "bot/cache.py", "bot/db/models.py",
              "bot/schnapsen/texts.py", "bot/schnapsen/ruletexts.py", "bot/game/rulesettings.py")
    report("control path", events, lambda file: not file.startswith(leaves))


def report(title, events, keep) -> None:
    kept = []
    for event, frame, file, ancestors in events:
        if not keep(file):
            continue
        ancestor = next((a for a in ancestors if keep(a)), None)
        kept.append((event, frame, file, ancestor))
    first_call: dict[int, int] = {}
    for index, (event, frame, _, _) in enumerate(kept):
        if event == "call":
            first_call.setdefault(id(frame), index)
    files, calls, back_again, roots = Counter(), 0, 0, 0
    edges: Counter[tuple[str, str]] = Counter()
    for index, (event, frame, file, ancestor) in enumerate(kept):
        if event != "call" or first_call[id(frame)] != index:
            continue
        if ancestor is None:
            roots += 1
        elif ancestor != file:
            calls += 1
            back_again += file in files  # the click had been in this file before, and left it
            edges[(ancestor, file)] += 1
        files[file] += 1
    print(f"\nTRACE {title}: files visited {len(files)}: {' '.join(sorted(files))}")
    print(f"TRACE {title}: cross-file calls {calls}, {back_again} of them back into a file visited before; "
          f"jobs started without a bot/ caller {roots}; distinct file-to-file edges {len(edges)}")
    if title == "control path":
        for (a, b), n in sorted(edges.items()):
            print(f"TRACE   {a} -> {b}: {n}")


if __name__ == "__main__":
    # Under ``python -m pytest``, so that the AI worker processes (spawned) import pytest's small __main__,
    # not this module with the fake Discord.
    command = [sys.executable, "-m", "pytest", __file__, "-q", "-s", "-p", "no:cacheprovider",
               "-W", "ignore::DeprecationWarning", "-o", "python_files=click_trace.py", "-p", "devtools.fakediscord.plugin"]  # fmt: skip
    sys.exit(subprocess.run(command, cwd=Path(__file__).resolve().parents[2], check=False).returncode)
