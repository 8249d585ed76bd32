-- A server's own rule settings for new tables (`/schnapsen server-rules`): the settings it changed from its
-- preset, as a JSON object of the engine's record form ({"target": 12, "score_display": "count_down"}).
-- The preset itself stays in `preset`; '{}' is the preset unchanged.
ALTER TABLE guild_settings ADD COLUMN rule_changes_json TEXT NOT NULL DEFAULT '{}'
    CHECK (json_valid(rule_changes_json) AND json_type(rule_changes_json) = 'object');
