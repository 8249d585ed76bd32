-- One-screen play, deal review, practice tables and tables in threads (docs/bot.md). Schema only; the
-- columns are read and written by bot/db and reached only through the table service.

-- The guild lets everyone see every deal's four hands and tricks after the deal ("Show the deal").
ALTER TABLE guild_settings ADD COLUMN deal_review INTEGER NOT NULL DEFAULT 1 CHECK (deal_review IN (0, 1));

-- `/schnapsen new` opens a public thread for the table in the channel it is used in.
ALTER TABLE guild_settings ADD COLUMN table_threads INTEGER NOT NULL DEFAULT 0 CHECK (table_threads IN (0, 1));

-- A practice table: hints on every turn; its deals count for no leaderboard, statistic or rating.
ALTER TABLE game_tables ADD COLUMN practice INTEGER NOT NULL DEFAULT 0 CHECK (practice IN (0, 1));

-- For a table in a thread, the channel the thread was opened in (channel_id is the thread); NULL otherwise.
ALTER TABLE game_tables ADD COLUMN thread_parent_id INTEGER;

-- A person's own choices, the same in every guild: where their hand lives and in which order it is shown.
CREATE TABLE player_prefs (
    user_id    INTEGER PRIMARY KEY CHECK (user_id > 0),
    hand_place TEXT    NOT NULL DEFAULT 'dm' CHECK (hand_place IN ('dm', 'channel')),
    hand_order TEXT    NOT NULL DEFAULT 'sorted' CHECK (hand_order IN ('sorted', 'dealt')),
    updated_at INTEGER NOT NULL
) STRICT;
