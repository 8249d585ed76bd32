"""The coach through the real client and the fake Discord: "Review my play" on a deal's result and the hints
of a practice table answer with the values ``python -m engine.ai`` prints for the same record; reviews are
only for the deal's players, after the deal, rate-limited, and never hold up a table; practice deals count
for no leaderboard, statistic or rating."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import sys
from typing import Any

import pytest

import engine
from bot.game.coach import COACH_SEED
from bot.schnapsen.ids import ButtonId
from bot.schnapsen.texts import action_name, game_points
from devtools.fakediscord import FakeDiscord, FakeInteraction, FakeMessage, FakeUser
from engine.ai.analysis import COSTLY
from tests.bot.coach_gate import SEARCH as GATE_SEARCH
from tests.bot.schnapsen.harness import CurrentTable, Table, game_buttons, reply_to, with_button

BUDGET_MS = 20  # the coach's search budget in these tests (and for the command they are checked against)
SEED = 6  # every deal of these tests is dealt from this seed


async def engine_ai(record: dict[str, Any], *args: str) -> dict[str, Any]:
    """What ``python -m engine.ai`` prints for ``record``, with the coach's seed and budget."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "engine.ai", "-", "--seed", str(COACH_SEED), "--budget-ms", str(BUDGET_MS), *args,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, _ = await process.communicate(json.dumps(record).encode())
    assert process.returncode == 0, out
    return json.loads(out)


def coach_settings(world: Table, **changes: Any) -> None:
    world.settings = dataclasses.replace(world.settings, coach_budget_ms=BUDGET_MS, **changes)


async def open_dealt_table(
    world: Table, host: FakeUser, guests: list[FakeUser | None], *, target: int | None = None, **options: Any
) -> CurrentTable:
    """``/schnapsen new`` with ``options``; every deal comes from SEED and North deals first, so the record
    is known. ``host`` sits North, each guest at the next seat (None: an AI player); then the host starts."""
    assert world.bot is not None
    world.bot.service.new_seed = lambda: SEED
    await world.command(world.admin, "settings", ai_strength="greedy")  # AI seats play the same every run
    return await world.open_table(host, guests, target=target, first_dealer=0, **options)


async def result_message(world: Table, deal_no: int) -> FakeMessage:
    def find() -> FakeMessage | None:
        for message in world.channel.messages:
            for button in message.buttons:
                parsed = ButtonId.parse(str(button.get("custom_id", "")))
                if parsed is not None and parsed.verb == "review" and parsed.arg == str(deal_no):
                    return message
        return None

    return await world.fake.wait_for(find, what=f"the result of deal {deal_no}")


async def answer_text(interaction: FakeInteraction, timeout: float = 30.0) -> str:
    response = await interaction.wait_response()
    assert response.type == 5, "answered at once: a review or hint thinks first"
    message = (await interaction.wait_followups(1, timeout=timeout))[-1]
    assert message.ephemeral, f"{interaction.describe()} was answered publicly"
    return message.visible_text


def review_lines(decisions: list[dict[str, Any]], deck: str) -> list[str]:
    """The lines "Review my play" shows for ``python -m engine.ai --review`` output (in English)."""
    lines = []
    costly = sorted((d for d in decisions if d["loss"] >= COSTLY), key=lambda d: -d["loss"])
    for decision in costly:
        values = {e["action"]: e["value"] for e in decision["evaluations"]}
        played = engine.parse_action(decision["played"])[1]
        best = engine.parse_action(decision["action"])[1]
        lines.append(
            f"you chose **{action_name(deck, 'en', played)}** ({game_points('en', values[decision['played']])});"
            f" the AI **{action_name(deck, 'en', best)}** ({game_points('en', values[decision['action']])})."
            f" Cost: {game_points('en', decision['loss'], signed=False)} game points."
        )
    return lines


# --- Review my play ------------------------------------------------------------------------------------


