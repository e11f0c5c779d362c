-- Labeling requested of a labeler (the labeler area's "Operations Requested"): a task of
-- an organisation whose videos the labeler may list, play and label.
CREATE TABLE label_requests (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    task_id BIGINT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    labeler_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    requested_by BIGINT REFERENCES users(id) ON DELETE SET NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (task_id, labeler_id)
);
CREATE INDEX label_requests_labeler ON label_requests (labeler_id, created_at);
