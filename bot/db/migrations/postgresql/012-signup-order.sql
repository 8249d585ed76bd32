-- PostgreSQL's twin of ../012-signup-order.sql: sign-ups keep the order people joined in (`seq`; only the
-- order means anything). Existing sign-ups, which have no row order of their own here, are numbered in the
-- order they were read before: by `signed_at`, then the user id.
ALTER TABLE tournament_signups ADD COLUMN seq bigint NOT NULL DEFAULT 0 CHECK (seq >= 0);
UPDATE tournament_signups AS signup
SET seq = ordered.n
FROM (
    SELECT tournament_id, user_id,
           row_number() OVER (PARTITION BY tournament_id ORDER BY signed_at, user_id) AS n
    FROM tournament_signups
) AS ordered
WHERE signup.tournament_id = ordered.tournament_id AND signup.user_id = ordered.user_id;
