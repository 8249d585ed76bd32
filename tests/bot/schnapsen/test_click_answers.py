"""Every click shows at once, and only what is stored is acknowledged (issue 35): a move's click is answered
after its commit, in the interaction's own callback (type 7), with the clicked message as the move left it; a
click whose move is not stored is never acknowledged; the table message leaves the lobby at once."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

import discord
import pytest

from bot.client import SchnapsenBot
from bot.game.ai import AiPlayers
from bot.game.subscribers.announcing import owed
from bot.game.table import TableSnapshot
from bot.schnapsen import clickanswers, payloads
from bot.schnapsen.clickanswers import drawn_first
from bot.schnapsen.content import DRAW_FIRST, rendered
from bot.schnapsen.ids import ButtonId
from bot.schnapsen.pacing import URGENT
from devtools.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.bot.schnapsen.harness import (
    CurrentTable,
    Table,
    another_card,
    as_shown,
    current_button,
    ephemeral_reply,
    with_button,
)
from tests.bot.schnapsen.test_faults import FAST_RETRIES, alice_and_three_ai

UPDATE_MESSAGE = 7


@pytest.fixture
def world(world: Table) -> Table:
    world.settings = dataclasses.replace(world.settings, **FAST_RETRIES)
    return world


async def alices_turn(world: Table, table: CurrentTable, alice: FakeUser) -> tuple[Any, dict[str, Any]]:
    """Alice's hand once it offers her a move, and its first button. A short Bummerl may end on any deal the
    cards make: then she plays on in a rematch rather than the test depending on how the deal went."""
    await world.play([alice], until=lambda t: current_button(world.hand_message(alice), t.version) is not None)
    if table.status == "finished":
        await world.rematch(alice)
        await world.play([alice], until=lambda t: current_button(world.hand_message(alice), t.version) is not None)
    hand = world.hand_message(alice)
    button = current_button(hand, table.version)
    assert hand is not None and button is not None
    return hand, button


def bot_token_edits(fake: FakeDiscord, message_id: int, since: int) -> list[Any]:
    return [r for r in fake.requests[since:] if r.method == "PATCH" and r.path.endswith(f"/messages/{message_id}")]


def held_commits(bot: SchnapsenBot) -> tuple[asyncio.Event, asyncio.Event, list[BaseException]]:
    """Hold the service's next commit of a move until ``release`` is set (raising what ``fail`` holds then):
    returns (entered, release, fail)."""
    entered, release, fail = asyncio.Event(), asyncio.Event(), []
    commit = bot.service._commit_action

    async def held(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        await release.wait()
        if fail:
            raise fail[0]
        return await commit(*args, **kwargs)

    bot.service._commit_action = held  # type: ignore[method-assign]
    return entered, release, fail


async def test_a_card_click_is_answered_with_the_hand_the_stored_move_made(
    fake_discord: FakeDiscord, world: Table
) -> None:
    alice, _, table = await alice_and_three_ai(world, target=3)
    hand, button = await alices_turn(world, table, alice)
    actions, since = await world.action_count(table.id), len(fake_discord.requests)

    click = await fake_discord.click(alice, hand, button["custom_id"])
    response = await click.wait_response()

    assert response.type == UPDATE_MESSAGE, "the clicked DM is updated in the click's own answer"
    shown = [b["custom_id"] for row in response.data["components"] for b in row["components"]]
    assert button["custom_id"] not in shown, "the answer shows the hand after the move"
    assert await world.action_count(table.id) > actions, "the answer came after the move was stored"
    assert bot_token_edits(fake_discord, hand.id, since) == [], "no bot-token edit of the clicked DM"


async def test_a_click_whose_answer_is_not_drawn_in_time_is_acknowledged_and_its_hand_edited(
    fake_discord: FakeDiscord, world: Table, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    alice, _, table = await alice_and_three_ai(world, target=3)
    hand, button = await alices_turn(world, table, alice)
    drawn, never = payloads.hand_message, asyncio.Event()

    async def stuck_answer(model: Any) -> Any:  # the click's own answer is never drawn; every other hand is
        if DRAW_FIRST.get():
            await never.wait()
        return await drawn(model)

    monkeypatch.setattr(payloads, "hand_message", stuck_answer)
    monkeypatch.setattr(clickanswers, "ANSWER_BUDGET", 0.05)
    clicked_at = table.version
    click = await fake_discord.click(alice, hand, button["custom_id"])

    assert (await click.wait_response()).type == 6, "acknowledged with a deferred update once its time was up"
    await fake_discord.wait_for(
        lambda: current_button(world.hand_message(alice), clicked_at) is None, what="the hand edited"
    )
    assert "drawing the answer to a click took too long" in caplog.text


async def test_a_click_is_not_acknowledged_before_its_move_is_stored(fake_discord: FakeDiscord, world: Table) -> None:
    alice, bot, table = await alice_and_three_ai(world, target=3)
    hand, button = await alices_turn(world, table, alice)
    actions = await world.action_count(table.id)
    entered, release, fail = held_commits(bot)

    click = await fake_discord.click(alice, hand, button["custom_id"])
    await entered.wait()
    await asyncio.sleep(0)  # let any acknowledgement already on its way reach the fake
    assert click.response is None, "nothing is acknowledged while the move is not committed"

    fail.append(OSError("disk I/O error"))  # the commit fails: the person is told, nothing was acknowledged
    release.set()
    assert "went wrong" in (await ephemeral_reply(click)).lower() or click.response_type == 4
    assert click.response_type == 4
    assert await world.action_count(table.id) == actions


async def test_a_stop_between_the_commit_and_the_answer_leaves_the_click_unacknowledged_and_the_move_done(
    fake_discord: FakeDiscord, world: Table
) -> None:
    """The process dies at the instant between the commit and the answer: the person sees "interaction failed"
    (no acknowledgement), and after the restart their hand shows the move: honest both ways."""
    alice, bot, table = await alice_and_three_ai(world, target=3)
    hand, button = await alices_turn(world, table, alice)
    actions = await world.action_count(table.id)
    committed, never = asyncio.Event(), asyncio.Event()

    async def dies(*args: Any, **kwargs: Any) -> None:
        committed.set()
        await never.wait()

    bot.runtime.messages.answers.answer_move = dies  # type: ignore[method-assign]
    click = await fake_discord.click(alice, hand, button["custom_id"])
    await committed.wait()
    await world.stop_bot()

    assert click.response is None, "the click was never acknowledged"
    await world.start_bot()
    assert await world.action_count(table.id) > actions, "and its move is stored (the AI plays on after it)"
    await fake_discord.wait_for(
        lambda: all(b.get("custom_id") != button["custom_id"] for b in (world.hand_message(alice) or hand).buttons),
        what="the hand to show the stored move after the restart",
    )


@pytest.mark.usefixtures("patient_repeats")
async def test_a_refused_click_is_answered_with_the_refusal_alone(fake_discord: FakeDiscord, world: Table) -> None:
    alice, bot, table = await alice_and_three_ai(world, target=3)
    hand, button = await alices_turn(world, table, alice)
    await world.click_and_settle(alice, hand, button["custom_id"])
    built: list[discord.Interaction[Any]] = []

    async def interaction_built(interaction: discord.Interaction[Any]) -> None:
        built.append(interaction)

    bot.add_listener(interaction_built, "on_interaction")
    # Another card of the position just left, from a client that still shows it: the refusal is the click's
    # only answer (the AI plays on meanwhile, so the record is checked by the tests of forged clicks).
    stale = another_card(button["custom_id"], table.deal.hands[table.seat_of(alice.id)])
    refused = await fake_discord.click(alice, with_button(hand, stale), stale)
    assert "out of date" in (await ephemeral_reply(refused)).lower()
    assert refused.response_type == 4 and not refused.followups
    # Quick clickers click again about as often as they move: such a click is answered from Discord's payload,
    # in the person's language, before discord.py builds an interaction, a message and a view for it; the same
    # card again is acknowledged (its move was made) and shows nothing more.
    german = await fake_discord.click(alice, with_button(hand, stale), stale, locale="de")
    assert "veraltet" in (await ephemeral_reply(german)).lower()
    again = await fake_discord.click(alice, with_button(hand, button["custom_id"]), button["custom_id"])
    await again.wait_response()
    assert again.response_type == 6 and not again.followups
    assert built == []


async def a_quickly_filled_lobby(world: Table) -> tuple[FakeUser, CurrentTable]:
    """A host adds three AI players in quick succession, with the edits paced as shipped (a lobby's quick edits
    once held a deal's first picture back by 15 s: five of the table message's 3-second intervals)."""
    world.settings = dataclasses.replace(world.settings, edit_interval=1.0)
    host = world.add_player("host")
    await world.start_bot()
    await world.no_ai_delay()
    return host, await world.open_table(host, [None, None, None], start=False)


async def test_after_quick_lobby_clicks_start_shows_the_deal_in_its_own_answer(
    fake_discord: FakeDiscord, world: Table
) -> None:
    host, table = await a_quickly_filled_lobby(world)

    start = await fake_discord.click(host, await world.table_message(), label="Start")
    response = await start.wait_response()

    assert response.type == UPDATE_MESSAGE, "the table message is updated in the Start click's own answer"
    labels = [b.get("label") for row in response.data["components"] for b in row["components"]]
    assert "My hand" in labels and "Start" not in labels, "it shows the deal, not the lobby"
    assert table.status == "playing"


async def test_after_quick_lobby_clicks_a_start_command_shows_the_deal_at_once(world: Table) -> None:
    host, _ = await a_quickly_filled_lobby(world)

    await world.command(host, "start")
    # The deal's first picture is not held back by the burst rule (the wait's 5 s default would catch that).
    await world.table_message(lambda m: any(b.get("label") == "My hand" for b in m.buttons))


async def test_a_clicks_answer_is_drawn_on_a_thread_of_its_own_never_behind_the_others() -> None:
    def thread_name() -> bytes:
        return threading.current_thread().name.encode()

    answer = await drawn_first(rendered(thread_name))  # type: ignore[arg-type]
    assert answer.decode().startswith("render-answer_"), "a click's answer is drawn on a thread of its own"
    urgent = URGENT.set(True)
    try:
        turn = await rendered(thread_name)  # type: ignore[arg-type]
    finally:
        URGENT.reset(urgent)
    assert turn.decode().startswith("render-first_"), "a person's turn on the first pool"
    assert (await rendered(thread_name)).decode().startswith("render_"), "the others on the shared pool"


async def test_a_clicks_answer_is_drawn_while_its_move_is_stored_and_only_once(
    fake_discord: FakeDiscord, world: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A card leaves the hand: the hand without it is a new picture, begun while the move is being stored, and
    the answer after the commit takes that drawing instead of drawing it again."""
    alice, bot, table = await alice_and_three_ai(world, target=3)

    def card_to_play(t: TableSnapshot) -> bool:  # not her last card: the deal's last word may show no picture
        button = current_button(world.hand_message(alice), t.version)
        clicked = None if button is None else ButtonId.parse(button["custom_id"])
        seat = t.seat_of(alice.id)
        return clicked is not None and clicked.verb == "play" and t.deal is not None and seat is not None and (
            len(t.deal.hands[seat]) > 1
        )

    await world.play([alice], until=card_to_play)
    if table.status == "finished":
        await world.rematch(alice)
        await world.play([alice], until=card_to_play)
    hand = world.hand_message(alice)
    button = current_button(hand, table.version)
    assert hand is not None and button is not None
    loop = asyncio.get_running_loop()
    drawn: list[tuple[Any, ...]] = []
    begun, release = asyncio.Event(), asyncio.Event()
    for kept in (payloads._hand_png, payloads._turn_png):  # whichever her hand shows after the move

        def counted(*args: Any, draw: Any = kept.draw) -> bytes:
            drawn.append(args)
            loop.call_soon_threadsafe(begun.set)
            return draw(*args)

        monkeypatch.setattr(kept, "draw", counted)
    store = bot.service.store

    async def held_store(*args: Any, **kwargs: Any) -> Any:
        await release.wait()
        return await store(*args, **kwargs)

    bot.service.store = held_store  # type: ignore[method-assign]
    click = await fake_discord.click(alice, hand, button["custom_id"])
    # Bounded only so that a bot that draws after the commit fails here instead of hanging (the commit waits).
    await asyncio.wait_for(begun.wait(), 10)
    assert click.response is None, "the drawing began while the move was not yet stored"

    release.set()
    response = await click.wait_response()
    assert response.type == UPDATE_MESSAGE
    assert len(drawn) == len(set(drawn)), "the answer joined the drawing begun ahead: nothing drawn twice"


