"""The pages' words in the viewer's language (en, de, nl, tr): which language a request gets, and the texts of
cards, contracts, seats, teams and what each action did, from the bot's own catalogues (``bot/i18n``, the
``web.*`` keys beside the ones the table messages use) and ``bot.render.names``' card names."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from markupsafe import Markup

from bot.game.table import LogLine, TableSnapshot, log_events
from bot.i18n import catalogue, t
from bot.render.names import card_name, label, suit_name
from bot.schnapsen.texts import log_line, result_line, seat_name, why_text
from bot.vocabulary import DEFAULT_LANGUAGE, LANGUAGES
from engine import Contract
from engine.events import CardPlayed, Event

MAX_ACCEPT = 400  # characters of Accept-Language read (a longer header is somebody's experiment)


def language_of(override: str | None, accept_language: str) -> str:
    """The page's language: ``?lang=`` when given (the caller refuses an unknown one), else the first of the
    viewer's Accept-Language that the bot speaks, by its weight (``de-AT`` is German), else English.

    >>> language_of(None, "fr-FR,fr;q=0.9,de-AT;q=0.8,en;q=0.5"), language_of("tr", "de"), language_of(None, "")
    ('de', 'tr', 'en')
    """
    if override is not None:
        return override
    wanted: list[tuple[float, int, str]] = []
    for position, part in enumerate(accept_language[:MAX_ACCEPT].split(",")):
        tag, _, params = part.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                continue
        primary = tag.strip().split("-")[0].lower()
        if primary in LANGUAGES and weight > 0:
            wanted.append((-weight, position, primary))
    return min(wanted)[2] if wanted else DEFAULT_LANGUAGE


def html(lang: str, key: str, **values: object) -> Markup:
    """A catalogue text whose placeholders take markup (a name as a link): the text itself is escaped, each
    value escaped unless it is markup already."""
    texts = catalogue(lang)
    template = texts.get(key) or catalogue(DEFAULT_LANGUAGE)[key]
    return Markup.escape(template).format(**values)


def html_label(lang: str, key: str, **values: object) -> Markup:
    """The same for a label of ``bot.render.names`` (the profile card's words)."""
    return Markup.escape(label(key, lang, **{name: "{" + name + "}" for name in values})).format(**values)


def contract_name(lang: str, contract: Contract | str | None) -> str | None:
    if contract is None:
        return None
    return t(lang, f"contract.{contract if isinstance(contract, str) else contract.id}")


def seat_label(lang: str, seat: int) -> str:
    return t(lang, f"seat.{seat}")


def side_label(lang: str, team: int) -> str:
    return t(lang, f"team.{team}")


def team_label(names: Sequence[str], team: int, lang: str) -> str:
    return label("team", lang, a=names[team], b=names[team + 2])


def card_label(card: str, deck: str, lang: str) -> str:
    return card_name(card, deck, lang)


def suit_label(suit: str | None, deck: str, lang: str) -> str | None:
    return None if suit is None else suit_name(suit, deck, lang)


def auction_lines(auction: Sequence[tuple[int, Any]], names: Sequence[str], lang: str) -> list[str]:
    """The bids so far, one "name: bid" each ("pass" as the Pass button says it)."""
    return [
        t(lang, "web.said", name=names[seat], word=t(lang, "button.pass") if bid is None else contract_name(lang, bid))
        for seat, bid in auction
    ]


def doubling_lines(doubling: Sequence[tuple[int, str]], names: Sequence[str], lang: str) -> list[str]:
    """The doubling so far, one "name: Kontra" (or the Pass button's word) each."""
    return [
        t(lang, "web.said", name=names[seat], word=t(lang, "button.pass") if word == "pass" else t(lang, f"double.{word}"))
        for seat, word in doubling
    ]


def marriage_lines(marriages: Sequence[Any], names: Sequence[str], deck: str, lang: str) -> list[str]:
    return [
        t(lang, "web.marriage", name=names[m.seat], value=m.value, suit=suit_name(m.suit, deck, lang))
        for m in marriages
    ]


def event_lines(table: TableSnapshot, events: Sequence[Event], lang: str) -> list[str]:
    """What an action did, one sentence per public fact, as the table message's log says it; and the card
    played, which the log leaves to the table's picture (a replay's step names it)."""
    lines: list[str] = []
    for event in events:
        if isinstance(event, CardPlayed):
            card = card_label(event.card, table.deck, lang)
            lines.append(t(lang, "web.played", name=seat_name(table, event.seat), card=card))
            continue
        logged: tuple[LogLine, ...] = log_events((), (event,))
        lines += [log_line(table, lang, key, values) for key, values in logged]
    return lines


def dealt_line(table: TableSnapshot, dealer: int, lang: str) -> str:
    return log_line(table, lang, "log.new_deal", {"dealer": dealer})


def result_text(table: TableSnapshot, lang: str) -> str:
    """A finished deal's result as the result message says it: who won how many game points, whose contract
    was made or failed, and why."""
    deal = table.deal
    assert deal is not None and deal.result is not None
    names = [seat_name(table, seat) for seat in range(4)]
    title = t(lang, "result.title", team=team_label(names, deal.result.winner, lang), count=deal.result.game_points)
    return f"{title}. {result_line(table, lang, deal)} {t(lang, 'result.reason', reason=why_text(table, lang, deal))}"


def script_words(lang: str, keys: Mapping[str, str]) -> dict[str, str]:
    """The texts a page's script fills in itself ({name} and the like left in), by the script's own names."""
    return {name: t(lang, key, **_kept(lang, key)) for name, key in keys.items()}


def _kept(lang: str, key: str) -> dict[str, str]:
    from bot.i18n import placeholders

    template = catalogue(lang).get(key) or catalogue(DEFAULT_LANGUAGE)[key]
    return {name: "{" + name + "}" for name in placeholders(template)}


def translator(lang: str) -> Callable[..., str]:
    """``_`` in the templates: ``_("web.key", name=...)``."""
    return lambda key, **values: t(lang, key, **values)
