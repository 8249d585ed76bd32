"""Slash-command texts in each user's Discord client language, from the same catalogues as every other text.

discord.py asks the translator once per string and Discord locale when the command tree is synced; Discord
then shows each user the text for their client's language. Descriptions and choice names are translated;
command, group and option *names* stay English so that ``/schnapsen new`` is the same command everywhere (and
in the help texts that mention it).

How a string finds its catalogue key:

1. an explicit ``key`` in the ``locale_str`` extras: ``_("Open a table", key="command.new.description")``;
2. a choice: ``command.choice.<value>``, or the text the catalogue already has for that value
   (``N`` -> ``seat.0``, ``french`` -> ``deck.french`` ...; see ``CHOICE_KEYS``);
3. otherwise the English text itself: the ``command.*`` key of ``en.json`` whose text equals the message.
"""

from __future__ import annotations

import logging
from functools import cache

from discord import Locale, app_commands
from discord.app_commands import TranslationContextLocation as Where
from discord.app_commands import locale_str

import engine
from bot.i18n import DEFAULT_LANGUAGE, catalogue, language_for_locale
from bot.vocabulary import DECK_STYLES, LEADERBOARD_SORTS

log = logging.getLogger(__name__)

TRANSLATED_LOCATIONS = frozenset(
    {Where.command_description, Where.group_description, Where.parameter_description, Where.choice_name}
)

# Choice values whose text the catalogue holds already under another key (so it is translated only once).
CHOICE_KEYS: dict[str, str] = {
    **{name: f"seat.{seat}" for seat, name in enumerate(engine.SEAT_NAMES)},
    **{deck: f"deck.{deck}" for deck in DECK_STYLES},
    **{sort: f"leaderboard.sort.{sort}" for sort in LEADERBOARD_SORTS},
}


@cache
def command_keys_by_english_text() -> dict[str, str]:
    return {text: key for key, text in catalogue(DEFAULT_LANGUAGE).items() if key.startswith("command.")}


def key_for(string: locale_str, context: app_commands.TranslationContextTypes) -> str | None:
    """The catalogue key of a command text, or None when it has none."""
    explicit = string.extras.get("key")
    if explicit:
        return str(explicit)
    if context.location is Where.choice_name:
        value = str(context.data.value)
        key = CHOICE_KEYS.get(value, f"command.choice.{value}")
        if key in catalogue(DEFAULT_LANGUAGE):
            return key
    return command_keys_by_english_text().get(string.message)


class CatalogueTranslator(app_commands.Translator):
    """Returns the catalogue text for German, Dutch and Turkish clients; None (Discord shows the English
    default) for English clients, unsupported locales, names, and texts without a key."""

    async def translate(
        self, string: locale_str, locale: Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        if context.location not in TRANSLATED_LOCATIONS:
            return None
        lang = language_for_locale(locale)
        if lang == DEFAULT_LANGUAGE:
            return None
        key = key_for(string, context)
        if key is None:
            log.warning(
                "no catalogue key for the command text %r (%s)", string.message, context.location.name
            )
            return None
        return catalogue(lang).get(key)