async def test_a_new_deals_hands_go_out_at_once_first_to_whoever_acts_first(world: Table) -> None:
    """Each hand DM of a new deal is a round trip to Discord: sent one after the other, the fourth came four
    round trips after the deal. Here the first person's send is held until the other three have theirs."""
    people = [world.add_player(name) for name in ("anna", "bert", "cilli", "dieter")]
    bot = await world.start_bot()
    hands, order = bot.runtime.messages.hands, []
    send, the_others_sent = hands._send, asyncio.Event()

    async def held_send(table: Any, seat: int) -> None:
        order.append(seat)
        if len(order) == 1:  # waits for the other three (for ever, were they waiting for it)
            await asyncio.wait_for(the_others_sent.wait(), 5)
            await send(table, seat)
            return
        await send(table, seat)
        if len(order) == 4 and sum(world.hand_message(p) is not None for p in people) == 3:
            the_others_sent.set()

    hands._send = held_send  # type: ignore[method-assign]
    table = await world.open_table(people[0], people[1:], target=5)
    await world.fake.wait_for(lambda: all(world.hand_message(p) is not None for p in people), what="four hands")

    assert sorted(order) == [0, 1, 2, 3]
    deal = table.deal
    assert deal is not None and order[0] == deal.to_act, "whoever acts first is asked first"


