"""Every user-facing text of the bot comes from one catalogue per language (``<lang>.json`` beside this file).

Keys are dotted names; values are ``str.format`` templates. A key missing from a language falls back to English
(the tests prove no catalogue misses one).

A text that says a number of something has plural forms: ``key.one`` and ``key.other`` in English, German and
Dutch ("1 finished deal", "2 finished deals"); Turkish keeps the noun after a number singular ("2 tamamlanmış
tur"), so it has ``key.other`` only. ``t(lang, key, count=n)`` picks the form by ``n`` (``plural``).
"""

from __future__ import annotations

import json
import string
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from bot.vocabulary import DEFAULT_LANGUAGE, LANGUAGES

CATALOGUE_DIR = Path(__file__).parent

# The plural forms each language's catalogue writes, and which one a count takes (CLDR's rules for whole
# numbers; Turkish distinguishes none: a noun after a number stays singular).
PLURAL_FORMS: dict[str, tuple[str, ...]] = {"en": ("one", "other"), "de": ("one", "other"),
                                            "nl": ("one", "other"), "tr": ("other",)}  # fmt: skip


def plural(lang: str, count: int) -> str:
    """The plural form ``count`` takes in ``lang``.

    >>> plural("en", 1), plural("en", 0), plural("de", 2), plural("tr", 1)
    ('one', 'other', 'other', 'other')
    """
    return "one" if count == 1 and "one" in PLURAL_FORMS.get(lang, ()) else "other"


@cache
def catalogue(lang: str) -> dict[str, str]:
    path = CATALOGUE_DIR / f"{lang}.json"
    if not path.exists():
        return {}
    data: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return data


def available_languages() -> tuple[str, ...]:
    return tuple(lang for lang in LANGUAGES if catalogue(lang))


def plural_keys(keys: Iterable[str]) -> set[str]:
    """The keys with plural forms among ``keys``: ``key`` for every ``key.other``."""
    return {key.removesuffix(".other") for key in keys if key.endswith(".other")}


def _template(lang: str, key: str, values: dict[str, object]) -> str | None:
    texts = catalogue(lang)
    if key in texts:
        return texts[key]
    count = values.get("count")
    if isinstance(count, int) and f"{key}.other" in texts:
        return texts.get(f"{key}.{plural(lang, count)}")
    return None


def t(lang: str, key: str, /, **values: object) -> str:
    """The text for ``key`` in ``lang`` with its placeholders filled in; a key with plural forms takes the form
    its ``count`` asks for."""
    template = _template(lang, key, values) or _template(DEFAULT_LANGUAGE, key, values)
    if template is None:
        raise KeyError(f"no text for {key!r}")
    return template.format(**values)


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def language_for_locale(locale: object) -> str:
    """Map a Discord locale (``de``, ``en-US``, ``nl``, ``tr`` ...) to a supported language."""
    code = str(getattr(locale, "value", locale) or "").lower()
    for lang in available_languages():
        if code == lang or code.startswith(lang + "-"):
            return lang
    return DEFAULT_LANGUAGE
