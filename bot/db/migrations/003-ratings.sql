-- Skill ratings (docs/ratings.md). A rated player is a person (their user id, > 0) or one AI identity per AI
-- strength (a reserved negative id: -1 pimc, -2 greedy; bot/db/models.py AI_IDENTITIES). One rating per
-- player per guild; one history row per player per rated Bummerl. Everything here can be recomputed from
-- bummerl_results (python -m bot.ratings rebuild); the bot does so on its first start after this migration.

-- At least this many people (not AI seats) at a table at the end of a Bummerl for it to be rated.
ALTER TABLE guild_settings ADD COLUMN rated_min_people INTEGER NOT NULL DEFAULT 2
    CHECK (rated_min_people BETWEEN 1 AND 4);

-- The AI strength the guild's AI seats played with when the Bummerl ended (their rating identity). Rows
-- stored before this migration get the guild's setting of today, the best that is known.
ALTER TABLE bummerl_results ADD COLUMN ai_strength TEXT NOT NULL DEFAULT 'pimc'
    CHECK (ai_strength IN ('pimc', 'greedy'));

UPDATE bummerl_results SET ai_strength = COALESCE(
    (SELECT g.ai_strength FROM guild_settings AS g WHERE g.guild_id = bummerl_results.guild_id), 'pimc');

CREATE TABLE ratings (
    guild_id  INTEGER NOT NULL,
    player_id INTEGER NOT NULL CHECK (player_id <> 0),  -- a user id, or an AI identity (< 0)
    mu        REAL    NOT NULL,
    sigma     REAL    NOT NULL CHECK (sigma > 0),
    games     INTEGER NOT NULL CHECK (games >= 0),  -- rated Bummerl played
    PRIMARY KEY (guild_id, player_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE rating_history (
    bummerl_id   INTEGER NOT NULL REFERENCES bummerl_results (id) ON DELETE CASCADE,
    guild_id     INTEGER NOT NULL,
    player_id    INTEGER NOT NULL CHECK (player_id <> 0),
    mu_before    REAL    NOT NULL,
    sigma_before REAL    NOT NULL,
    mu_after     REAL    NOT NULL,
    sigma_after  REAL    NOT NULL,
    PRIMARY KEY (bummerl_id, player_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX rating_history_by_player ON rating_history (guild_id, player_id, bummerl_id);

-- Ratings are computed in Python (openskill), not SQL: a database with stored Bummerl gets this key, and the
-- bot rebuilds the ratings at its next start (and deletes the key).
INSERT INTO meta (key, value) SELECT 'ratings_rebuild_pending', '1' WHERE EXISTS (SELECT 1 FROM bummerl_results)
    ON CONFLICT (key) DO UPDATE SET value = excluded.value;
