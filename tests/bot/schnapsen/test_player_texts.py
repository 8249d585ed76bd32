"""The slips a new player met (issue 26): a normal game is nobody's contract, its 3/2/1 game points are
explained, every number says whose it is, the hand image agrees with the text before trump is named, and
``/schnapsen prefs`` without an option shows the choices instead of claiming to have saved something."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

import engine
from bot import render
from bot.i18n import t
from bot.render import images
from bot.schnapsen import payloads, texts
from devtools.fakediscord import FakeDiscord
from engine.record import parse_record, replay  # not engine.replay: that name is also the CLI's module
from tests.bot.schnapsen.harness import Table, ephemeral_reply
from tests.bot.schnapsen.test_every_language import PLAYERS, new_table

GOLDEN = Path(__file__).resolve().parents[2] / "engine" / "golden"
NORTH_SOUTH = f"{PLAYERS[0][1]} & {PLAYERS[2][1]}"
EAST_WEST = f"{PLAYERS[1][1]} 🤖 & {PLAYERS[3][1]}"


def finished_deal(name: str) -> engine.DealState:
    """The final position of the golden record ``name`` (tests/engine/golden), its one deal."""
    record = parse_record(json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))["record"])
    [deal] = replay(record).deals
    assert deal.finished
    return deal


def table_with(deal: engine.DealState, lang: str = "en"):  # type: ignore[no-untyped-def]
    table = new_table(lang, "doppeldeutsch", engine.STANDARD)
    return replace(table, deal=deal)


@pytest.mark.parametrize(
    ("golden", "why"),
    [
        ("normal_three_points", f"; {EAST_WEST} took no trick: 3 game points"),
        ("s01_rules_example", f"; {EAST_WEST} had only 28, under 33: 2 game points"),
        ("normal_last_trick", ": 1 game point"),
    ],
)
def test_a_normal_game_says_who_won_it_and_why_it_is_worth_what_it_is(golden, why):
    deal = finished_deal(golden)
    table = table_with(deal)
    assert deal.result is not None and deal.contract is engine.Contract.NORMAL
    line = texts.result_line(table, "en", deal)
    assert line == f"Normal game (nobody bid), won by {t('en', f'team.{deal.result.winner}')}."
    assert " by " + texts.seat_name(table, deal.declarer) not in line  # the forehand declared nothing  # type: ignore[arg-type]
    assert texts.why_text(table, "en", deal).endswith(why)


def test_a_bid_contract_still_names_its_declarer():
    deal = finished_deal("bettler_made")
    table = table_with(deal)
    assert deal.declarer is not None
    assert texts.result_line(table, "en", deal) == f"Bettler by {texts.seat_name(table, deal.declarer)}: made."


def test_the_table_shows_a_normal_game_as_nobodys_and_logs_it_so():
    deal = finished_deal("normal_three_points")
    table = table_with(deal)
    view = engine.view_for(deal, None)
    assert texts.contract_text(table, "en", view) == "Normal game (nobody bid)"
    normal = texts.log_line(table, "en", "log.contract", {"seat": 0, "contract": "normal"})
    assert normal == "Nobody bids: normal game."
    scored = texts.log_line(table, "en", "log.scored", {"team": 0, "points": 1})
    assert scored == f"{NORTH_SOUTH} score 1 game point."


async def test_the_result_title_says_game_points(no_pixels):
    deal = finished_deal("normal_three_points")
    table = table_with(deal)
    payload = await payloads.result_payload(table, "en", deal, None, None)
    assert payload.embeds[0].title == f"{NORTH_SOUTH} win 3 game points"


@pytest.mark.parametrize(
    ("lang", "card_points"),
    [("en", "Card points: North–South {} · East–West {}"), ("de", "Augen: Nord–Süd {} · Ost–West {}")],
)
def test_card_points_name_the_teams(lang, card_points):
    deal = finished_deal("normal_three_points")
    deal = deal._replace(rules=replace(deal.rules, show_all_tricks=True))  # card points are public then
    view = engine.view_for(deal, None)
    assert view.team_points is not None
    shown = texts.tricks_text(table_with(deal, lang), lang, view)
    assert shown.splitlines()[-1] == card_points.format(*view.team_points)


def test_lost_bummerl_stand_on_each_teams_own_line():
    table = table_with(finished_deal("normal_three_points"))
    lost_by_east_west = engine.BummerlResult(0, "bummerl", 1, (24, 3))
    table = replace(table, match=table.match._replace(bummerls=(lost_by_east_west,)))
    north_south, east_west = texts.score_text(table, "en").splitlines()
    assert north_south.startswith(f"{NORTH_SOUTH}: ") and north_south.endswith(" · Bummerl lost: 0")
    assert east_west.startswith(f"{EAST_WEST}: ") and east_west.endswith(" · Bummerl lost: 1")


@pytest.fixture
def drawn_words(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text drawn into an image (none kept from an earlier drawing: pieces are drawn afresh)."""
    words: list[str] = []
    real_text = images._text
    images._piece_in_palette.cache_clear()

    def recorded(canvas, xy, text, *args, **kwargs):  # type: ignore[no-untyped-def]
        words.append(text)
        return real_text(canvas, xy, text, *args, **kwargs)

    monkeypatch.setattr(images, "_text", recorded)
    return words


@pytest.fixture
def no_pixels(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("render_table", "render_result"):
        monkeypatch.setattr(render, name, lambda *args, **kwargs: b"png")


@pytest.mark.parametrize("lang", ["en", "de"])
async def test_before_trump_is_named_the_hand_image_agrees_with_the_text(lang, drawn_words):
    table = new_table(lang, "doppeldeutsch", engine.STANDARD)
    table = replace(table, deal=engine.new_deal(table.rules, 3, engine.deal_hands(11, 3)))
    payloads._hand_png.clear()
    payload = await payloads.hand_payload(table, 0, lang, "here")
    trump_field = next(field for field in payload.embeds[0].fields if field.name == t(lang, "table.trump"))
    assert trump_field.value == t(lang, "table.no_trump_yet")
    expected = {"en": "Trump not chosen yet", "de": "Trumpf noch nicht bestimmt"}[lang]
    assert expected in drawn_words
    assert render.label("no_trump", lang) not in drawn_words


async def test_a_contract_without_trumps_draws_no_trump(drawn_words):
    deal = finished_deal("bettler_made")
    table = table_with(deal._replace(result=None))
    payloads._hand_png.clear()
    await payloads.hand_payload(table, 0, "en", "here")
    assert "No trump" in drawn_words and "Trump not chosen yet" not in drawn_words


def test_english_calls_the_german_decks_ace_an_ace():
    assert render.card_name("HA", "doppeldeutsch", "en") == "Ace of Hearts"
    assert "Sow" not in " ".join(render.card_name(card, "doppeldeutsch", "en") for card in render.ALL_CARDS)


async def test_prefs_without_an_option_shows_them_and_changes_nothing(fake_discord: FakeDiscord, world: Table) -> None:
    anna = world.add_player("anna")
    await world.start_bot()
    asked = await ephemeral_reply(await world.command(anna, "prefs"))
    assert asked.startswith("Nothing changed.") and "By direct message" in asked and "Saved" not in asked
    told = await ephemeral_reply(await world.command(anna, "prefs", hand="channel"))
    assert told.startswith("Saved.") and "In the channel, only to you" in told
    asked_again = await ephemeral_reply(await world.command(anna, "prefs"))
    assert asked_again.startswith("Nothing changed.") and "In the channel, only to you" in asked_again
