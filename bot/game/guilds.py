"""A server's defaults for new tables (``/schnapsen settings`` and ``/schnapsen server-rules``)."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import engine
from bot.db import Database, GuildSettings
from bot.vocabulary import AI_STRENGTHS, DECK_STYLES, LANGUAGES

from . import rulesettings
from .errors import UserError, check_turn_seconds, one_of


class GuildDefaults:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        return await self.db.settings.get_guild_settings(guild_id)

    async def update_guild_settings(
        self,
        guild_id: int,
        *,
        language: str | None = None,
        preset: str | None = None,
        deck: str | None = None,
        turn_seconds: int | None = None,
        ai_strength: str | None = None,
        ai_delay_ms: int | None = None,
        rated_min_people: int | None = None,
        table_threads: bool | None = None,
        deal_review: bool | None = None,
        web_pages: bool | None = None,
    ) -> GuildSettings:
        """Change the server defaults that are given (None keeps one); an unknown value changes nothing.
        The web pages turned on for the first time get their URLs' unguessable token (kept from then on)."""
        current = await self.db.settings.get_guild_settings(guild_id)
        if turn_seconds is not None:
            check_turn_seconds(turn_seconds)
        if ai_delay_ms is not None and not 0 <= ai_delay_ms <= 10_000:
            raise UserError("error.bad_choice", value=ai_delay_ms)
        if rated_min_people is not None and not 1 <= rated_min_people <= 4:
            raise UserError("error.bad_choice", value=rated_min_people)
        updated = GuildSettings(
            guild_id=guild_id,
            language=current.language if language is None else one_of(language, LANGUAGES),
            preset=current.preset if preset is None else one_of(preset, tuple(engine.PRESETS), "error.bad_preset", preset=preset),
            deck=current.deck if deck is None else one_of(deck, DECK_STYLES, "error.bad_deck", deck=deck),
            turn_seconds=current.turn_seconds if turn_seconds is None else turn_seconds,
            ai_strength=current.ai_strength if ai_strength is None else one_of(ai_strength, AI_STRENGTHS),
            ai_delay_ms=current.ai_delay_ms if ai_delay_ms is None else ai_delay_ms,
            rated_min_people=current.rated_min_people if rated_min_people is None else rated_min_people,
            table_threads=current.table_threads if table_threads is None else table_threads,
            deal_review=current.deal_review if deal_review is None else deal_review,
            web_pages=current.web_pages if web_pages is None else web_pages,
            web_token=current.web_token or (new_web_token() if web_pages else None),
            rule_changes=current.rule_changes,  # changed by update_guild_rules only
        )
        await self.db.settings.save_guild_settings(updated)
        return updated

    async def update_guild_rules(
        self,
        guild_id: int,
        *,
        preset: str | None = None,
        reset: bool = False,
        changes: Mapping[str, Any] | None = None,
    ) -> GuildSettings:
        """Change the rules new tables of the guild get: as ``set_table_rules`` does for a lobby (tables
        already open keep theirs). Nothing is stored when a value is refused."""
        current = await self.db.settings.get_guild_settings(guild_id)
        kept = {} if reset else dict(current.rule_changes)
        given = rulesettings.checked_changes(changes or {})
        chosen = current.preset if preset is None else preset
        rules = rulesettings.ruleset_of(chosen, {**kept, **given})
        # Settings that equal the preset's are dropped, so that what is stored is what differs.
        updated = replace(current, preset=rules.preset, rule_changes=rulesettings.changes_from_preset(rules))
        await self.db.settings.save_guild_settings(updated)
        return updated


def new_web_token() -> str:
    """A server's web pages' token: 128 random bits, URL-safe (22 characters), never derived from an id."""
    return secrets.token_urlsafe(16)
