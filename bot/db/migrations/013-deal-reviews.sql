-- "Review my play" kept for the replay page (issue 36, docs/web.md): each review a person asked for, with the
-- AI's marks at the decisions it judged, so the replay can show them at those decisions. The marks are the
-- asker's: the replay shows them only with `token` (128 random bits), which is in the link of the asker's own
-- review answer and nowhere else. forget-me deletes a person's reviews; they go with the deal's moves when
-- RETENTION_DAYS prunes those (a replay without moves shows nothing).
CREATE TABLE deal_reviews (
    token      TEXT    PRIMARY KEY,
    user_id    INTEGER NOT NULL,
    table_id   INTEGER NOT NULL,
    deal_no    INTEGER NOT NULL,
    seat       INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    marks_json TEXT    NOT NULL,  -- [{"index", "played", "best", "played_value", "best_value", "loss"}, ...]
    created_at INTEGER NOT NULL,
    FOREIGN KEY (table_id, deal_no) REFERENCES deals (table_id, deal_no) ON DELETE CASCADE
);
CREATE INDEX deal_reviews_by_user ON deal_reviews (user_id);
CREATE INDEX deal_reviews_by_deal ON deal_reviews (table_id, deal_no);
