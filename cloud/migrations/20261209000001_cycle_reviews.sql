-- The issue center (issue 7): a bad cycle a person has looked at is reviewed (when, by
-- whom); the review is kept in `cycle_changes` too, with its note.
ALTER TABLE cycles ADD COLUMN reviewed_at BIGINT;
ALTER TABLE cycles ADD COLUMN reviewed_by BIGINT;