async def test_a_move_that_owes_nothing_does_not_look_at_the_outbox(fake_discord: FakeDiscord, world: Table) -> None:
    """Most moves owe no announcement: once the outbox was found empty, such a change does not look at storage
    again; a change that owes something (a deal's result) always does."""
    alice, bot, table = await alice_and_three_ai(world, target=3)
    hand, button = await alices_turn(world, table, alice)
    messages = bot.runtime.messages
    await messages.sends.settled(("outbox", table.id))
    looks, changes, owing = [], [], []
    look = bot.service.outbox.pending_announcements

    async def counted(*args: Any, **kwargs: Any) -> Any:
        looks.append(args)
        return await look(*args, **kwargs)

    async def table_changed(before: Any, after: Any, events: Any) -> None:
        changes.append(events)
        if owed(after.row, events):
            owing.append(events)

    bot.service.outbox.pending_announcements = counted  # type: ignore[method-assign]
    bot.add_listener(table_changed, "on_table_changed")
    await world.click_and_settle(alice, hand, button["custom_id"])
    await alices_turn(world, table, alice)  # the three AI players have moved too
    await messages.sends.settled(("outbox", table.id))

    assert len(changes) > len(owing), "moves that owe nothing were made"
    assert len(looks) <= len(owing), "only a change that owes something looks at the outbox"


