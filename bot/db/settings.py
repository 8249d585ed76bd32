"""Per-guild defaults chosen with `/schnapsen settings` and `/schnapsen server-rules`."""

from __future__ import annotations

import json

from .core import Repository
from .models import GuildSettings


class GuildSettingsRepo(Repository):
    async def get_guild_settings(self, guild_id: int) -> GuildSettings:
        """The guild's settings, or the defaults when it never saved any."""
        row = await self._core.fetch_one(
            "SELECT guild_id, language, preset, deck, turn_seconds, ai_strength, ai_delay_ms, rated_min_people,"
            " table_threads, deal_review, web_pages, web_token, rule_changes_json FROM guild_settings WHERE guild_id = ?",
            (guild_id,),
        )
        if row is None:
            return GuildSettings(guild_id)
        values = dict(row)
        values["table_threads"] = bool(values["table_threads"])
        values["deal_review"] = bool(values["deal_review"])
        values["web_pages"] = bool(values["web_pages"])
        values["rule_changes"] = json.loads(values.pop("rule_changes_json"))
        return GuildSettings(**values)

    async def save_guild_settings(self, settings: GuildSettings) -> None:
        async with self._core.transaction():
            await self._core.execute(
                """
                INSERT INTO guild_settings (guild_id, language, preset, deck, turn_seconds, ai_strength,
                                            ai_delay_ms, rated_min_people, table_threads, deal_review,
                                            web_pages, web_token, rule_changes_json)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (guild_id) DO UPDATE SET
                    language = excluded.language, preset = excluded.preset, deck = excluded.deck,
                    turn_seconds = excluded.turn_seconds, ai_strength = excluded.ai_strength,
                    ai_delay_ms = excluded.ai_delay_ms, rated_min_people = excluded.rated_min_people,
                    table_threads = excluded.table_threads, deal_review = excluded.deal_review,
                    web_pages = excluded.web_pages, web_token = excluded.web_token,
                    rule_changes_json = excluded.rule_changes_json
                """,
                (
                    settings.guild_id,
                    settings.language,
                    settings.preset,
                    settings.deck,
                    settings.turn_seconds,
                    settings.ai_strength,
                    settings.ai_delay_ms,
                    settings.rated_min_people,
                    int(settings.table_threads),
                    int(settings.deal_review),
                    int(settings.web_pages),
                    settings.web_token,
                    json.dumps(settings.rule_changes, sort_keys=True),
                ),
            )

    async def guild_of_web_token(self, token: str) -> int | None:
        """The guild whose web pages are on and carry ``token`` in their URLs; None for any other token."""
        row = await self._core.fetch_one(
            "SELECT guild_id FROM guild_settings WHERE web_token = ? AND web_pages = 1", (token,)
        )
        return None if row is None else int(row["guild_id"])
