-- PostgreSQL's twin of ../004-play-and-learn.sql: deal review, tables in threads, practice tables and
-- a person's own choices.

ALTER TABLE guild_settings ADD COLUMN deal_review integer NOT NULL DEFAULT 1 CHECK (deal_review IN (0, 1));

ALTER TABLE guild_settings ADD COLUMN table_threads integer NOT NULL DEFAULT 0 CHECK (table_threads IN (0, 1));

ALTER TABLE game_tables ADD COLUMN practice integer NOT NULL DEFAULT 0 CHECK (practice IN (0, 1));

ALTER TABLE game_tables ADD COLUMN thread_parent_id bigint;

CREATE TABLE player_prefs (
    user_id    bigint PRIMARY KEY CHECK (user_id > 0),
    hand_place text   NOT NULL DEFAULT 'dm' CHECK (hand_place IN ('dm', 'channel')),
    hand_order text   NOT NULL DEFAULT 'sorted' CHECK (hand_order IN ('sorted', 'dealt')),
    updated_at bigint NOT NULL
);
