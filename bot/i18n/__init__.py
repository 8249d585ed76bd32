"""Every user-facing text of the bot comes from one catalogue per language (``<lang>.json`` beside this file).

Keys are dotted names; values are ``str.format`` templates. A key missing from a language falls back to English
(the tests prove no catalogue misses one).
"""

from __future__ import annotations

import json
import string
from functools import cache
from pathlib import Path

from bot.vocabulary import DEFAULT_LANGUAGE, LANGUAGES

CATALOGUE_DIR = Path(__file__).parent


@cache
def catalogue(lang: str) -> dict[str, str]:
    path = CATALOGUE_DIR / f"{lang}.json"
    if not path.exists():
        return {}
    data: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return data


def available_languages() -> tuple[str, ...]:
    return tuple(lang for lang in LANGUAGES if catalogue(lang))


def t(lang: str, key: str, /, **values: object) -> str:
    """The text for ``key`` in ``lang`` with its placeholders filled in."""
    template = catalogue(lang).get(key) or catalogue(DEFAULT_LANGUAGE).get(key)
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
