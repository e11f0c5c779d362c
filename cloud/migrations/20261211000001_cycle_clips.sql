-- Cycle clips (issue 7): the video a station's device recorded around a cycle and
-- uploaded after it, one per cycle, in the object store at `object_key` (of the
-- cycle's organisation). `start_ms` is its first frame on the cycle's clock. Deleted
-- with its cycle, and after the deployment's clip retention.
CREATE TABLE cycle_clips (
    cycle_id TEXT PRIMARY KEY,
    organization_id BIGINT NOT NULL,
    object_key TEXT NOT NULL,
    start_ms BIGINT NOT NULL,
    duration_ms BIGINT NOT NULL,
    size_bytes BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX cycle_clips_created ON cycle_clips (created_at);
