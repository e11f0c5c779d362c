-- Model versions sent to devices (the deploy screen): one row per device and send, with
-- the command that carried it (its acknowledgement says how it went).
CREATE TABLE deployments (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    model_version_id BIGINT NOT NULL REFERENCES model_versions(id) ON DELETE CASCADE,
    task_id BIGINT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    device_id BIGINT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
    command_id TEXT NOT NULL,
    created_by BIGINT REFERENCES users(id) ON DELETE SET NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX deployments_model ON deployments (organization_id, model_version_id, id);
CREATE INDEX deployments_task ON deployments (organization_id, task_id, id);
