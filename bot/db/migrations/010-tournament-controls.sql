-- The organiser's controls of server tournaments (issue 30): a scheduled start (`starts_at`, already there),
-- a pause, the AI stand-in switch, the winner kept for the profile, and the role a server names for
-- organisers.
--
-- `paused_at`: when the organiser paused the tournament (NULL: not paused by the organiser; a tournament that
-- paused itself because no pairing was possible has status 'paused' and no `paused_at`).
ALTER TABLE tournaments ADD COLUMN paused_at INTEGER;
-- The winning team once finished (NULL: not finished, or finished before this column was added).
-- (No foreign key: copydata copies `tournaments` before `tournament_teams`.)
ALTER TABLE tournaments ADD COLUMN winner_team INTEGER;
-- Tournaments created before the switch had the AI stand in for an absent partner: they keep it.
UPDATE tournaments SET ai_stand_in = 1;

-- Seconds a match's no-show clock stood still while its tournament was paused: its deadline moves by as much.
ALTER TABLE tournament_matches ADD COLUMN paused_seconds INTEGER NOT NULL DEFAULT 0 CHECK (paused_seconds >= 0);

-- Besides people with Manage Server, members with this role may create and run the server's tournaments.
CREATE TABLE tournament_organiser_roles (
    guild_id INTEGER PRIMARY KEY,
    role_id  INTEGER NOT NULL
) STRICT;
