"""The hand model is what a hand message shows: the payload draws exactly the model, and a hand is edited
when its model changes, so a move that changes nothing a seat sees leaves that seat's DM alone while a move
that gives it its turn does not."""

from __future__ import annotations

import asyncio
import itertools
import json
import random

import engine
from bot.db import SeatRow, TableRow
from bot.game.table import TableSnapshot, seats_by_number
from bot.schnapsen import payloads
from bot.schnapsen.components import GameActionButton
from bot.schnapsen.handmodel import HandModel, hand_model

RULES = engine.STANDARD


def table_at(deal: engine.DealState, version: int, *, practice: bool = False) -> TableSnapshot:
    row = TableRow(
        id=7, guild_id=1, channel_id=2, host_id=101, status="playing",
        rules_json=json.dumps(engine.ruleset_to_json(RULES)), deck="french", turn_seconds=90, language="en",
        table_message_id=None, version=version, first_dealer=0, created_at=0, updated_at=0, practice=practice,
    )  # fmt: skip
    seats = seats_by_number(SeatRow(7, s, 100 + s, f"Player {s}", False, None, None, False, False) for s in range(4))
    return TableSnapshot(row, seats, RULES, engine.new_match(RULES, 0), deal, 0)


def positions(seed: int) -> list[TableSnapshot]:
    """Every position of one deal played with random legal moves, as the service publishes them."""
    rng = random.Random(seed)
    state = engine.new_deal(RULES, 0, engine.deal_hands(seed, 0))
    found = [table_at(state, 0)]
    while not state.finished:
        assert state.to_act is not None
        state, _ = engine.apply(state, state.to_act, rng.choice(engine.legal_actions(state)))
        found.append(table_at(state, len(found)))
    return found


def model(table: TableSnapshot, seat: int) -> HandModel:
    return hand_model(table, seat, "en", "Wirtshaus · #schnapsen")


def test_a_hand_changes_with_what_its_owner_sees_and_only_then() -> None:
    unchanged = changed = 0
    for seed in range(5):
        tables = positions(seed)
        for before, after in itertools.pairwise(tables):
            for seat in range(4):
                same = model(before, seat) == model(after, seat)
                deal_before, deal_after = before.deal, after.deal
                assert deal_before is not None and deal_after is not None
                turn_came_or_went = (deal_before.to_act == seat) != (deal_after.to_act == seat)
                hand_moved = deal_before.hands[seat] != deal_after.hands[seat]
                if turn_came_or_went or hand_moved or deal_after.finished:
                    assert not same, (seed, seat, deal_after.phase)
                    changed += 1
                elif deal_after.phase == engine.PLAY and deal_before.phase == engine.PLAY:
                    # A card another seat played, a trick taken by others, the next trick led: the table
                    # message shows them; a waiting seat's DM is not edited for them.
                    assert same, (seed, seat)
                    unchanged += 1
    assert unchanged and changed  # both cases were met


def test_the_buttons_carry_the_position_only_on_the_owners_turn() -> None:
    tables = positions(3)
    for table in tables:
        deal = table.deal
        assert deal is not None
        for seat in range(4):
            shown = model(table, seat)
            if deal.to_act == seat:
                assert shown.version == table.version and shown.moves
            else:
                assert shown.version is None and not shown.moves


def test_the_payload_shows_exactly_the_model() -> None:
    table = next(t for t in positions(2) if t.deal is not None and t.deal.phase == engine.PLAY)
    assert table.deal is not None and table.deal.to_act is not None
    seat = table.deal.to_act
    shown = model(table, seat)
    payload = asyncio.run(payloads.hand_message(shown))
    [embed] = payload.embeds
    assert (embed.title, embed.description) == (shown.title, shown.description)
    assert [(f.name, f.value, f.inline) for f in embed.fields] == list(shown.fields)
    assert payload.view is not None
    buttons = [item for item in payload.view.children if isinstance(item, GameActionButton)]
    assert [b.custom_id for b in buttons] == [str(GameActionButton.id_of(7, table.version, m.action)) for m in shown.moves]
    assert [b.item.disabled for b in buttons] == [m.disabled for m in shown.moves]
    assert any(m.disabled for m in shown.moves) or all(not b.item.disabled for b in buttons)
    assert set(payload.images) == {"hand.png"}
