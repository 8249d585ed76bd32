-- PostgreSQL's twin of ../007-daily.sql: the daily deal's days, par, attempts and their deals.
CREATE TABLE daily_days (
    day        text   PRIMARY KEY,  -- YYYY-MM-DD, UTC
    secret     bigint NOT NULL,
    created_at bigint NOT NULL
);

CREATE TABLE daily_par (
    day         text    NOT NULL REFERENCES daily_days (day),
    deal_no     integer NOT NULL CHECK (deal_no >= 0),
    points      integer NOT NULL,
    actions     text    NOT NULL,
    computed_at bigint  NOT NULL,
    PRIMARY KEY (day, deal_no)
);

CREATE TABLE daily_attempts (
    day          text   NOT NULL REFERENCES daily_days (day),
    user_id      bigint NOT NULL,
    guild_id     bigint NOT NULL,
    table_id     bigint NOT NULL UNIQUE,
    display_name text   NOT NULL,
    started_at   bigint NOT NULL,
    finished_at  bigint,
    PRIMARY KEY (day, user_id)
);
CREATE INDEX daily_attempts_by_guild ON daily_attempts (guild_id, day);

CREATE TABLE daily_channels (
    guild_id   bigint PRIMARY KEY,
    channel_id bigint NOT NULL,
    set_at     bigint NOT NULL
);

CREATE TABLE daily_posts (
    guild_id  bigint NOT NULL,
    day       text   NOT NULL,
    posted_at bigint NOT NULL,
    PRIMARY KEY (guild_id, day)
);

CREATE TABLE daily_hidden (
    user_id   bigint PRIMARY KEY,
    hidden_at bigint NOT NULL
);

CREATE TABLE daily_deals (
    table_id bigint  NOT NULL REFERENCES daily_attempts (table_id),
    deal_no  integer NOT NULL CHECK (deal_no >= 0),
    points   integer NOT NULL,
    PRIMARY KEY (table_id, deal_no)
);
