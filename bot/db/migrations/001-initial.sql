-- The initial schema. Applied by bot/db/migrate.py inside one transaction that also sets user_version.
-- Times are unix seconds given by the caller. Seats are 0..3 = N, E, S, W; teams 0 = NS, 1 = EW.

CREATE TABLE guild_settings (
    guild_id     INTEGER PRIMARY KEY,
    language     TEXT,  -- NULL: use the guild's locale
    preset       TEXT    NOT NULL CHECK (preset IN ('standard', 'stargames')),
    deck         TEXT    NOT NULL CHECK (deck IN ('doppeldeutsch', 'french')),
    turn_seconds INTEGER NOT NULL CHECK (turn_seconds > 0),
    ai_strength  TEXT    NOT NULL CHECK (ai_strength IN ('pimc', 'greedy')),
    ai_delay_ms  INTEGER NOT NULL CHECK (ai_delay_ms >= 0)
) STRICT;

-- A card table in a channel; `version` is bumped by every accepted action so stale buttons are refused.
CREATE TABLE game_tables (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id         INTEGER NOT NULL,
    channel_id       INTEGER NOT NULL,
    host_id          INTEGER NOT NULL,
    status           TEXT    NOT NULL DEFAULT 'lobby'
                             CHECK (status IN ('lobby', 'playing', 'finished', 'closed')),
    rules_json       TEXT    NOT NULL CHECK (json_valid(rules_json)),
    deck             TEXT    NOT NULL CHECK (deck IN ('doppeldeutsch', 'french')),
    turn_seconds     INTEGER NOT NULL CHECK (turn_seconds > 0),
    language         TEXT    NOT NULL,
    table_message_id INTEGER,
    version          INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0),
    first_dealer     INTEGER NOT NULL CHECK (first_dealer BETWEEN 0 AND 3),
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
) STRICT;

-- One table per channel that is not closed.
CREATE UNIQUE INDEX game_tables_one_open_per_channel ON game_tables (channel_id) WHERE status <> 'closed';
CREATE INDEX game_tables_open ON game_tables (status) WHERE status <> 'closed';

-- `table_open` mirrors the table's status (kept by the triggers below) so that a partial unique index
-- can say: a person sits at no more than one open table.
CREATE TABLE seats (
    table_id      INTEGER NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
    seat          INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    user_id       INTEGER CHECK (user_id > 0),  -- NULL: an AI player
    display_name  TEXT    NOT NULL,
    ai_takeover   INTEGER NOT NULL DEFAULT 0 CHECK (ai_takeover IN (0, 1)),
    dm_channel_id INTEGER,
    dm_message_id INTEGER,
    dms_closed    INTEGER NOT NULL DEFAULT 0 CHECK (dms_closed IN (0, 1)),
    warned        INTEGER NOT NULL DEFAULT 0 CHECK (warned IN (0, 1)),
    table_open    INTEGER NOT NULL DEFAULT 1 CHECK (table_open IN (0, 1)),
    PRIMARY KEY (table_id, seat),
    CHECK (user_id IS NOT NULL OR ai_takeover = 0)
) STRICT, WITHOUT ROWID;

CREATE UNIQUE INDEX seats_one_open_table_per_user ON seats (user_id)
    WHERE user_id IS NOT NULL AND table_open = 1;

CREATE TRIGGER game_tables_closed_is_final
BEFORE UPDATE OF status ON game_tables
WHEN OLD.status = 'closed' AND NEW.status <> 'closed'
BEGIN
    SELECT RAISE(ABORT, 'a closed table cannot be reopened');
END;

CREATE TRIGGER game_tables_close_seats
AFTER UPDATE OF status ON game_tables
WHEN NEW.status = 'closed' AND OLD.status <> 'closed'
BEGIN
    UPDATE seats SET table_open = 0 WHERE table_id = NEW.id;
END;

CREATE TRIGGER seats_not_at_closed_table
BEFORE INSERT ON seats
WHEN (SELECT status FROM game_tables WHERE id = NEW.table_id) = 'closed'
BEGIN
    SELECT RAISE(ABORT, 'a closed table has no free seats');
END;

-- The game record: each deal's seed and hands, then every accepted action in order.
CREATE TABLE deals (
    table_id   INTEGER NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
    deal_no    INTEGER NOT NULL CHECK (deal_no >= 0),
    dealer     INTEGER NOT NULL CHECK (dealer BETWEEN 0 AND 3),
    seed       INTEGER NOT NULL,
    hands_json TEXT    NOT NULL CHECK (json_valid(hands_json) AND json_array_length(hands_json) = 4),
    started_at INTEGER NOT NULL,
    PRIMARY KEY (table_id, deal_no)
) STRICT, WITHOUT ROWID;

