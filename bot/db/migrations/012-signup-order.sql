-- Sign-ups keep the order people joined in (issue 35). `signed_at` has a resolution of one second, so two
-- people who joined within the same second were ordered by their Discord ids, and singles were paired out of
-- order. `seq` orders a tournament's sign-ups: a new sign-up takes one past the tournament's highest, in its own
-- (write-locked) transaction; a sign-up made again keeps its place. Only the order means anything.
--
-- Existing sign-ups take their rowid: SQLite gives each new row one past the highest, so the rowids are in
-- the order the sign-ups were made (a sign-up made again keeps its row).
ALTER TABLE tournament_signups ADD COLUMN seq INTEGER NOT NULL DEFAULT 0 CHECK (seq >= 0);
UPDATE tournament_signups SET seq = rowid;
