"""Texts that say a number of something take the form the number asks for, in every language: "1 finished
deal", "2 finished deals", "1 fertige Runde", "2 tamamlanmış tur"; and no English text says "1 … deals"."""

from __future__ import annotations

import re

import pytest

from bot.i18n import LANGUAGES, PLURAL_FORMS, catalogue, placeholders, plural, plural_keys, t

ENGLISH = catalogue("en")
PLURALS = sorted(plural_keys(ENGLISH))

# Placeholders that stand for a number of things; every other placeholder gets a word.
COUNTS = {"count", "n", "deals", "points", "seconds", "people", "games", "won", "lost", "total", "together",
          "x", "y", "a", "b", "declared", "made", "delay"}  # fmt: skip
# A plural noun right after the number 1, with at most one word between ("1 finished deals", "1 points").
ONE_THEN_PLURAL = re.compile(r"(?<![\d.,−+])\b1 (?:[A-Za-z]+ )?([A-Za-z]+s|people)\b")
# Words ending in s that are not plural nouns (ms: milliseconds, a unit symbol).
NOT_PLURAL = {"is", "was", "has", "its", "this", "plus", "ms"}
# Texts whose count is never 1, with the reason.
NEVER_ONE = {
    "notice.idle_warning": "{seconds} is a third of the turn time, which is at least 15 s",
    "ruleset.target": "a Bummerl's target is 6 to 99 game points (bot/game/rulesettings.py TARGET_RANGE)",
}


@pytest.mark.parametrize(
    ("lang", "count", "form"),
    [("en", 1, "one"), ("en", 0, "other"), ("en", 2, "other"), ("de", 1, "one"), ("de", 21, "other"),
     ("nl", 1, "one"), ("nl", 0, "other"), ("tr", 1, "other"), ("tr", 2, "other")],
)  # fmt: skip
def test_the_plural_rule_of_each_language(lang, count, form):
    assert plural(lang, count) == form


def one_of_everything(key: str, text: str) -> str:
    return text.format(**{name: "1" if name in COUNTS else "X" for name in placeholders(text)})


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
    for slip in ("The game record (1 finished deals).", "North & South win 1 game points", "at least 1 people"):
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
    },
    "de": {
        "reply.export": ("Die Spielaufzeichnung (0 fertige Runden).", "Die Spielaufzeichnung (1 fertige Runde).",
                         "Die Spielaufzeichnung (2 fertige Runden)."),
        "result.title": ("A gewinnen 0 Punkte", "A gewinnen 1 Punkt", "A gewinnen 2 Punkte"),
    },
    "nl": {
        "reply.export": ("Het spelverslag (0 afgeronde rondes).", "Het spelverslag (1 afgeronde ronde).",
                         "Het spelverslag (2 afgeronde rondes)."),
        "result.title": ("A winnen 0 tellers", "A winnen 1 teller", "A winnen 2 tellers"),
    },
    "tr": {  # a noun after a number stays singular
        "reply.export": ("Oyun kaydı (0 tamamlanmış tur).", "Oyun kaydı (1 tamamlanmış tur).",
                         "Oyun kaydı (2 tamamlanmış tur)."),
        "result.title": ("A 0 oyun sayısı kazandı", "A 1 oyun sayısı kazandı", "A 2 oyun sayısı kazandı"),
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
