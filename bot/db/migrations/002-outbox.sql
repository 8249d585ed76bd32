-- Announcements a stored change owes to Discord (a deal's result, the last edit of a finished deal's hand
-- messages, notices). Written in the same transaction as the change and deleted once delivered, so that a
-- crash or a failing Discord call never loses one: the bot delivers what is pending until it succeeds.
CREATE TABLE outbox (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id     INTEGER NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
    kind         TEXT    NOT NULL CHECK (kind IN ('result', 'final_hand', 'notice', 'set_aside')),
    payload_json TEXT    NOT NULL CHECK (json_valid(payload_json)),
    created_at   INTEGER NOT NULL
) STRICT;

CREATE INDEX outbox_by_table ON outbox (table_id, id);