async def test_a_look_at_the_outbox_that_a_change_owing_something_overtook_does_not_mark_it_empty(
    fake_discord: FakeDiscord, world: Table
) -> None:
    """A look that began before a change owing something was published may not see what it stored: finding
    nothing then proves nothing, and the look after it still comes."""
    alice, bot, table = await alice_and_three_ai(world, target=3)
    await alices_turn(world, table, alice)
    messages, key = bot.runtime.messages, ("outbox", table.id)
    await messages.sends.settled(key)
    entered = [asyncio.Event(), asyncio.Event()]
    release = [asyncio.Event(), asyncio.Event()]
    look = bot.service.outbox.pending_announcements

    async def held(*args: Any, **kwargs: Any) -> Any:
        looked = sum(event.is_set() for event in entered)
        entered[looked].set()
        await release[looked].wait()
        return [] if looked == 0 else await look(*args, **kwargs)

    bot.service.outbox.pending_announcements = held  # type: ignore[method-assign]
    messages.deliver(table.id)
    await entered[0].wait()
    messages.deliver(table.id)  # a change that owes something, stored while the first look runs
    release[0].set()
    await entered[1].wait()
    assert not messages.memory(table.id).outbox_empty, "the overtaken look found nothing, which proves nothing"
    release[1].set()
    await messages.sends.settled(key)
    assert messages.memory(table.id).outbox_empty, "a look that nothing overtook found it empty"


# A second click whose answer Discord does not take: a refusal (another card of the position left), or the
# acknowledgement of a repeat (the same card again): (its logger, its line).
LOST_ANSWERS = {
    "refusal": ("bot.schnapsen.replies", "could not answer"),
    "repeat": ("bot.schnapsen.routing", "could not acknowledge a repeated click"),
}


