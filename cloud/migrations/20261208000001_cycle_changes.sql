-- People's changes to cycles (issue 7): a cycle marked good or bad by a person, archived
-- (out of lists and figures, kept) and restored, each kept in `cycle_changes` with who,
-- when and why. An archived cycle keeps its row, so that a device's replay of it is
-- still recognised as stored (ingestion is idempotent on the id).
ALTER TABLE cycles ADD COLUMN archived_at BIGINT;
ALTER TABLE cycles ADD COLUMN archived_by BIGINT;
CREATE INDEX cycles_archived ON cycles (organization_id, archived_at) WHERE archived_at IS NOT NULL;
CREATE TABLE cycle_changes (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    cycle_id TEXT NOT NULL,
    user_id BIGINT REFERENCES users(id) ON DELETE SET NULL,
    at_ms BIGINT NOT NULL,
    -- 'good', 'bad' (a person's verdict), 'archived' or 'restored'
    change TEXT NOT NULL,
    reason TEXT NOT NULL
);
CREATE INDEX cycle_changes_cycle ON cycle_changes (cycle_id, at_ms);
