-- A task's videos (spec section 3 "Video (task record)"): uploaded in parts, then read
-- (metadata, thumbnail) and kept in the object store under `object_key`.
CREATE TABLE videos (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    task_id BIGINT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    file_name TEXT NOT NULL,
    is_uploaded_video BIGINT NOT NULL,
    status TEXT NOT NULL,
    size_bytes BIGINT NOT NULL,
    received_bytes BIGINT NOT NULL DEFAULT 0,
    object_key TEXT NOT NULL,
    thumbnail_key TEXT,
    duration_ms BIGINT,
    fps DOUBLE PRECISION,
    width BIGINT,
    height BIGINT,
    no_of_comments BIGINT NOT NULL DEFAULT 0,
    created_by BIGINT REFERENCES users(id) ON DELETE SET NULL,
    created_at BIGINT NOT NULL,
    ready_at BIGINT
);
CREATE INDEX videos_task ON videos (organization_id, task_id, created_at);

-- A video's step labels: its segments as JSON (`[{step, start_ms, end_ms}]`, in time
-- order), replaced whole by each save.
CREATE TABLE video_labels (
    video_id BIGINT PRIMARY KEY REFERENCES videos(id) ON DELETE CASCADE,
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    task_id BIGINT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    segments TEXT NOT NULL,
    reviewed BIGINT NOT NULL DEFAULT 0,
    updated_by BIGINT REFERENCES users(id) ON DELETE SET NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX video_labels_task ON video_labels (organization_id, task_id);
