"""Every catalogue says everything the English one says, with the same placeholders, in the players' words."""

from __future__ import annotations

import re

import pytest

from bot.i18n import LANGUAGES, PLURAL_FORMS, catalogue, placeholders, plural_keys, t
from bot.render import ALL_CARDS, DECK_STYLES, card_name, suit_name

ENGLISH = catalogue("en")
PLURALS = plural_keys(ENGLISH)
TRANSLATIONS = [lang for lang in LANGUAGES if lang != "en"]
BUTTON_LIMIT = 80  # Discord's limit for a button label
# Keys whose text becomes a button label as it stands (bids, Kontra/Re, leaderboard sorting).
LABEL_PREFIXES = ("button.", "contract.", "double.", "leaderboard.sort.")
# Things players type or Discord renders, which must survive translation unchanged.
VERBATIM = re.compile(r"/schnapsen [a-z]+|<#\{channel\}>|<@\{\w+\}>|\*\*")


def longest(values: list[str]) -> str:
    return max(values, key=len)


def long_value(placeholder: str, lang: str) -> str:
    """A long but realistic value for a button label's placeholder, in that language."""
    match placeholder:
        case "seat":
            return longest([t(lang, f"seat.{seat}") for seat in range(4)])
        case "card":
            return longest([card_name(card, deck, lang) for deck in DECK_STYLES for card in ALL_CARDS])
        case "value":
            return "40"
    raise AssertionError(f"no realistic long value for the button placeholder {{{placeholder}}}: add one")


def test_english_is_complete_and_well_formed():
    assert ENGLISH
    for key, text in ENGLISH.items():
        assert text.strip() == text and text, key
        text.format(**{name: "x" for name in placeholders(text)})


def expected_keys(lang: str) -> set[str]:
    """English's keys, with the plural forms ``lang`` writes in place of English's."""
    single = {key for key in ENGLISH if key.rsplit(".", 1)[0] not in PLURALS}
    return single | {f"{key}.{form}" for key in PLURALS for form in PLURAL_FORMS[lang]}


def counterpart(lang: str, english_key: str) -> str:
    """The text of ``lang`` that stands for an English key (a language without a "one" form uses "other")."""
    base, _, form = english_key.rpartition(".")
    if base in PLURALS and form not in PLURAL_FORMS[lang]:
        return catalogue(lang)[f"{base}.other"]
    return catalogue(lang)[english_key]


def test_plural_keys_have_the_english_forms_and_count():
    assert {"reply.export", "result.title", "log.scored"} <= PLURALS
    assert expected_keys("en") == set(ENGLISH)
    for key in PLURALS:
        assert "count" in placeholders(ENGLISH[f"{key}.other"]), key
        assert key not in ENGLISH, key  # t would never pick a form


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_catalogue_has_exactly_the_english_keys(lang):
    translated = catalogue(lang)
    assert sorted(expected_keys(lang) - set(translated)) == [], "missing keys"
    assert sorted(set(translated) - expected_keys(lang)) == [], "keys English does not have"


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_every_text_keeps_the_english_placeholders(lang):
    for key, english in ENGLISH.items():
        translated = counterpart(lang, key)
        if translated is not catalogue(lang).get(key):  # "other" standing for English's "one"
            english = ENGLISH[key.rpartition(".")[0] + ".other"]
        assert placeholders(translated) == placeholders(english), key
        translated.format(**{name: "x" for name in placeholders(english)})


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_commands_mentions_and_markdown_survive_translation(lang):
    for key, english in ENGLISH.items():
        translated = counterpart(lang, key)
        assert sorted(VERBATIM.findall(translated)) == sorted(VERBATIM.findall(english)), key
        assert translated.strip() == translated and translated, key


@pytest.mark.parametrize("lang", LANGUAGES)
def test_button_labels_fit_discord_with_long_values(lang):
    for key, template in catalogue(lang).items():
        if key.startswith(LABEL_PREFIXES):
            label = template.format(**{name: long_value(name, lang) for name in placeholders(template)})
            assert 0 < len(label) <= BUTTON_LIMIT, (key, label)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("deck", DECK_STYLES)
def test_card_and_suit_buttons_fit_discord(lang, deck):
    for card in ALL_CARDS:
        assert len(t(lang, "button.marriage", card=card_name(card, deck, lang), value=40)) <= BUTTON_LIMIT
    for suit in "HDCS":
        assert 0 < len(suit_name(suit, deck, lang)) <= BUTTON_LIMIT


@pytest.mark.parametrize(
    ("key", "label_key"),
    [("notice.dms_closed", "button.my_hand"), ("reply.table_opened", "button.start")],
)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_texts_name_the_buttons_as_they_are_labelled(lang, key, label_key):
    assert t(lang, label_key) in catalogue(lang)[key]


# RULES.md section 0.1: the names each language's rule text uses (Ass-Bettler has no Dutch or Turkish name
# there; ours follow the pattern of the other names).
CONCORDANCE = {
    "de": {
        "normal": "Normales Spiel",
        "bettler": "Bettler",
        "ass_bettler": "Ass-Bettler",
        "schnapser": "Schnapser",
        "gang": "Gang",
        "zehnerloch": "Zehnerloch",
        "bauernschnapser": "Bauernschnapser",
        "kontraschnapser": "Kontraschnapser",
        "farbringerl": "Farbringerl",
        "kontrabauernschnapser": "Kontrabauernschnapser",
        "trumpffarbringerl": "Trumpffarbringerl",
        "kontra": "Kontra",
        "re": "Re",
        "subkontra": "Subkontra",
    },
    "nl": {
        "normal": "Eenvoudige bieder",
        "bettler": "Bedelaar",
        "schnapser": "Schnapser",
        "gang": "Gang",
        "zehnerloch": "Tien",
        "bauernschnapser": "Boerenschnapser",
        "kontraschnapser": "Contra-schnapser",
        "farbringerl": "Herengang",
        "kontrabauernschnapser": "Contra-boerenschnapser",
        "trumpffarbringerl": "Herenschnapser",
        "kontra": "contra",
        "re": "recontra",
        "subkontra": "subcontra",
    },
    "tr": {
        "normal": "Kolay Çağıran",
        "bettler": "Dilenci",
        "schnapser": "Schnapser",
        "gang": "Çete",
        "zehnerloch": "On'lar",
        "bauernschnapser": "Bauernschnapser",
        "kontraschnapser": "Kontra-Schnapser",
        "farbringerl": "Erkekler Çetesi",
        "kontrabauernschnapser": "Kontra-Bauernschnapser",
        "trumpffarbringerl": "Erkekler-Schnapser",
        "kontra": "kontr",
        "re": "karşı-kontr",
        "subkontra": "sub-kontr",
    },
}


@pytest.mark.parametrize("lang", sorted(CONCORDANCE))
def test_contract_and_doubling_names_follow_the_concordance(lang):
    for name_id, expected in CONCORDANCE[lang].items():
        key = f"double.{name_id}" if name_id in ("kontra", "re", "subkontra") else f"contract.{name_id}"
        assert t(lang, key).casefold() == expected.casefold(), key


def test_german_uses_the_austrian_card_words():
    german = " ".join(catalogue("de").values())
    for word in ("Sau", "Zehner", "Trumpf", "Stich", "Bummerl", "Schneider", "Kontra", "Rufer", "Weiter"):
        assert word in german, word
    assert t("de", "button.pass") == "Weiter"
