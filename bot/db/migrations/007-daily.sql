-- The daily deal (bot/game/daily.py): the same deals for everyone each UTC day, scored against the AI's par.
-- `daily_days.secret` is the day's seed: every deal of the day is derived from it, so no command shows it
-- before the day is over. `daily_par` is North-South's signed game points (won: +, lost: -) when the AI plays
-- all four seats of the deal, with its line of play; computed once, in the background, and never again.
CREATE TABLE daily_days (
    day        TEXT    PRIMARY KEY,  -- YYYY-MM-DD, UTC
    secret     INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);

CREATE TABLE daily_par (
    day         TEXT    NOT NULL REFERENCES daily_days (day),
    deal_no     INTEGER NOT NULL CHECK (deal_no >= 0),
    points      INTEGER NOT NULL,
    actions     TEXT    NOT NULL,  -- the AI's line: the deal's actions in record notation, one per line
    computed_at INTEGER NOT NULL,
    PRIMARY KEY (day, deal_no)
);

-- One attempt per person per day: a table of its own (the person in North, three AI seats).
CREATE TABLE daily_attempts (
    day          TEXT    NOT NULL REFERENCES daily_days (day),
    user_id      INTEGER NOT NULL,
    guild_id     INTEGER NOT NULL,
    table_id     INTEGER NOT NULL UNIQUE,
    display_name TEXT    NOT NULL,
    started_at   INTEGER NOT NULL,
    finished_at  INTEGER,  -- NULL while the attempt's table is open
    PRIMARY KEY (day, user_id)
);
CREATE INDEX daily_attempts_by_guild ON daily_attempts (guild_id, day);

-- Where a server wants each day's results posted (`/schnapsen settings daily_channel`), and which days' results
-- were posted there (a row is written before the post and removed again when the post failed).
CREATE TABLE daily_channels (
    guild_id   INTEGER PRIMARY KEY,
    channel_id INTEGER NOT NULL,
    set_at     INTEGER NOT NULL
);

CREATE TABLE daily_posts (
    guild_id  INTEGER NOT NULL,
    day       TEXT    NOT NULL,
    posted_at INTEGER NOT NULL,
    PRIMARY KEY (guild_id, day)
);

-- People who keep out of the board across all servers (`/schnapsen daily visibility`).
CREATE TABLE daily_hidden (
    user_id   INTEGER PRIMARY KEY,
    hidden_at INTEGER NOT NULL
);

-- Each finished deal of an attempt: the person's team's signed game points (written by its subscriber).
CREATE TABLE daily_deals (
    table_id INTEGER NOT NULL REFERENCES daily_attempts (table_id),
    deal_no  INTEGER NOT NULL CHECK (deal_no >= 0),
    points   INTEGER NOT NULL,
    PRIMARY KEY (table_id, deal_no)
);
