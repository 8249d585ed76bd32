"""Texts that say a number of something take the form the number asks for, in every language: "1 finished
deal", "2 finished deals", "1 fertige Runde", "2 tamamlanmış tur"; every text that puts a number before a
noun has plural forms, and no English text says "1 … deals"."""

from __future__ import annotations

import re

import pytest

from bot.i18n import LANGUAGES, PLURAL_FORMS, catalogue, placeholders, plural, plural_keys, t

ENGLISH = catalogue("en")
PLURALS = sorted(plural_keys(ENGLISH))

# Placeholders that stand for a name or a word; every other placeholder may be a number (so that a new
# placeholder counts until it is named here: "{rounds} rounds" once slipped through a list of the counting ones).
WORDS = {"action", "best", "card", "channel", "contract", "day", "deck", "family", "format", "kind", "language",
         "link", "loser", "mention", "month", "name", "names", "opponents", "order", "organiser", "pair",
         "partner", "place", "played", "preset", "rated", "reason", "relative", "role", "rules", "second", "seat",
         "setting", "sort", "strength", "suit", "team", "teams", "when", "where", "why", "winner", "word"}  # fmt: skip
# A plural noun right after the number 1, with at most one word between ("1 finished deals", "1 points").
ONE_THEN_PLURAL = re.compile(r"(?<![\d.,−+])\b1 (?:[A-Za-z]+ )?([A-Za-z]+s|people)\b")
# A placeholder followed by a plural noun, with at most one word between ("{rounds} rounds", "{count} game points").
PLACEHOLDER_THEN_PLURAL = re.compile(r"\{(\w+)\} (?:[A-Za-z]+ )?([A-Za-z]+s|people)\b")
# Words ending in s that are not plural nouns (ms: milliseconds, a unit symbol).
NOT_PLURAL = {"is", "was", "has", "its", "this", "plus", "ms"}
# Texts whose count is never 1, with the reason.
NEVER_ONE = {
    "notice.idle_warning": "{seconds} is a third of the turn time, which is at least 15 s",
    "ruleset.target": "a Bummerl's target is 6 to 99 game points (bot/game/rulesettings.py TARGET_RANGE)",
    "error.bad_target": "{high} is the highest target, 99",
    "tournament.error.bad_rounds": "{high} is the most rounds a Swiss tournament may have, 15",
    "tournament.error.bad_start": "{days} is how far ahead a start may be, 60 days",
    "coach.review_line": "{loss} has two decimals (1.00 game points), which English says in the plural",
}


@pytest.mark.parametrize(
    ("lang", "count", "form"),
    [("en", 1, "one"), ("en", 0, "other"), ("en", 2, "other"), ("de", 1, "one"), ("de", 21, "other"),
     ("nl", 1, "one"), ("nl", 0, "other"), ("tr", 1, "other"), ("tr", 2, "other")],
)  # fmt: skip
def test_the_plural_rule_of_each_language(lang, count, form):
    assert plural(lang, count) == form


def one_of_everything(key: str, text: str) -> str:
    return text.format(**{name: "X" if name in WORDS else "1" for name in placeholders(text)})


def is_plural_key(key: str) -> bool:
    return key.rpartition(".")[2] in ("one", "other")


def test_every_counted_text_has_plural_forms():
    """A text that puts a number before a noun ("Swiss system, {rounds} rounds") has forms for one and for
    other counts, or says why its number is never 1."""
    single = {}
    for key, text in ENGLISH.items():
        counted = [
            match.group(0)
            for match in PLACEHOLDER_THEN_PLURAL.finditer(text)
            if match.group(1) not in WORDS and match.group(2) not in NOT_PLURAL
        ]
        if counted and not is_plural_key(key) and key not in NEVER_ONE:
            single[key] = counted
    assert single == {}


def test_the_counted_check_catches_the_old_slip():
    match = PLACEHOLDER_THEN_PLURAL.search("Swiss system, {rounds} rounds")
    assert match is not None and match.group(1) not in WORDS
    assert not any(
        match.group(1) not in WORDS for match in PLACEHOLDER_THEN_PLURAL.finditer("{name} passes.")
    )