@contextlib.contextmanager
def watching(logger: str, line: str) -> Iterator[asyncio.Event]:
    """An event set once ``logger`` logs a line containing ``line``: the log is the bot's, not the fake's, so the
    fake's waits cannot see it."""
    logged = asyncio.Event()

    class Watch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if line in record.getMessage():
                logged.set()

    watch = Watch()
    logging.getLogger(logger).addHandler(watch)
    try:
        yield logged
    finally:
        logging.getLogger(logger).removeHandler(watch)


@pytest.mark.usefixtures("patient_repeats")
@pytest.mark.parametrize("answer", sorted(LOST_ANSWERS))
async def test_a_refusal_discord_does_not_take_is_logged_and_play_goes_on(
    fake_discord: FakeDiscord, world: Table, caplog: pytest.LogCaptureFixture, answer: str
) -> None:
    logger, line = LOST_ANSWERS[answer]
    caplog.set_level(logging.WARNING, logger=logger)
    alice, _, table = await alice_and_three_ai(world, target=3)
    hand, button = await alices_turn(world, table, alice)
    stale = another_card(button["custom_id"], table.deal.hands[table.seat_of(alice.id)])
    second = stale if answer == "refusal" else button["custom_id"]
    await world.click_and_settle(alice, hand, button["custom_id"])

    # A second click on the position left, whose token expired before its answer reached Discord (Unknown
    # interaction): nothing depends on that answer.
    fake_discord.fail_next("POST", "/interactions/*/*/callback", status=404, code=10062, message="Unknown interaction")
    with watching(logger, line) as logged:
        await fake_discord.click(alice, with_button(hand, second), second)
        await fake_discord.wait_event(logged, what=f"the lost {answer} to be logged")

    hand, button = await alices_turn(world, table, alice)
    click = await fake_discord.click(alice, hand, button["custom_id"])
    assert (await click.wait_response()).type == UPDATE_MESSAGE, "the next move is answered as ever"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], f"a lost {answer} is no error of the bot"


@pytest.mark.usefixtures("patient_repeats")
async def test_a_repeat_that_waited_for_its_move_and_cannot_be_acknowledged_is_logged_and_play_goes_on(
    fake_discord: FakeDiscord, world: Table, caplog: pytest.LogCaptureFixture
) -> None:
    """A second click that reached the table while its first was being stored waits for that move at the table,
    then is acknowledged as its repeat by its button; an acknowledgement Discord no longer takes (the click's
    three seconds went by while it waited) is logged, and is no error of the bot."""
    caplog.set_level(logging.WARNING, logger="bot.schnapsen.components")
    alice, bot, table = await alice_and_three_ai(world, target=3)
    hand, button = await alices_turn(world, table, alice)
    entered, release, _ = held_commits(bot)
    both_acting, act, acts = asyncio.Event(), bot.service.act, []

    async def counted(*args: Any, **kwargs: Any) -> Any:
        acts.append(args)
        if len(acts) == 2:
            both_acting.set()
        return await act(*args, **kwargs)

    bot.service.act = counted  # type: ignore[method-assign]
    first = await fake_discord.click(alice, hand, button["custom_id"])
    await fake_discord.wait_event(entered, what="the first click's move to be on its way to storage")
    second = await fake_discord.click(alice, hand, button["custom_id"])
    fake_discord.fail_next(
        "POST", f"/interactions/{second.id}/*/callback", status=404, code=10062, message="Unknown interaction"
    )
    with watching("bot.schnapsen.components", "could not acknowledge a repeated click") as logged:
        # Its move not stored yet, the second click is not known as a repeat before it is parsed: its button
        # waits at the table for the first.
        await fake_discord.wait_event(both_acting, what="the second click to wait for the first at the table")
        release.set()
        assert (await first.wait_response()).type == UPDATE_MESSAGE
        await fake_discord.wait_event(logged, what="the lost acknowledgement of the repeat to be logged")
    assert second.response is None, "Discord took no answer for it"

    hand, button = await alices_turn(world, table, alice)
    click = await fake_discord.click(alice, hand, button["custom_id"])
    assert (await click.wait_response()).type == UPDATE_MESSAGE, "the next move is answered as ever"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], "a lost acknowledgement is no error"


