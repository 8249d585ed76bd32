"""Nothing hidden leaks: over random deals of every contract, the table message never names a card still held
(except the turned-up Aufschlag card), and a player's private hand message never names another seat's card
that seat still holds. Checked on the words people read: embed text and image alt texts."""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import replace

import pytest

import engine
from bot import render
from bot.db import SeatRow, TableRow
from bot.game.table import TableSnapshot, log_events, seats_by_number
from bot.schnapsen import payloads


def table_for(rules: engine.Ruleset, deck: str, lang: str) -> TableSnapshot:
    row = TableRow(
        id=3, guild_id=1, channel_id=2, host_id=11, status="playing", rules_json=json.dumps(rules.preset),
        deck=deck, turn_seconds=90, language=lang, table_message_id=None, version=0, first_dealer=0,
        created_at=0, updated_at=0,
    )  # fmt: skip
    seats = seats_by_number(SeatRow(3, seat, 11 + seat, f"P{seat}", False, None, None, False, False) for seat in range(4))
    return TableSnapshot(row, seats, rules, engine.new_match(rules, 0))


def words(payload: payloads.Payload) -> str:
    parts: list[str] = [payload.content or "", *payload.alt.values()]
    for embed in payload.embeds:
        data = embed.to_dict()
        parts += [data.get("title", ""), data.get("description", ""), data.get("footer", {}).get("text", "")]
        parts += [field["name"] + "\n" + field["value"] for field in data.get("fields", [])]
    if payload.view is not None:
        parts += [str(getattr(item, "label", "")) for item in payload.view.children]
    return "\n".join(parts)


def named(text: str, cards: set[str], deck: str, lang: str) -> set[str]:
    return {card for card in cards if render.card_name(card, deck, lang) in text}


@pytest.mark.parametrize(("deck", "lang"), [("doppeldeutsch", "de"), ("french", "en")])
def test_messages_never_name_a_hidden_card(monkeypatch: pytest.MonkeyPatch, deck: str, lang: str) -> None:
    for name in ("render_table", "render_hand", "render_result"):  # only the words matter here
        monkeypatch.setattr(render, name, lambda *args, **kwargs: b"png")
    rng = random.Random(5)
    checked = 0
    for seed in range(40):
        rules = engine.STARGAMES if seed % 3 == 0 else engine.STANDARD
        table = replace(table_for(rules, deck, lang), deal=engine.new_deal(rules, seed % 4, engine.deal_hands(seed, seed % 4)))
        while True:
            deal = table.deal
            held = [set(hand) for hand in deal.hands]
            public = {deal.aufschlag_card} if deal.aufschlag_card else set()
            shown = words(asyncio.run(payloads.table_payload(table, lang)))
            assert not named(shown, set().union(*held) - public, deck, lang), "the table message leaks"
            for seat in range(4):
                private = words(asyncio.run(payloads.hand_payload(table, seat, lang, "here")))
                others = set().union(*(held[s] for s in range(4) if s != seat)) - public
                assert not named(private, others, deck, lang), f"seat {seat}'s hand message leaks"
            checked += 1
            if deal.finished:
                break
            actions = engine.legal_actions(deal)
            # Steer towards contracts: bid now and then, so every kind of deal is seen.
            bids = [a for a in actions if isinstance(a, engine.Bid)]
            action = rng.choice(bids) if bids and rng.random() < 0.3 else rng.choice(actions)
            after, events = engine.apply(deal, deal.to_act, action)
            table = replace(table, deal=after, log=log_events(table.log, events))
    assert checked > 500


def test_the_views_the_ai_is_given_are_the_seats_own() -> None:
    """The bot hands the AI ``view_for(deal, seat)``; that view holds no other seat's held card."""
    state = engine.new_deal(engine.STANDARD, 0, engine.deal_hands(8, 0))
    rng = random.Random(8)
    while not state.finished:
        seat = state.to_act
        view = engine.view_for(state, seat)
        text = repr(view)
        for other in range(4):
            if other != seat:
                for card in state.hands[other]:
                    if card != state.aufschlag_card and card not in view.hand:
                        assert f"'{card}'" not in text.replace(repr(view.rules), "")
        state, _ = engine.apply(state, seat, rng.choice(engine.legal_actions(state)))
