-- PostgreSQL's twin of ../011-web-pages.sql: the web companion's per-server switch and its URL token.
ALTER TABLE guild_settings ADD COLUMN web_pages integer NOT NULL DEFAULT 0 CHECK (web_pages IN (0, 1));
ALTER TABLE guild_settings ADD COLUMN web_token text;
CREATE UNIQUE INDEX guild_settings_web_token ON guild_settings (web_token) WHERE web_token IS NOT NULL;
