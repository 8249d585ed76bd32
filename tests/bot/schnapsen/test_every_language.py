"""The bot's messages in every language, built by the real texts and payloads for whole Bummerl of random play, and
the /schnapsen rules embed through the real command: no text is missing, every limit of Discord holds."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import discord
import pytest

import engine
from bot import render
from bot.db import SeatRow, TableRow
from bot.game.table import TableSnapshot, log_events, logged, seats_by_number
from bot.i18n import LANGUAGES, catalogue
from bot.schnapsen import answers, handmodel, payloads, texts
from bot.schnapsen.cog import SchnapsenCog
from bot.settings import Settings

LOCALES = {
    "en": discord.Locale.british_english,
    "de": discord.Locale.german,
    "nl": discord.Locale.dutch,
    "tr": discord.Locale.turkish,
}
# Long display names (Discord allows 32 characters), one AI seat and one idle human the AI plays for.
PLAYERS = (
    (101, "Maximilian Oberhuber-Schwarz", False),
    (None, "KI", False),
    (103, "Anneliese van der Westhuizen", False),
    (104, "Mehmet Ali Karaosmanoğlu", True),
)
LIMITS = {
    "title": 256,
    "description": 4096,
    "field_name": 256,
    "field_value": 1024,
    "footer": 2048,
    "total": 6000,
}


@pytest.fixture
def used_keys(monkeypatch: pytest.MonkeyPatch) -> set[tuple[str, str]]:
    """Every (lang, key) the texts and payloads ask for; a key the language lacks fails at once, not via
    English."""
    used: set[tuple[str, str]] = set()
    real_t = texts.t

    def checked_t(lang: str, key: str, /, **values: object) -> str:
        texts_of_lang = catalogue(lang)
        assert key in texts_of_lang or f"{key}.other" in texts_of_lang, f"{lang} has no text for {key!r}"
        used.add((lang, key))
        return real_t(lang, key, **values)

    monkeypatch.setattr(texts, "t", checked_t)
    for module in (payloads, handmodel, answers):
        monkeypatch.setattr(module, "t", checked_t)
    return used


@pytest.fixture
def no_pixels(monkeypatch: pytest.MonkeyPatch) -> None:
    """Drawing is tested in tests/bot/render; here only the words count (alt texts are still built for real)."""
    for name in ("render_table", "render_hand", "render_result"):
        monkeypatch.setattr(render, name, lambda *args, **kwargs: b"png")


def new_table(lang: str, deck: str, rules: engine.Ruleset) -> TableSnapshot:
    row = TableRow(
        id=7, guild_id=1, channel_id=2, host_id=101, status="playing",
        rules_json=json.dumps(engine.ruleset_to_json(rules)), deck=deck, turn_seconds=90, language=lang,
        table_message_id=None, version=0, first_dealer=0, created_at=0, updated_at=0,
    )  # fmt: skip
    seats = seats_by_number(
        SeatRow(7, seat, user_id, name, idle, None, None, False, False)
        for seat, (user_id, name, idle) in enumerate(PLAYERS)
    )
    return TableSnapshot(row, seats, rules, engine.new_match(rules, 0))


def check_embed(embed: discord.Embed) -> None:
    assert len(embed.title or "") <= LIMITS["title"]
    assert len(embed.description or "") <= LIMITS["description"]
    assert len(embed.footer.text or "") <= LIMITS["footer"]
    for field in embed.fields:
        assert 0 < len(field.name or "") <= LIMITS["field_name"], field.name
        assert 0 < len(field.value or "") <= LIMITS["field_value"], field.value
    assert len(embed) <= LIMITS["total"]


def check_payload(payload: payloads.Payload) -> None:
    for embed in payload.embeds:
        check_embed(embed)
    for alt in payload.alt.values():
        assert alt
    if payload.view is not None:
        for item in payload.view.children:
            button = item.item if isinstance(item, discord.ui.DynamicItem) else item  # the buttons are dynamic
            assert isinstance(button, discord.ui.Button)
            assert button.label and len(button.label) <= 80, button.label


def random_move(state: engine.DealState, rng: random.Random) -> engine.Action:
    """Any legal move, but passing more often than not, so normal games and small contracts come up too."""
    legal = engine.legal_actions(state)
    if engine.PASS in legal and rng.random() < 0.8:
        return engine.PASS
    return rng.choice(legal)


def check_action_labels(table: TableSnapshot, lang: str, state: engine.DealState) -> None:
    for action in engine.legal_actions(state):
        label = texts.action_label(table, lang, action)
        assert 0 < len(label) <= 80, label


async def show_everything(table: TableSnapshot, lang: str) -> None:
    check_payload(await payloads.table_payload(table, lang))
    for seat in range(4):
        check_payload(await payloads.hand_payload(table, seat, lang, "Wirtshaus · #schnapsen"))


async def play_a_bummerl(
    table: TableSnapshot, lang: str, rng: random.Random
) -> tuple[TableSnapshot, set[str]]:
    """Deal and play random legal moves until a team wins the Bummerl; show every position. Returns the
    table at the end and the contracts played."""
    contracts = set()
    while True:
        dealer = table.match.next_dealer
        state = engine.new_deal(table.rules, dealer, engine.deal_hands(rng.randrange(2**32), dealer))
        table = replace(
            table, deal=state, deal_no=table.deal_no + 1, log=logged(table.log, "log.new_deal", dealer=dealer)
        )
        while not state.finished:
            await show_everything(table, lang)
            check_action_labels(table, lang, state)
            assert state.to_act is not None
            state, events = engine.apply(state, state.to_act, random_move(state, rng))
            table = replace(
                table,
                deal=state,
                row=replace(table.row, version=table.row.version + 1),
                log=log_events(table.log, events),
            )
        assert state.result is not None and state.contract is not None
        contracts.add(state.contract.id)
        match, bummerl = engine.score_deal(table.match, state.result)
        table = replace(table, match=match)
        check_payload(
            await payloads.result_payload(table, lang, state, bummerl, (3, 1) if bummerl else None)
        )
        await show_everything(table, lang)
        if bummerl is not None:
            table = replace(table, row=replace(table.row, status="finished"))
            await show_everything(table, lang)
            return table, contracts


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize(
    ("deck", "rules"), [("doppeldeutsch", engine.STANDARD), ("french", engine.STARGAMES)]
)
async def test_a_whole_bummerl_reads_in_every_language(lang, deck, rules, used_keys, no_pixels):
    table = new_table(lang, deck, rules)
    table = replace(table, row=replace(table.row, status="lobby"))
    check_payload(await payloads.table_payload(table, lang))
    rng = random.Random(f"{lang}{deck}")
    contracts: set[str] = set()
    for _ in range(2):  # a Bummerl, then the rematch
        table = replace(table, row=replace(table.row, status="playing"))
        table, played = await play_a_bummerl(table, lang, rng)
        contracts |= played
    table = replace(table, row=replace(table.row, status="closed"))
    check_payload(await payloads.table_payload(table, lang))

    keys = {key for used_lang, key in used_keys if used_lang == lang}
    phases = {"trump", "auction", "doubling", "play"}
    assert {f"status.{phase}" for phase in phases} <= keys
    assert {f"hand.prompt.{phase}" for phase in phases} <= keys
    assert {
        "status.lobby",
        "status.closed",
        "status.bummerl_over",
        "button.back",
        "button.rematch",
        "result.title",
        "log.new_deal",
        "log.trick",
        "log.scored",
    } <= keys
    assert len(contracts) >= 2


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_real_images_carry_the_language(lang):
    """One position drawn for real per language, so the words inside images exist too."""
    table = new_table(lang, "doppeldeutsch", engine.STANDARD)
    state = engine.new_deal(table.rules, 0, engine.deal_hands(5, 0))
    table = replace(table, deal=state)
    rng = random.Random(lang)
    while not state.finished:
        assert state.to_act is not None
        state, events = engine.apply(state, state.to_act, rng.choice(engine.legal_actions(state)))
        table = replace(table, deal=state, log=log_events(table.log, events))
        if state.phase == engine.PLAY and len(state.tricks) == 2:
            break
    payload = await payloads.hand_payload(table, 0, lang, "Wirtshaus · #schnapsen")
    assert payload.images["hand.png"].startswith(b"\x89PNG")
    assert render.card_name(state.hands[0][0], "doppeldeutsch", lang) in payload.alt["hand.png"]


class Answer:
    """Just enough of discord.InteractionResponse to catch what the command sends."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def is_done(self) -> bool:
        return bool(self.sent)

    async def send_message(self, content: str | None = None, **kwargs: Any) -> None:
        self.sent.append({"content": content, **kwargs})


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("rules", [engine.STANDARD, engine.STARGAMES])
async def test_the_rules_command_answers_in_the_players_language(lang, rules):
    table = SimpleNamespace(rules=rules)
    service = SimpleNamespace(table_in_channel=lambda channel_id: table)
    bot = SimpleNamespace(service=service, settings=Settings(token="unused"))
    cog = SchnapsenCog(bot)  # type: ignore[arg-type]
    interaction = SimpleNamespace(
        locale=LOCALES[lang],
        user=SimpleNamespace(id=5),
        channel_id=2,
        guild_id=1,
        command=None,
        response=Answer(),
    )
    await cog.rules.callback(cog, interaction)  # type: ignore[arg-type]

    [answer] = interaction.response.sent
    embed = answer["embed"]
    assert answer["ephemeral"] is True
    check_embed(embed)
    assert embed.title == catalogue(lang)["rules.title"]
    contracts = [c for c in engine.Contract if rules.ass_bettler or c is not engine.Contract.ASS_BETTLER]
    contract_fields, play_field = embed.fields[: len(contracts)], embed.fields[len(contracts)]
    assert [field.value for field in contract_fields] == [
        catalogue(lang)[f"rules.who.{c.id}"] for c in contracts
    ]
    assert (play_field.name, play_field.value) == (catalogue(lang)["rules.play_title"], catalogue(lang)["rules.play"])
    for field, contract in zip(contract_fields, contracts, strict=True):
        assert field.name.startswith(catalogue(lang)[f"contract.{contract.id}"])
