-- The web companion (issue 36, docs/web.md): a server's pages are off until a Manage Server person turns them
-- on (`/schnapsen settings web_pages`). `web_token` is the unguessable part of every URL of the server's pages,
-- made the first time they are turned on and kept when they are turned off and on again (links stay valid);
-- NULL: never turned on.
ALTER TABLE guild_settings ADD COLUMN web_pages INTEGER NOT NULL DEFAULT 0 CHECK (web_pages IN (0, 1));
ALTER TABLE guild_settings ADD COLUMN web_token TEXT;
CREATE UNIQUE INDEX guild_settings_web_token ON guild_settings (web_token) WHERE web_token IS NOT NULL;
