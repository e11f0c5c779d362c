-- Issue 28: upload links given to devices, and deleted cycles' tombstones.
--
-- An upload link is a random token; only its SHA-256 is kept. A clip link (the
-- `clip_url` of one `cycles/ack`) names the cycles of that acknowledgement
-- (`subjects`: a JSON list of ids); a recording link (a `record` command's) names its
-- video (`subjects`: the id). Each works until `expires_at` (unix ms); a recording link
-- once (`used_at`), a clip link once per cycle (the cycle's clip, once kept, is never
-- replaced through a link). Expired links are deleted a day later.
CREATE TABLE device_upload_tokens (
    token_hash TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    organization_id BIGINT NOT NULL,
    device_id BIGINT NOT NULL,
    subjects TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);
CREATE INDEX device_upload_tokens_expires ON device_upload_tokens (expires_at);

-- A cycle a person deleted: a device replaying it (an acknowledgement lost, or a
-- captured message sent again) is refused, not stored again. Kept for
-- `db::tombstones::KEEP_DAYS`, longer than any outbox holds a cycle.
CREATE TABLE cycle_tombstones (
    cycle_id TEXT PRIMARY KEY,
    organization_id BIGINT NOT NULL,
    device_id BIGINT,
    deleted_at BIGINT NOT NULL
);
CREATE INDEX cycle_tombstones_deleted ON cycle_tombstones (deleted_at);