CREATE TABLE actions (
    table_id   INTEGER NOT NULL,
    deal_no    INTEGER NOT NULL,
    seq        INTEGER NOT NULL CHECK (seq >= 0),
    action     TEXT    NOT NULL CHECK (length(action) > 0),
    created_at INTEGER NOT NULL,
    PRIMARY KEY (table_id, deal_no, seq),
    FOREIGN KEY (table_id, deal_no) REFERENCES deals (table_id, deal_no) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

CREATE TABLE deal_results (
    table_id      INTEGER NOT NULL,
    deal_no       INTEGER NOT NULL,
    contract      TEXT    NOT NULL CHECK (contract IN (
                      'normal', 'bettler', 'ass_bettler', 'schnapser', 'gang', 'zehnerloch',
                      'bauernschnapser', 'kontraschnapser', 'farbringerl', 'kontrabauernschnapser',
                      'trumpffarbringerl')),
    declarer_seat INTEGER NOT NULL CHECK (declarer_seat BETWEEN 0 AND 3),
    winner_team   INTEGER NOT NULL CHECK (winner_team IN (0, 1)),
    game_points   INTEGER NOT NULL CHECK (game_points >= 0),
    multiplier    INTEGER NOT NULL CHECK (multiplier IN (1, 2, 4, 8)),
    reason        TEXT    NOT NULL,
    finished_at   INTEGER NOT NULL,
    PRIMARY KEY (table_id, deal_no),
    FOREIGN KEY (table_id, deal_no) REFERENCES deals (table_id, deal_no) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;

-- Finished Bummerl, with both pairs (user id NULL for an AI seat) and their names at the time.
CREATE TABLE bummerl_results (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id      INTEGER NOT NULL,
    table_id      INTEGER NOT NULL REFERENCES game_tables (id),
    winner1_id    INTEGER,
    winner1_name  TEXT    NOT NULL,
    winner2_id    INTEGER,
    winner2_name  TEXT    NOT NULL,
    loser1_id     INTEGER,
    loser1_name   TEXT    NOT NULL,
    loser2_id     INTEGER,
    loser2_name   TEXT    NOT NULL,
    kind          TEXT    NOT NULL CHECK (kind IN ('bummerl', 'schneider', 'retourschneider')),
    count         INTEGER NOT NULL CHECK (count >= 1),
    score_winner  INTEGER NOT NULL,
    score_loser   INTEGER NOT NULL,
    finished_at   INTEGER NOT NULL
) STRICT;

CREATE INDEX bummerl_results_by_table ON bummerl_results (table_id);
CREATE INDEX bummerl_results_by_guild ON bummerl_results (guild_id, finished_at);

-- Per-guild statistics of humans (AI seats are never counted).
CREATE TABLE player_stats (
    guild_id           INTEGER NOT NULL,
    user_id            INTEGER NOT NULL CHECK (user_id > 0),
    display_name       TEXT    NOT NULL,
    bummerl_won        INTEGER NOT NULL DEFAULT 0 CHECK (bummerl_won >= 0),
    bummerl_lost       INTEGER NOT NULL DEFAULT 0 CHECK (bummerl_lost >= 0),
    deals_played       INTEGER NOT NULL DEFAULT 0 CHECK (deals_played >= 0),
    deals_won          INTEGER NOT NULL DEFAULT 0 CHECK (deals_won BETWEEN 0 AND deals_played),
    game_points        INTEGER NOT NULL DEFAULT 0 CHECK (game_points >= 0),
    contracts_declared INTEGER NOT NULL DEFAULT 0 CHECK (contracts_declared >= 0),
    contracts_made     INTEGER NOT NULL DEFAULT 0 CHECK (contracts_made BETWEEN 0 AND contracts_declared),
    PRIMARY KEY (guild_id, user_id)
) STRICT, WITHOUT ROWID;

-- Bummerl won by each pair of partners against each other pair. A pair is its two user ids sorted
-- (0 for an AI seat); the two pairs are stored sorted too, so (A,B) v (C,D) and (C,D) v (A,B) share a row.
CREATE TABLE team_tallies (
    guild_id    INTEGER NOT NULL,
    pair1_low   INTEGER NOT NULL,
    pair1_high  INTEGER NOT NULL,
    pair2_low   INTEGER NOT NULL,
    pair2_high  INTEGER NOT NULL,
    pair1_wins  INTEGER NOT NULL DEFAULT 0 CHECK (pair1_wins >= 0),
    pair2_wins  INTEGER NOT NULL DEFAULT 0 CHECK (pair2_wins >= 0),
    PRIMARY KEY (guild_id, pair1_low, pair1_high, pair2_low, pair2_high),
    CHECK (pair1_low <= pair1_high AND pair2_low <= pair2_high),
    CHECK (pair1_low < pair2_low OR (pair1_low = pair2_low AND pair1_high < pair2_high))
) STRICT, WITHOUT ROWID;

CREATE INDEX team_tallies_by_second_pair ON team_tallies (guild_id, pair2_low, pair2_high);

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT, WITHOUT ROWID;
