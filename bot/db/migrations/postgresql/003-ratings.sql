-- PostgreSQL's twin of ../003-ratings.sql: skill ratings per guild and their history (docs/ratings.md).

ALTER TABLE guild_settings ADD COLUMN rated_min_people integer NOT NULL DEFAULT 2
    CHECK (rated_min_people BETWEEN 1 AND 4);

ALTER TABLE bummerl_results ADD COLUMN ai_strength text NOT NULL DEFAULT 'pimc'
    CHECK (ai_strength IN ('pimc', 'greedy'));

UPDATE bummerl_results SET ai_strength = COALESCE(
    (SELECT g.ai_strength FROM guild_settings AS g WHERE g.guild_id = bummerl_results.guild_id), 'pimc');

CREATE TABLE ratings (
    guild_id  bigint           NOT NULL,
    player_id bigint           NOT NULL CHECK (player_id <> 0),
    mu        double precision NOT NULL,
    sigma     double precision NOT NULL CHECK (sigma > 0),
    games     integer          NOT NULL CHECK (games >= 0),
    PRIMARY KEY (guild_id, player_id)
);

CREATE TABLE rating_history (
    bummerl_id   bigint           NOT NULL REFERENCES bummerl_results (id) ON DELETE CASCADE,
    guild_id     bigint           NOT NULL,
    player_id    bigint           NOT NULL CHECK (player_id <> 0),
    mu_before    double precision NOT NULL,
    sigma_before double precision NOT NULL,
    mu_after     double precision NOT NULL,
    sigma_after  double precision NOT NULL,
    PRIMARY KEY (bummerl_id, player_id)
);

CREATE INDEX rating_history_by_player ON rating_history (guild_id, player_id, bummerl_id);

INSERT INTO meta (key, value) SELECT 'ratings_rebuild_pending', '1' WHERE EXISTS (SELECT 1 FROM bummerl_results)
    ON CONFLICT (key) DO UPDATE SET value = excluded.value;
