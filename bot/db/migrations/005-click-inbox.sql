-- Clicks handed from the process Discord sent them to (shard 0 gets every DM click) to the process serving
-- their table: stored by the receiver after it acknowledged the click, applied and deleted by the owner
-- (bot/schnapsen/routing.py). `shard` is the owner's: its table's guild's shard. A row lives seconds, or
-- until an owner that was down comes back.
CREATE TABLE click_inbox (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id         INTEGER NOT NULL,
    shard            INTEGER NOT NULL CHECK (shard >= 0),
    interaction_json TEXT    NOT NULL CHECK (json_valid(interaction_json)),
    received_at      INTEGER NOT NULL
) STRICT;

CREATE INDEX click_inbox_by_shard ON click_inbox (shard, id);
