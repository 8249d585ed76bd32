-- PostgreSQL's twin of ../010-tournament-controls.sql: the organiser's pause, the AI stand-in switch, the
-- winner kept for the profile, and the role a server names for organisers.
ALTER TABLE tournaments ADD COLUMN paused_at bigint;
ALTER TABLE tournaments ADD COLUMN winner_team bigint;  -- a team id; no foreign key (copydata order)
UPDATE tournaments SET ai_stand_in = 1;

ALTER TABLE tournament_matches ADD COLUMN paused_seconds integer NOT NULL DEFAULT 0 CHECK (paused_seconds >= 0);

CREATE TABLE tournament_organiser_roles (
    guild_id bigint PRIMARY KEY,
    role_id  bigint NOT NULL
);
