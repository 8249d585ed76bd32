-- PostgreSQL's twin of ../013-deal-reviews.sql: "Review my play" kept for the replay's marks, shown only
-- with the review's own token.
CREATE TABLE deal_reviews (
    token      text    PRIMARY KEY,
    user_id    bigint  NOT NULL,
    table_id   bigint  NOT NULL,
    deal_no    integer NOT NULL,
    seat       integer NOT NULL CHECK (seat BETWEEN 0 AND 3),
    marks_json text    NOT NULL,
    created_at bigint  NOT NULL,
    FOREIGN KEY (table_id, deal_no) REFERENCES deals (table_id, deal_no) ON DELETE CASCADE
);
CREATE INDEX deal_reviews_by_user ON deal_reviews (user_id);
CREATE INDEX deal_reviews_by_deal ON deal_reviews (table_id, deal_no);
