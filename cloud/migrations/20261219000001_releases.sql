-- Issue 30: agent releases and their roll-outs in waves (`cloud/src/rollout.rs`,
-- `cloud/src/releases.rs`).

-- The release environment a device's agent follows.
ALTER TABLE devices ADD COLUMN update_channel TEXT NOT NULL DEFAULT 'prod';

-- One agent binary of one target, in an environment. `entered_at`: when it entered its
-- environment (uploaded into it or moved to it); the newest of an environment and
-- target is the one its devices are brought to. `state` is the release's
-- `currentState` (`gemba_shared::api::v1::release::state`), `start_time` and
-- `end_time` those of its latest roll-out.
CREATE TABLE releases (
    id {{PK}},
    environment TEXT NOT NULL,
    branch TEXT NOT NULL,
    version TEXT NOT NULL,
    target TEXT NOT NULL,
    size_bytes BIGINT NOT NULL,
    sha256 TEXT NOT NULL,
    signature TEXT NOT NULL,
    object_key TEXT NOT NULL,
    uploaded_by BIGINT REFERENCES users(id) ON DELETE SET NULL,
    uploaded_at BIGINT NOT NULL,
    entered_at BIGINT NOT NULL,
    state TEXT NOT NULL,
    reason TEXT,
    start_time BIGINT,
    end_time BIGINT
);
CREATE UNIQUE INDEX releases_target_version ON releases (target, version);
CREATE INDEX releases_newest ON releases (environment, target, entered_at);

-- A device of a release's roll-out: its wave (1 the first, 2 the rest), where it is
-- (`UpdateState`), the command last sent and whether the device acknowledged it.
CREATE TABLE release_devices (
    release_id BIGINT NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
    device_id BIGINT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
    wave BIGINT NOT NULL,
    state TEXT NOT NULL,
    detail TEXT,
    command_id TEXT,
    sent_at BIGINT,
    acked BIGINT NOT NULL DEFAULT 0,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (release_id, device_id)
);
CREATE INDEX release_devices_device ON release_devices (device_id);