async def test_review_lists_the_costly_decisions_with_the_values_of_engine_ai(
    fake_discord: FakeDiscord, world: Table
) -> None:
    coach_settings(world)
    alice, bob = world.add_player("alice"), world.add_player("bob")
    await world.start_bot()
    await world.no_ai_delay()
    # To 1000, so that the first deal cannot end the Bummerl (a Schnapser with Kontra and Re counts 24): the
    # forged review below asks about the deal still running.
    table = await open_dealt_table(world, alice, [None, None, None], target=1000)
    await world.play([alice], until=lambda t: t.deal_no >= 1)
    result = await result_message(world, 0)
    assert "Review my play" in result.visible_text

    review = await fake_discord.click(alice, result, label="Review my play")
    text = await answer_text(review)

    assert world.bot is not None
    record = (await world.bot.service.queries.export_record(table.id, include_unfinished=False)).to_json()
    expected = await engine_ai(record, "--review", "N", "--deal", "0")
    lines = review_lines(expected["review"], table.row.deck)
    assert lines, "this deal has a decision of alice's that cost expected game points"
    shown = [line for line in text.splitlines() if "you chose" in line]
    assert [line.split(": ", 1)[1] for line in shown] == lines
    losses = [float(re.search(r"Cost: ([0-9]+\.[0-9]+)", line)[1]) for line in shown]  # type: ignore[index]
    assert losses == sorted(losses, reverse=True)

    # Not a player of that deal: refused, and nothing is computed.
    stranger = await fake_discord.click(bob, result, label="Review my play")
    assert "Only someone who played this deal" in (await reply_to(stranger)).visible_text
    # A forged review of the deal still running: refused.
    running = str(ButtonId(table.id, 0, "review", str(table.deal_no)))
    early = await fake_discord.click(alice, with_button(result, running), running, force=True)
    assert "not over" in (await reply_to(early)).visible_text


async def test_reviews_are_rate_limited_per_person(fake_discord: FakeDiscord, world: Table) -> None:
    coach_settings(world, reviews_per_window=1)
    alice = world.add_player("alice")
    await world.start_bot()
    await world.no_ai_delay()
    await world.open_table(alice, [None, None, None])
    await world.play([alice], until=lambda t: t.deal_no >= 1)
    result = await result_message(world, 0)

    first = await fake_discord.click(alice, result, label="Review my play")
    assert "reviewed" in await answer_text(first)
    again = await fake_discord.click(alice, result, label="Review my play")
    text = await answer_text(again)
    assert "You can ask for 1 review every 10 minutes" in text and "reviewed" not in text


