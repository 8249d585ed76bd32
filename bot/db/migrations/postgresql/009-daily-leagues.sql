-- PostgreSQL's twin of ../009-daily-leagues.sql: each server's monthly league ladder of the daily deal.
CREATE TABLE daily_league_ladder (
    guild_id     bigint  NOT NULL,
    month        text    NOT NULL,
    position     integer NOT NULL CHECK (position >= 0),
    user_id      bigint  NOT NULL,
    display_name text    NOT NULL,
    built_at     bigint  NOT NULL,
    PRIMARY KEY (guild_id, month, user_id),
    UNIQUE (guild_id, month, position)
);

CREATE TABLE daily_league_months (
    guild_id     bigint NOT NULL,
    month        text   NOT NULL,
    built_at     bigint NOT NULL,
    announced_at bigint,
    PRIMARY KEY (guild_id, month)
);

ALTER TABLE daily_attempts ADD COLUMN place text NOT NULL DEFAULT 'dm' CHECK (place IN ('dm', 'channel'));
