"""Render the sample images in docs/images from a real game: a committed game record, replayed by the engine.

Run from anywhere:  python tools/sample_images.py [--out DIR] [--new-record SEED]

Every image is drawn by the bot's own message builders (``bot.schnapsen.payloads`` and ``answers``) from a
position of the record ``docs/images/sample-game.json`` (a Bummerl the AI played against itself), so every
figure a sample shows is one the rules produce. ``--new-record SEED`` first plays a new Bummerl with the ``pimc`` AI and
writes it over the committed record.

To add an image, write a function that takes the ``Game`` and returns PNG bytes (pick a position with
``Game.steps`` and build it with ``Game.snapshot``) and add it to ``SAMPLES``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402  (needs ROOT on the path when run as a script)
from bot.db import Database  # noqa: E402
from bot.game.profile import BestPartner, FamilyRecord, PlayerProfile, ShownRating  # noqa: E402
from bot.game.service import TableService  # noqa: E402
from bot.game.table import LogLine, TableSnapshot, log_events, logged  # noqa: E402
from bot.i18n import t  # noqa: E402
from bot.render.dailyboard import BoardRow, render_daily_board  # noqa: E402
from bot.schnapsen import answers, payloads  # noqa: E402
from engine.ai import choose_action  # noqa: E402

IMAGES = ROOT / "docs" / "images"
RECORD = IMAGES / "sample-game.json"
# Names in several scripts, as real display names come (the images must draw them all), and an AI seat.
NAMES = ("王小明", None, "Zoë 🎉", "Владимир")  # N, E, S, W; None: an AI player (drawn as "Resi 🤖")
AI_SEAT = 1
VIEWER = 2  # the hand images are Zoë's (South)
WHERE = "Wirtshaus · #schnapsen"
LANG = "en"


@dataclass
class Game:
    """The replayed record and a table of four named players to show its positions at."""

    record: engine.GameRecord
    steps: list[engine.ReplayStep]
    table: TableSnapshot  # the table the bot would have (row and seats); its game is replaced per position

    def snapshot(self, upto: engine.ReplayStep, deck: str = "doppeldeutsch") -> TableSnapshot:
        """The table as the bot holds it right after ``upto``: the deal, the Bummerl so far and the log."""
        log: tuple[LogLine, ...] = ()
        last_bummerl = None
        for step in self.steps:
            if step.deal == upto.deal:
                log = logged(log, "log.new_deal", dealer=step.state.dealer) if step.action is None else (
                    log_events(log, step.events)
                )
            if step.state.finished:
                last_bummerl = step.bummerl
            if step is upto:
                break
        return replace(
            self.table,
            row=replace(self.table.row, deck=deck),
            rules=self.record.rules,
            match=upto.match,
            deal=upto.state,
            deal_no=upto.deal,
            log=log,
            last_bummerl=last_bummerl,
        )

    def deal_end(self, deal: int) -> engine.ReplayStep:
        return next(s for s in self.steps if s.deal == deal and s.state.finished)


# ---------------------------------------------------------------- the positions shown


def hand_turn(game: Game) -> engine.ReplayStep:
    """The first time the viewer must follow with a full hand and has a choice: some cards playable, not all."""

    def choice(step: engine.ReplayStep) -> int:
        view = engine.view_for(step.state, VIEWER)
        if view.to_act != VIEWER or view.phase != engine.PLAY or len(view.hand) != 5:
            return 0
        playable = len({a.card for a in view.legal if isinstance(a, engine.PlayCard)})
        return playable if playable < 5 else 0

    return next((s for s in game.steps if choice(s) >= 2), None) or next(s for s in game.steps if choice(s))


def hand_bidding(game: Game) -> engine.ReplayStep:
    """The viewer's first bid of the record, with all five cards in hand (the plain hand image)."""
    return next(
        step
        for step in game.steps
        if step.state.phase == engine.AUCTION and engine.view_for(step.state, VIEWER).to_act == VIEWER
    )


def mid_trick(game: Game) -> engine.ReplayStep:
    """Three cards in a trick of the third trick or later, with tricks won on both sides."""
    return next(
        step
        for step in game.steps
        if len(step.state.trick) == 3 and min(step.state.team_tricks) >= 1 and not step.state.finished
    )


def reviewed_deal(game: Game) -> int:
    """The deal the review sample shows: one with a turned-up trump card that ended early, if any."""
    ends = [game.deal_end(d) for d in range(len(game.record.deals))]

    def interest(step: engine.ReplayStep) -> tuple[bool, bool, int]:
        return step.state.aufschlag_card is not None, len(step.state.tricks) < 5, -step.deal

    return max(ends, key=interest).deal


async def hand_png(game: Game, at: Callable[[Game], engine.ReplayStep], deck: str) -> bytes:
    """The viewer's hand message image: the plain hand, or on their card turn the table's cards above it."""
    payload = await payloads.hand_payload(game.snapshot(at(game), deck), VIEWER, LANG, WHERE)
    return payload.images["hand.png"]


async def table_png(game: Game) -> bytes:
    return (await payloads.table_payload(game.snapshot(mid_trick(game)), LANG)).images["table.png"]


async def result_png(game: Game) -> bytes:
    """The last deal of the record, which ends the Bummerl."""
    end = game.deal_end(len(game.record.deals) - 1)
    table = game.snapshot(end)
    assert table.deal is not None
    payload = await payloads.result_payload(table, LANG, table.deal, table.last_bummerl, None)
    return payload.images["result.png"]


async def review_png(game: Game) -> bytes:
    table = game.snapshot(game.deal_end(reviewed_deal(game)))
    return (await answers.deal_review_payload(table, LANG)).images["deal.png"]


