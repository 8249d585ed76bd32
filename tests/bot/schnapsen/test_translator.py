"""Slash commands in Discord's German, Dutch and Turkish clients: the payload a sync would send."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.app_commands import TranslationContext, TranslationContextLocation, locale_str

from bot.i18n import catalogue
from bot.schnapsen.cog import SchnapsenCog
from bot.schnapsen.daily import DailyCommands
from bot.schnapsen.status import status_command
from bot.schnapsen.tournaments import TournamentCommands
from bot.schnapsen.translator import CatalogueTranslator, key_for
from bot.settings import Settings

TRANSLATED = {"de": discord.Locale.german, "nl": discord.Locale.dutch, "tr": discord.Locale.turkish}
ENGLISH_LOCALES = ("en-US", "en-GB")
DESCRIPTION_LIMIT = 100  # Discord's limit for command and option descriptions
CHOICE_NAME_LIMIT = 100


def valid_command_name(name: str) -> bool:
    """Discord's rule for command and option names: ^[-_\\p{L}\\p{N}]{1,32}$, lower case where cased."""
    return 1 <= len(name) <= 32 and all(ch.isalnum() or ch in "-_" for ch in name) and name == name.lower()


@pytest.fixture
async def synced_payload() -> dict[str, Any]:
    """The /schnapsen group as CommandTree.sync would send it, localisations included."""
    bot = SimpleNamespace(service=None, settings=Settings(token="unused"))
    cog = SchnapsenCog(bot)  # type: ignore[arg-type]
    cog.app_command.add_command(DailyCommands(bot))  # type: ignore[arg-type]  # as DailyCog attaches it
    cog.app_command.add_command(TournamentCommands(None))  # type: ignore[arg-type]  # the tournaments' extension adds it
    cog.app_command.add_command(status_command(None))  # the status extension adds it
    tree = app_commands.CommandTree(discord.Client(intents=discord.Intents.none()))
    tree.add_command(cog.app_command)
    await tree.set_translator(CatalogueTranslator())
    assert tree.translator is not None
    return await cog.app_command.get_translated_payload(tree, tree.translator)


def described(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """The group, its commands and their options: everything that has a name and a description."""
    found = [payload]
    for item in payload.get("options", []):
        found += described(item)
    return found


def choices(payload: dict[str, Any]) -> list[dict[str, Any]]:
    return [choice for item in described(payload) for choice in item.get("choices", [])]


async def test_the_group_has_every_command(synced_payload):
    names = {item["name"] for item in synced_payload["options"]}
    assert {
        "new",
        "join",
        "leave",
        "start",
        "hand",
        "score",
        "rules",
        "leaderboard",
        "stop",
        "export",
        "settings",
        "status",
    } <= names


@pytest.mark.parametrize("lang", sorted(TRANSLATED))
async def test_every_description_is_translated(synced_payload, lang):
    for item in described(synced_payload):
        translated = item.get("description_localizations", {}).get(TRANSLATED[lang].value)
        assert translated, f"no {lang} description for {item['name']!r} ({item['description']!r})"
        assert len(translated) <= DESCRIPTION_LIMIT, translated


@pytest.mark.parametrize("lang", sorted(TRANSLATED))
async def test_every_choice_is_translated(synced_payload, lang):
    assert choices(synced_payload)
    for choice in choices(synced_payload):
        translated = choice.get("name_localizations", {}).get(TRANSLATED[lang].value)
        assert translated, f"no {lang} name for the choice {choice['value']!r}"
        assert len(translated) <= CHOICE_NAME_LIMIT


async def test_names_stay_valid_and_english_clients_see_the_defaults(synced_payload):
    for item in described(synced_payload):
        localised_names = item.get("name_localizations") or {}
        assert all(valid_command_name(name) for name in [item["name"], *localised_names.values()]), item[
            "name"
        ]
    for item in described(synced_payload) + choices(synced_payload):
        for field in ("name_localizations", "description_localizations"):
            assert not set(ENGLISH_LOCALES) & set(item.get(field) or {}), item["name"]


async def test_every_command_text_of_the_catalogue_is_used(synced_payload):
    english = catalogue("en")
    descriptions = {item["description"] for item in described(synced_payload)}
    values = {str(choice["value"]) for choice in choices(synced_payload)}
    for key, text in english.items():
        if key.startswith("command.choice."):
            assert key.removeprefix("command.choice.") in values, key
        elif key.startswith("command."):
            assert text in descriptions, key


def context(location: TranslationContextLocation, data: Any = None) -> Any:
    return TranslationContext(location=location, data=data)  # type: ignore[call-overload]


async def test_an_explicit_key_wins_over_the_english_text():
    text = locale_str("Opens a table, reworded", key="command.new.description")
    where = context(TranslationContextLocation.command_description)
    assert key_for(text, where) == "command.new.description"
    assert (
        await CatalogueTranslator().translate(text, discord.Locale.dutch, where)
        == "Open een tafel in dit kanaal"
    )


async def test_unknown_texts_names_and_other_languages_get_no_translation():
    translator = CatalogueTranslator()
    description = context(TranslationContextLocation.command_description)
    known = locale_str("Open a table in this channel")
    assert (
        await translator.translate(locale_str("Not in any catalogue"), discord.Locale.german, description)
        is None
    )
    assert await translator.translate(known, discord.Locale.french, description) is None
    assert await translator.translate(known, discord.Locale.american_english, description) is None
    name = context(TranslationContextLocation.command_name)
    assert await translator.translate(locale_str("new"), discord.Locale.german, name) is None
    choice = app_commands.Choice(name="N", value="N")
    assert (
        await translator.translate(
            locale_str("N"), discord.Locale.turkish, context(TranslationContextLocation.choice_name, choice)
        )
        == "Kuzey"
    )
