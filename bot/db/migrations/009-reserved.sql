-- Number 009 is the daily channel's migration (branch dailychan); this placeholder keeps the numbers of this
-- branch contiguous until it is merged, and is then dropped in favour of that file.
SELECT 1;