def test_no_english_text_says_one_of_a_plural():
    """Every key that may show a count of 1, rendered with 1: its noun must be singular."""
    wrong = {}
    for key, text in ENGLISH.items():
        if key.endswith(".other") or key in NEVER_ONE:  # "other" is only ever shown for counts other than 1
            continue
        shown = one_of_everything(key, text)
        nouns = [noun for noun in ONE_THEN_PLURAL.findall(shown) if noun not in NOT_PLURAL]
        if nouns:
            wrong[key] = shown
    assert wrong == {}


def test_the_check_catches_the_old_slips():
    for slip in (
        "The game record (1 finished deals).",
        "North & South win 1 game points",
        "at least 1 people",
        "Swiss system, 1 rounds",
    ):
        assert ONE_THEN_PLURAL.search(slip), slip
    assert not ONE_THEN_PLURAL.search("The game record (1 finished deal).")


@pytest.mark.parametrize("key", PLURALS)
def test_english_plural_texts_take_the_count(key):
    for count in (0, 1, 2):
        values = {name: "X" for name in placeholders(ENGLISH[f"{key}.other"])} | {"count": count}
        assert t("en", key, **values) == ENGLISH[f"{key}.{plural('en', count)}"].format(**values)


# What a player reads for 0, 1 and 2 finished deals and game points, in each language.
EXPECTED = {
    "en": {
        "reply.export": ("The game record (0 finished deals).", "The game record (1 finished deal).",
                         "The game record (2 finished deals)."),
        "result.title": ("A win 0 game points", "A win 1 game point", "A win 2 game points"),
        "tournament.swiss": ("Swiss system, 0 rounds", "Swiss system, 1 round", "Swiss system, 2 rounds"),
    },
    "de": {
        "reply.export": ("Die Spielaufzeichnung (0 fertige Runden).", "Die Spielaufzeichnung (1 fertige Runde).",
                         "Die Spielaufzeichnung (2 fertige Runden)."),
        "result.title": ("A gewinnen 0 Punkte", "A gewinnen 1 Punkt", "A gewinnen 2 Punkte"),
        "tournament.swiss": ("Schweizer System, 0 Runden", "Schweizer System, 1 Runde", "Schweizer System, 2 Runden"),
    },
    "nl": {
        "reply.export": ("Het spelverslag (0 afgeronde rondes).", "Het spelverslag (1 afgeronde ronde).",
                         "Het spelverslag (2 afgeronde rondes)."),
        "result.title": ("A winnen 0 tellers", "A winnen 1 teller", "A winnen 2 tellers"),
        "tournament.swiss": ("Zwitsers systeem, 0 rondes", "Zwitsers systeem, 1 ronde", "Zwitsers systeem, 2 rondes"),
    },
    "tr": {  # a noun after a number stays singular
        "reply.export": ("Oyun kaydı (0 tamamlanmış tur).", "Oyun kaydı (1 tamamlanmış tur).",
                         "Oyun kaydı (2 tamamlanmış tur)."),
        "result.title": ("A 0 oyun sayısı kazandı", "A 1 oyun sayısı kazandı", "A 2 oyun sayısı kazandı"),
        "tournament.swiss": ("İsviçre sistemi, 0 tur", "İsviçre sistemi, 1 tur", "İsviçre sistemi, 2 tur"),
    },
}  # fmt: skip


@pytest.mark.parametrize("lang", LANGUAGES)
def test_counts_read_right_for_zero_one_and_two(lang):
    for key, texts in EXPECTED[lang].items():
        assert tuple(t(lang, key, count=count, team="A") for count in (0, 1, 2)) == texts, key


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("key", PLURALS)
def test_every_plural_text_changes_its_noun_where_the_language_does(lang, key):
    """With "one" and "other" forms, 1 reads differently from 2 (not just the digit), and 0 reads like 2;
    Turkish says 1 and 2 alike."""
    values = {name: "X" for name in placeholders(catalogue(lang)[f"{key}.other"]) if name != "count"}
    zero, one, two = (t(lang, key, count=count, **values) for count in (0, 1, 2))
    assert zero == two.replace("2", "0")
    if "one" in PLURAL_FORMS[lang]:
        assert one != two.replace("2", "1"), (one, two)
    else:
        assert one == two.replace("2", "1")