async def alice_moved_on_her_hand_in_the_channel(
    fake_discord: FakeDiscord, world: Table, before_her_move: Callable[[], None] = lambda: None
) -> tuple[FakeUser, CurrentTable, FakeMessage, dict[str, Any], list[Any]]:
    """alice (DMs closed: her hand is shown in the channel, only to her) and three AI seats; she has made her
    first move on her hand: (alice, table, her hand, the button she clicked, the hand's buttons before)."""
    alice = world.add_player("alice")
    fake_discord.close_dms(alice)
    await world.start_bot()
    await world.no_ai_delay()
    table = await world.open_table(alice, [None, None, None], target=3)
    hand, button = await alices_turn(world, table, alice)
    assert hand.ephemeral
    shown = copy.deepcopy(hand.components)
    before_her_move()
    moves = await world.action_count(table.id)
    await world.click_and_settle(alice, hand, button["custom_id"])
    assert await world.action_count(table.id) > moves
    return alice, table, hand, button, shown


@pytest.mark.usefixtures("patient_repeats")
async def test_a_repeated_click_on_a_hand_in_the_channel_is_answered_with_the_hand_as_it_stands(
    fake_discord: FakeDiscord, world: Table
) -> None:
    alice, _, hand, button, shown = await alice_moved_on_her_hand_in_the_channel(fake_discord, world)

    # The same card again, from a client that still shows the hand as it was (the first answer lost, say):
    # the bot may have no other way to edit that message, so the click's own answer shows the hand as it stands.
    again = await fake_discord.click(alice, as_shown(hand, shown), button["custom_id"])
    assert (await again.wait_response()).type == UPDATE_MESSAGE and not again.followups
    assert button["custom_id"] not in {b.get("custom_id") for b in hand.buttons}


async def test_a_click_on_a_position_left_on_a_hand_in_the_channel_shows_the_hand_as_it_stands_and_says_so(
    fake_discord: FakeDiscord, world: Table
) -> None:
    """Only a click can edit a hand in the channel once its token is forgotten (a restart, say): a click on a
    position left is answered with the hand as it stands, saying why, instead of an "out of date" that sends
    its person to ask for a new hand."""
    alice, table, hand, button, shown = await alice_moved_on_her_hand_in_the_channel(fake_discord, world)

    # Another card of the position she left, from a client still showing the hand as it was.
    stale = another_card(button["custom_id"], table.deal.hands[table.seat_of(alice.id)])
    late = await fake_discord.click(alice, with_button(as_shown(hand, shown), stale), stale)
    response = await late.wait_response()
    assert response.type == UPDATE_MESSAGE and not late.followups, "the hand itself answers, no refusal beside it"
    description = response.data["embeds"][0]["description"]
    assert description.startswith("That button was out of date"), description
    offered = {b.get("custom_id") for b in hand.buttons}
    assert stale not in offered and button["custom_id"] not in offered, "the hand shows the table as it stands"


async def test_after_a_restart_a_click_on_an_old_hand_in_the_channel_corrects_it(
    fake_discord: FakeDiscord, world: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A restart forgets the click tokens that edit hands in the channel: a hand whose last answer did not reach
    its person's client still offers the card they played. Clicked again after the restart, it is no repeat the
    bot remembers, and the click's answer shows the hand as it stands, saying the button was out of date."""
    # The AI seats wait from her move on: a deal she sits out (her partner's Bettler) would otherwise be played
    # to its end, and with it the Bummerl, before her click, which then finds no deal running.
    holding, never = False, asyncio.Event()
    decide = AiPlayers.decide

    async def held(self: AiPlayers, *args: Any, **kwargs: Any) -> Any:
        if holding:
            await never.wait()
        return await decide(self, *args, **kwargs)

    def hold() -> None:
        nonlocal holding
        holding = True

    monkeypatch.setattr(AiPlayers, "decide", held)
    alice, _, hand, button, shown = await alice_moved_on_her_hand_in_the_channel(fake_discord, world, hold)
    await world.stop_bot()
    await world.start_bot()

    again = await fake_discord.click(alice, as_shown(hand, shown), button["custom_id"])
    response = await again.wait_response()
    assert response.type == UPDATE_MESSAGE and not again.followups
    assert response.data["embeds"][0]["description"].startswith("That button was out of date")
    assert button["custom_id"] not in {b.get("custom_id") for b in hand.buttons}
