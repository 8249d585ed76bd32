-- Monthly leagues of the daily deal (bot/game/dailyleague.py): each server's ladder for a month, seeded from
-- the month before at the first look once that month's attempts are all over, and written once (a second
-- builder computes the same ladder and leaves the first). Who joins during the month is not stored: they are
-- at the bottom, in the order of their first attempt (daily_attempts).
CREATE TABLE daily_league_ladder (
    guild_id     INTEGER NOT NULL,
    month        TEXT    NOT NULL,  -- YYYY-MM (UTC)
    position     INTEGER NOT NULL CHECK (position >= 0),  -- 0: the top of the first division
    user_id      INTEGER NOT NULL,
    display_name TEXT    NOT NULL,
    built_at     INTEGER NOT NULL,
    PRIMARY KEY (guild_id, month, user_id),
    UNIQUE (guild_id, month, position)
) STRICT;

-- Whether a server's ladder for a month has been built (an empty one, too: nobody played the month before), and
-- when the month before's final standings were posted to the server's daily channel (claimed before the post,
-- given back when it fails).
CREATE TABLE daily_league_months (
    guild_id     INTEGER NOT NULL,
    month        TEXT    NOT NULL,
    built_at     INTEGER NOT NULL,
    announced_at INTEGER,
    PRIMARY KEY (guild_id, month)
) STRICT;

-- Where an attempt is played (`/schnapsen daily play where:`): in the person's DM with the bot, or in a
-- server channel as one ephemeral message that only they see (its table is kept under their DM channel's
-- id all the same: a key of theirs alone, to which nothing of this attempt is posted).
ALTER TABLE daily_attempts ADD COLUMN place TEXT NOT NULL DEFAULT 'dm' CHECK (place IN ('dm', 'channel'));