# One recorded Bummerl gives a profile without a history, so the profile card shows a regular player's
# counts, made up for the sample (and in a third script), as they can be: 104 deals in 16 Bummerl, of which
# she declared 27 (a normal game only as forehand, a quarter of the deals, and a few contracts she bid).
VETERAN = PlayerProfile(
    guild_id=1, user_id=5, display_name="Ελένη", rating=ShownRating(1487, 62, (1260, 1310, 1290, 1350, 1330, 1400,
    1390, 1445, 1470, 1487), rank=3), rank=3, bummerl_won=9, bummerl_played=16, deals_won=58, deals_played=104,
    contracts=(FamilyRecord("normal", 19, 12), FamilyRecord("bettler", 4, 3), FamilyRecord("schnapser", 3, 2),
               FamilyRecord("all_tricks", 1, 0), FamilyRecord("farbringerl", 0, 0)),
    kontra_said=6, kontra_won=4, best_partner=BestPartner(2, "王小明", 7, 5),
)  # fmt: skip


async def profile_png(game: Game) -> bytes:
    payload = await answers.profile_payload(VETERAN, "Ελένη", LANG, attach=True)
    return payload.images["profile.png"]


# A day's top ten as posted to a server's channel: made-up players and scores against par.
DAILY_SAMPLE = (("Resi", 7), ("Ελένη", 4), ("Ferdinand Huber", 2), ("王小明", 0), ("Mitzi", -1), ("Sepp", -5))


async def daily_board_png(game: Game) -> bytes:
    rows = [BoardRow(rank, name, score, 6) for rank, (name, score) in enumerate(DAILY_SAMPLE, start=1)]
    title = t(LANG, "daily.board_today", day="2026-12-03")
    empty, deals = t(LANG, "daily.board_empty"), t(LANG, "daily.deals_word")
    return await asyncio.to_thread(render_daily_board, title, rows, empty, deals)


SAMPLES: dict[str, Callable[[Game], Awaitable[bytes]]] = {
    "hand-doppeldeutsch.png": lambda game: hand_png(game, hand_bidding, "doppeldeutsch"),
    "hand-french.png": lambda game: hand_png(game, hand_bidding, "french"),
    "hand-turn.png": lambda game: hand_png(game, hand_turn, "doppeldeutsch"),
    "table.png": table_png,
    "result.png": result_png,
    "deal-review.png": review_png,
    "profile.png": profile_png,
    "daily-board.png": daily_board_png,
}


# ---------------------------------------------------------------- the record


def load_game_record(path: Path = RECORD) -> engine.GameRecord:
    return engine.load_record_text(path.read_text(encoding="utf-8"))


def play_bummerl(seed: int, budget_ms: int = 60) -> engine.GameRecord:
    """A whole Bummerl of the standard rules, every seat played by ``pimc`` (seeded deals and decisions)."""
    rules, rng = engine.STANDARD, random.Random(seed)
    first_dealer = rng.randrange(4)
    match = engine.new_match(rules, first_dealer)
    deals: list[engine.DealRecord] = []
    while not match.bummerls:
        hands = engine.deal_hands(rng.getrandbits(62), match.next_dealer)
        state = engine.new_deal(rules, match.next_dealer, hands)
        actions = []
        while not state.finished:
            seat = state.to_act
            assert seat is not None
            action = choose_action(engine.view_for(state, seat), "pimc", rng.getrandbits(31), budget_ms, rules)
            actions.append(engine.format_action(seat, action))
            state, _ = engine.apply(state, seat, action)
        assert state.result is not None
        match, _ = engine.score_deal(match, state.result)
        deals.append(engine.DealRecord(tuple(tuple(hand) for hand in hands), tuple(actions)))
    return engine.GameRecord(rules, first_dealer, tuple(deals))


async def table_of_four(database: Path) -> TableSnapshot:
    """A started table of four named people, as the service makes it (the row and seats of the samples)."""
    db = await Database.open(database)
    try:
        service = TableService(db)
        host = NAMES[0]
        assert host is not None
        opened = await service.open_table(guild_id=1, channel_id=1, host_id=1, host_name=host,
                                          preset="standard", deck="doppeldeutsch", turn_seconds=90,
                                          language=LANG)  # fmt: skip
        for seat, name in enumerate(NAMES):
            if seat and name is not None:
                await service.take_seat(opened.id, seat + 1, name, seat)
        await service.add_ai(opened.id, 1, AI_SEAT)
        return await service.start(opened.id, 1)
    finally:
        await db.close()


async def replayed(record: engine.GameRecord) -> Game:
    with tempfile.TemporaryDirectory() as folder:
        table = await table_of_four(Path(folder) / "samples.sqlite3")
    return Game(record, list(engine.replay_steps(record)), table)


async def write_samples(folder: Path, record: engine.GameRecord) -> None:
    game = await replayed(record)
    folder.mkdir(parents=True, exist_ok=True)
    for name, draw in SAMPLES.items():
        (folder / name).write_bytes(await draw(game))
    print(f"wrote {len(SAMPLES)} images from {len(record.deals)} deals of {RECORD.name} to {folder}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=IMAGES)
    parser.add_argument("--new-record", type=int, metavar="SEED", help="first play and commit a new record")
    args = parser.parse_args()
    if args.new_record is not None:
        record = play_bummerl(args.new_record)
        RECORD.write_text(json.dumps(record.to_json(), indent=1) + "\n", encoding="utf-8")
        print(f"played a Bummerl of {len(record.deals)} deals into {RECORD}")
    asyncio.run(write_samples(args.out, load_game_record()))


if __name__ == "__main__":
    main()
