-- Devices (workstation computers running gemba-agent), their credentials, what their
-- cameras run, the commands sent to them, and the cycles they report.
CREATE TABLE devices (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    department_id BIGINT REFERENCES departments(id) ON DELETE SET NULL,
    display_name TEXT NOT NULL,
    serial_number TEXT NOT NULL DEFAULT '',
    -- 'workstation' or 'departmental device' (hidden from the devices list).
    device_type TEXT NOT NULL DEFAULT 'workstation',
    active BIGINT NOT NULL DEFAULT 1,
    archived BIGINT NOT NULL DEFAULT 0,
    -- The device's settings (JSON object), sent to it as a command when changed.
    settings TEXT NOT NULL DEFAULT '{}',
    -- Enrolment: the hash of the one-time code and when it expires (NULL once used).
    enrol_code_hash TEXT,
    enrol_expires_at BIGINT,
    -- The device's signing key (base64) and its id, the JWS `kid`; NULL when revoked
    -- or not yet enrolled. Each enrolment makes a new id.
    credential_id BIGINT NOT NULL DEFAULT 0,
    credential_key TEXT,
    enrolled_at BIGINT,
    -- The last status the device reported.
    online BIGINT NOT NULL DEFAULT 0,
    status TEXT,
    last_seen BIGINT,
    created_at BIGINT NOT NULL
);
CREATE INDEX devices_org ON devices (organization_id, archived, id);
CREATE UNIQUE INDEX devices_enrol_code ON devices (enrol_code_hash);

CREATE TABLE device_stars (
    device_id BIGINT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    PRIMARY KEY (device_id, user_id)
);

-- What each camera of a device is meant to run (`running`), as the portal set it.
CREATE TABLE device_tasks (
    device_id BIGINT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
    camera TEXT NOT NULL,
    task_id BIGINT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    running BIGINT NOT NULL DEFAULT 0,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (device_id, camera)
);
CREATE INDEX device_tasks_task ON device_tasks (task_id, running);

-- Commands sent to devices and how they went (`cmd` / `cmd/ack`).
CREATE TABLE device_commands (
    id TEXT PRIMARY KEY,
    device_id BIGINT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
    command TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    acked_at BIGINT,
    ok BIGINT,
    message TEXT
);
CREATE INDEX device_commands_device ON device_commands (device_id, created_at);

-- Cycles, idempotent on the id the device made.
CREATE TABLE cycles (
    id TEXT PRIMARY KEY,
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    device_id BIGINT REFERENCES devices(id) ON DELETE SET NULL,
    task_id BIGINT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    camera TEXT NOT NULL,
    start_ms BIGINT NOT NULL,
    end_ms BIGINT NOT NULL,
    idle_ms BIGINT NOT NULL,
    good BIGINT NOT NULL,
    reasons TEXT NOT NULL,
    segments TEXT NOT NULL,
    metadata TEXT NOT NULL,
    received_at BIGINT NOT NULL
);
CREATE INDEX cycles_task ON cycles (organization_id, task_id, start_ms);
CREATE INDEX cycles_device ON cycles (device_id, start_ms);
