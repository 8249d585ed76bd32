"""Every catalogue says everything the English one says, with the same placeholders, in the players' words."""

from __future__ import annotations

import re

import pytest

from bot.i18n import LANGUAGES, PLURAL_FORMS, catalogue, placeholders, plural_keys, t
from bot.render import ALL_CARDS, DECK_STYLES, card_name, suit_name

ENGLISH = catalogue("en")
PLURALS = plural_keys(ENGLISH)
TRANSLATIONS = [lang for lang in LANGUAGES if lang != "en"]
# Discord allows 80 characters in a button label, but a 360 px phone shows about 25 whole, two buttons to a
# row, and cuts a longer label off with an ellipsis.
PHONE_LABEL = 25
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
def test_button_labels_fit_a_phone_with_long_values(lang):
    """Every label in every language, filled with the longest seat and card name, fits a phone uncut."""
    too_long = {}
    for key, template in catalogue(lang).items():
        if key.startswith(LABEL_PREFIXES):
            label = template.format(**{name: long_value(name, lang) for name in placeholders(template)})
            assert label, key
            if len(label) > PHONE_LABEL:
                too_long[key] = f"{label} ({len(label)})"
    assert too_long == {}


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("deck", DECK_STYLES)
def test_card_and_suit_buttons_fit_discord(lang, deck):
    for card in ALL_CARDS:
        assert len(t(lang, "button.marriage", card=card_name(card, deck, lang), value=40)) <= PHONE_LABEL
    for suit in "HDCS":
        assert 0 < len(suit_name(suit, deck, lang)) <= PHONE_LABEL


