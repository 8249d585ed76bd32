-- PostgreSQL's twin of ../006-rule-settings.sql: a server's rule settings changed from its preset.

ALTER TABLE guild_settings ADD COLUMN rule_changes_json text NOT NULL DEFAULT '{}'
    CHECK (jsonb_typeof(rule_changes_json::jsonb) = 'object');