async def test_a_slow_review_never_holds_up_a_table(
    fake_discord: FakeDiscord, world: Table, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = tmp_path / "open"
    monkeypatch.setenv("COACH_GATE", str(gate))  # the coach's worker waits for this file before each answer
    # Two AI workers whatever the machine: the held review may take one, never the last (bot/ai_worker.py).
    coach_settings(world, coach_search=GATE_SEARCH, review_seconds=120.0, ai_workers=2)
    alice = world.add_player("alice")
    await world.start_bot()
    await world.no_ai_delay()
    table = await world.open_table(alice, [None, None, None])
    await world.play([alice], until=lambda t: t.deal_no >= 1)
    review = await fake_discord.click(alice, await result_message(world, 0), label="Review my play")
    await review.wait_response()

    # The whole next deal is played, AI moves and all, while the review waits in the coach's worker.
    await world.play([alice], until=lambda t: t.deal_no >= 2 or t.status != "playing", timeout=60)
    assert world.bot is not None
    # (What the test means, rather than a count of versions, which varies with the contract.)
    assert (await world.bot.db.records.load_record(table.id)).deals[1].finished
    assert not review.followups, "the review was answered before its worker could"

    gate.touch()
    assert "reviewed" in await answer_text(review, timeout=60)


# --- practice tables ---------------------------------------------------------------------------------------


async def test_a_practice_hint_matches_engine_ai_and_is_only_for_the_turn(
    fake_discord: FakeDiscord, world: Table
) -> None:
    coach_settings(world)
    alice, bob = world.add_player("alice"), world.add_player("bob")
    await world.start_bot()
    await world.no_ai_delay()
    table = await open_dealt_table(world, alice, [bob, None, None], practice=True)
    assert table.row.practice
    assert "Practice table" in (await world.table_message()).visible_text

    # Play until alice is to act with a choice of cards, then ask for a hint.
    def alice_chooses(t: Any) -> bool:
        deal = t.deal
        return (
            deal is not None
            and deal.to_act == 0
            and deal.phase == "play"
            and len(engine.legal_actions(deal)) > 1
        )

    await world.play([alice, bob], until=alice_chooses)

    def hint_for_now(message: Any) -> bool:  # not a Hint of an earlier turn whose edit is still on its way
        return any(
            b.get("label") == "Hint" and (parsed := ButtonId.parse(b["custom_id"])) is not None
            and parsed.version == table.version
            for b in message.buttons
        )

    hand = await world.latest_dm(alice, hint_for_now)
    assert world.bot is not None
    record = (await world.bot.service.queries.export_record(table.id)).to_json()
    assert record["practice"] is True
    hint = await fake_discord.click(alice, hand, label="Hint")
    text = await answer_text(hint)

    expected = await engine_ai(record)
    deck = table.row.deck
    best = engine.parse_action(expected["action"])[1]
    assert f"The AI would choose **{action_name(deck, 'en', best)}**." in text
    for evaluation in expected["evaluations"]:
        action = engine.parse_action(evaluation["action"])[1]
        assert f"{action_name(deck, 'en', action)}: {game_points('en', evaluation['value'])}" in text

    # Bob's hand has no Hint while it is not his turn; a forged one is refused, as is alice's old one.
    bob_hand = world.hand_message(bob)
    assert bob_hand is not None and not any(b.get("label") == "Hint" for b in bob_hand.buttons)
    hint_now = str(ButtonId(table.id, table.version, "hint"))
    refused = await fake_discord.click(bob, with_button(bob_hand, hint_now), hint_now, force=True)
    assert "Hints are for your own turn only" in (await reply_to(refused)).visible_text
    old_hint = hand.button("Hint")["custom_id"]
    card = next(b for b in game_buttons(hand))["custom_id"]
    await world.click_and_settle(alice, hand, card)
    stale = await fake_discord.click(alice, with_button(hand, old_hint), old_hint, force=True)
    assert "out of date" in (await reply_to(stale)).visible_text


async def test_the_host_makes_the_lobby_a_practice_table(fake_discord: FakeDiscord, world: Table) -> None:
    alice, bob = world.add_player("alice"), world.add_player("bob")
    await world.start_bot()
    table = await world.open_table(alice, [bob], start=False)
    lobby = await world.table_message()
    refused = await fake_discord.click(bob, lobby, label="Practice table: off")
    assert "host" in (await reply_to(refused)).visible_text.lower()
    assert not table.row.practice

    toggle = await fake_discord.click(alice, lobby, label="Practice table: off")
    await toggle.wait_response()
    await fake_discord.wait_for(lambda: table.row.practice, what="the table to become a practice table")
    lobby = await world.table_message(lambda m: "Practice table: on" in m.visible_text)
    assert "Practice table: a Hint button" in lobby.visible_text


async def test_practice_deals_count_for_no_leaderboard_statistic_or_rating(
    fake_discord: FakeDiscord, world: Table
) -> None:
    alice, bob = world.add_player("alice"), world.add_player("bob")
    await world.start_bot()
    await world.no_ai_delay()
    table = await open_dealt_table(world, alice, [bob, None, None], target=5, practice=True)
    await world.play([alice, bob], timeout=60)
    assert world.bot is not None
    assert table.status == "finished" and table.match.bummerls

    db = world.bot.db
    assert await db.stats.all_bummerl_results() == []
    assert await db.ratings.all_ratings() == []
    assert await db.stats.get_player_stats(world.guild.id, alice.id) is None
    board = await world.command(alice, "leaderboard")
    assert "Nobody has finished a Bummerl here yet" in (await reply_to(board)).visible_text
    stats = await world.command(alice, "stats")
    assert "has not finished a game on this server yet" in (await reply_to(stats)).visible_text
    export = await world.bot.service.queries.export_record(table.id)
    assert export.to_json()["practice"] is True
    result = await result_message(world, 0)
    assert "Review my play" in result.visible_text  # practice deals can be reviewed too


async def test_a_hint_from_the_hand_in_the_channel(fake_discord: FakeDiscord, world: Table) -> None:
    coach_settings(world)
    hidden = world.add_player("hilde", dms_open=False)
    await world.start_bot()
    await world.no_ai_delay()
    table = await open_dealt_table(world, hidden, [None, None, None], practice=True)

    # hilde asks for her hand with "My hand" on her turn (world.play does); it shows the Hint button there.
    await world.play(
        [hidden],
        until=lambda t: any(
            b.get("label") == "Hint" and ButtonId.parse(b["custom_id"]).version == t.version  # type: ignore[union-attr]
            for m in fake_discord.ephemeral_messages(hidden)
            for b in m.buttons
        ),
    )
    hand = world.hand_message(hidden)
    assert hand is not None and hand.ephemeral
    assert world.bot is not None
    record = (await world.bot.service.queries.export_record(table.id)).to_json()
    hint = await fake_discord.click(hidden, hand, label="Hint")
    text = await answer_text(hint)
    expected = await engine_ai(record)
    best = engine.parse_action(expected["action"])[1]
    assert f"The AI would choose **{action_name(table.row.deck, 'en', best)}**." in text
    assert fake_discord.dm_messages(hidden) == []