@pytest.mark.parametrize(
    ("key", "label_key"),
    [
        ("notice.dms_closed", "button.my_hand"),
        ("reply.table_opened", "button.start"),
        ("reply.started", "button.my_hand"),
        ("hand.taken_over", "button.back"),
    ],
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


# One word per concept, in the players' words (docs/i18n.md, "Players' words"): wherever the English text
# names a concept, the translation names it with the one term of the table; the seeds' terms for contracts,
# game points and pass (RULES.md 0.1: "Eenvoudige bieder", "tellers", "verder"; "Kolay Çağıran", "Çete",
# "kontr") included. The English pattern is searched with the placeholders taken out.
CONCEPTS = {
    "contract": r"\bcontracts?\b",
    "deal": r"\bdeals?\b",
    "trick": r"\btricks?\b",
    "trump": r"\btrumps?\b",
    "pass": r"\bpass(?:es)?\b",
    "game points": r"\bgame points?\b",
    "card points": r"\bcard points\b",
    "forehand": r"\bforehand\b",
    "declarer": r"\bdeclarer\b",
    "bidding": r"\b(?:bids?|bidding|auction)\b",
    "host": r"\bhost\b",
    "organiser": r"\borganis(?:er|ers|ers'|e)\b",
    "rating": r"\b(?:ratings?|rated)\b",
    "partner": r"\bpartners?\b",
    "team": r"\bteams?\b",
    "follow suit": r"\bfollow suit\b",
    "sits out": r"\bsits? out\b",
    "bye": r"\bbyes?\b",
    "review": r"\breview(?:s|ed)?\b",
    "seed": r"\bseed\b",
}
TERMS = {
    "de": {
        "contract": r"\bSpiele?\b|\bSpiels\b", "deal": r"Runde|Tagesspiel", "trick": r"Stich", "trump": r"Trumpf|Trümpfe",
        "pass": r"\bWeiter\b", "game points": r"Punkt", "card points": r"\bAugen\b", "forehand": r"\bRufers?\b",
        "declarer": r"\bAnsagers?\b", "bidding": r"[Aa]nsag|angesagt|\bsagt?\b.*\ban\b", "host": r"Gastgeber", "organiser": r"Veranstalter",
        "rating": r"Wertung|gewertet", "partner": r"Partner", "team": r"Team", "follow suit": r"Farbe bekennen",
        "sits out": r"setzt\b.*\baus\b|aussetz", "bye": r"spielfrei|Freilos", "review": r"[Pp]rüf",
        "seed": r"Startwert",
    },
    "nl": {
        "contract": r"\bspel(?:len)?\b", "deal": r"\bronde|dagspel", "trick": r"\bslag", "trump": r"troef|troeven",
        "pass": r"\bverder\b", "game points": r"\btellers?\b", "card points": r"kaartpunten",
        "forehand": r"\bvoorhand\b", "declarer": r"\bbieder\b", "bidding": r"\bbied|\bbod\b|geboden",
        "host": r"gastheer", "organiser": r"organisator", "rating": r"\brating", "partner": r"partner",
        "team": r"\bteams?\b", "follow suit": r"kleur bekennen", "sits out": r"\bniet mee", "bye": r"\bvrij",
        "review": r"bespre", "seed": r"startwaarde",
    },
    "tr": {
        "contract": r"\boyun", "deal": r"\btur", "trick": r"\bel(?:|i|in|e|de|den|ler|leri|lerin|lerini|ini|ine|inde)\b",
        "trump": r"\bkoz", "pass": r"\bdevam\b", "game points": r"\boyun sayı", "card points": r"\bpuan",
        "forehand": r"\bilk oyuncu", "declarer": r"\boyunu söyleyen", "bidding": r"söyle|\bsöz",
        "host": r"masa sahibi", "organiser": r"düzenleyici", "rating": r"reyting", "partner": r"\borta[kğ]",
        "team": r"\btakım", "follow suit": r"renge uy", "sits out": r"\boynama(?:z|yan|dığı)", "bye": r"\bbay",
        "review": r"incele", "seed": r"tohum",
    },
}  # fmt: skip
# The other names of those concepts (and the slips once found), which no text of a catalogue uses.
NEVER = {
    "en": [r"\b\w+n't\b", r"\b(?:it|that)'s\b", r"\b(?:he|his|him)\b", r"\bView Channel\b", r"±\{"],
    "de": [r"\bVorhand\b", r"Farbe geben", r"Gewinn-Bummerl", r"\bin diesem Server\b", r"\bjede[ms]? Paar",
           r"\bjede[rn]? Ansage\b", r"^Ansagen, ", r"\bKanal ansehen\b", r"±\{"],
    "nl": [r"annonce", r"overnem", r"\bzaad\b", r"\bbest of\b", r"\bbyes?\b", r"spelpunt", r"\bin deze server\b",
           r"\bKanaal bekijken\b", r"±\{"],
    "tr": [r"sözleşme", r"(?<!kolay )\bçağıran", r"\bihale\b", r"ev sahibi", r"masayı açan", r"düzenleyen",
           r"oyun puan", r"\bkontra\b(?!-)", r"zekâ oyuncu\b", r"zekâ oyuncular\b", r"\beş(?:i|in|le|ini)?\b",
           r"kartları açın", r"\bKanalı Görüntüle\b", r"±\{"],
}  # fmt: skip


def folded(lang: str, text: str) -> str:
    """``text`` in lower case as the language writes it (Turkish İ/I are i/ı)."""
    if lang == "tr":
        text = text.replace("İ", "i").replace("I", "ı")
    return text.lower()


def without_placeholders(text: str) -> str:
    return re.sub(r"\{\w*\}", "", text)


@pytest.mark.parametrize("lang", sorted(TERMS))
def test_every_concept_has_one_term(lang):
    """Where English names a contract, a deal, game points, pass ..., the translation uses the term of
    docs/i18n.md's table; one English text may match several concepts."""
    missing = {}
    for key, english in ENGLISH.items():
        translated = counterpart(lang, key)
        for concept, pattern in CONCEPTS.items():
            if re.search(pattern, without_placeholders(english), re.IGNORECASE):
                term = TERMS[lang][concept]
                if not re.search(folded(lang, term), folded(lang, without_placeholders(translated))):
                    missing.setdefault(concept, []).append(f"{key}: {translated}")
    assert missing == {}


@pytest.mark.parametrize("lang", sorted(NEVER))
def test_no_text_uses_another_name_for_a_concept(lang):
    found = [
        f"{key}: {text}"
        for key, text in catalogue(lang).items()
        for pattern in NEVER[lang]
        if re.search(folded(lang, pattern), folded(lang, text))
    ]
    assert found == []
