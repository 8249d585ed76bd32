-- Server tournaments (issue 30; the rules: bot/tournament/, the queries: bot/db/tournaments.py). A
-- tournament's sign-ups become its teams at the start; each round's pairings are its matches, each played at
-- a card table of its own (`table_id`) or decided without one (a bye, a forfeit, the organiser's hand: the
-- organiser's decisions are kept with their reason in `tournament_log`).
CREATE TABLE tournaments (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id           INTEGER NOT NULL,
    channel_id         INTEGER NOT NULL,  -- where it signs up, posts standings and opens its matches' threads
    organiser_id       INTEGER NOT NULL,
    name               TEXT    NOT NULL,
    format             TEXT    NOT NULL CHECK (format IN ('swiss', 'elimination')),
    swiss_rounds       INTEGER NOT NULL CHECK (swiss_rounds >= 0),
    bummerl_per_match  INTEGER NOT NULL CHECK (bummerl_per_match IN (1, 3)),
    rules_json         TEXT    NOT NULL CHECK (json_valid(rules_json)),
    turn_seconds       INTEGER NOT NULL CHECK (turn_seconds > 0),
    ai_stand_in        INTEGER NOT NULL DEFAULT 0 CHECK (ai_stand_in IN (0, 1)),
    -- A team whose two players are both played by the AI this long after its match's table opened loses by
    -- forfeit (0: never).
    no_show_seconds    INTEGER NOT NULL DEFAULT 300 CHECK (no_show_seconds >= 0),
    starts_at          INTEGER,
    status             TEXT    NOT NULL DEFAULT 'signup'
                               CHECK (status IN ('signup', 'running', 'paused', 'finished', 'cancelled')),
    signup_message_id  INTEGER,
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL
) STRICT;

CREATE INDEX tournaments_open ON tournaments (guild_id) WHERE status IN ('signup', 'running', 'paused');

-- A person forgotten on request (bot/db/privacy.py) keeps a negative pseudonym in a tournament's sign-ups and
-- teams, and the name "(removed)".
CREATE TABLE tournament_signups (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    user_id       INTEGER NOT NULL CHECK (user_id <> 0),
    display_name  TEXT    NOT NULL,
    partner_id    INTEGER CHECK (partner_id <> 0),  -- NULL: alone, to be paired with another single
    signed_at     INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, user_id)
) STRICT;

CREATE TABLE tournament_teams (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    tournament_id  INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    seed           INTEGER NOT NULL CHECK (seed >= 1),
    first_user_id  INTEGER NOT NULL CHECK (first_user_id <> 0),
    second_user_id INTEGER NOT NULL CHECK (second_user_id <> 0),
    name           TEXT    NOT NULL,
    removed        INTEGER NOT NULL DEFAULT 0 CHECK (removed IN (0, 1)),
    UNIQUE (tournament_id, seed)
) STRICT;

CREATE TABLE tournament_forbidden (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    first_team    INTEGER NOT NULL REFERENCES tournament_teams (id) ON DELETE CASCADE,
    second_team   INTEGER NOT NULL REFERENCES tournament_teams (id) ON DELETE CASCADE,
    PRIMARY KEY (tournament_id, first_team, second_team),
    CHECK (first_team < second_team)
) STRICT;

CREATE TABLE tournament_rounds (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    round         INTEGER NOT NULL CHECK (round >= 1),
    started_at    INTEGER NOT NULL,
    ended_at      INTEGER,
    PRIMARY KEY (tournament_id, round)
) STRICT;

CREATE TABLE tournament_matches (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    tournament_id      INTEGER NOT NULL,
    round              INTEGER NOT NULL,
    slot               INTEGER NOT NULL CHECK (slot >= 0),
    first_team         INTEGER NOT NULL REFERENCES tournament_teams (id),
    second_team        INTEGER REFERENCES tournament_teams (id),  -- NULL: a bye
    table_id           INTEGER UNIQUE REFERENCES game_tables (id),
    status             TEXT    NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'playing', 'done')),
    winner_team        INTEGER REFERENCES tournament_teams (id),  -- NULL when done: both lost
    first_game_points  INTEGER NOT NULL DEFAULT 0,
    second_game_points INTEGER NOT NULL DEFAULT 0,
    first_bummerl      INTEGER NOT NULL DEFAULT 0 CHECK (first_bummerl >= 0),  -- Bummerl won so far
    second_bummerl     INTEGER NOT NULL DEFAULT 0 CHECK (second_bummerl >= 0),
    decided_by         TEXT    CHECK (decided_by IN ('play', 'bye', 'forfeit', 'organiser')),
    ended_at           INTEGER,
    UNIQUE (tournament_id, round, slot),
    FOREIGN KEY (tournament_id, round) REFERENCES tournament_rounds (tournament_id, round) ON DELETE CASCADE,
    CHECK ((status = 'done') = (decided_by IS NOT NULL))
) STRICT;

CREATE TABLE tournament_log (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    at            INTEGER NOT NULL,
    actor_id      INTEGER NOT NULL,
    action        TEXT    NOT NULL,  -- 'result', 'remove', 'forbid', 'status'
    match_id      INTEGER REFERENCES tournament_matches (id) ON DELETE CASCADE,
    reason        TEXT    NOT NULL
) STRICT;
