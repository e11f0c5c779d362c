-- Issue 29: what a device keeps and acts on while offline (its remote cameras, the blur
-- regions of its cameras, its schedules), sent to it whole as its configuration, and
-- the screenshots of its cameras.
--
-- Every change to what goes into a device's configuration (including the organisation's
-- time zone and a scheduled task's settings) bumps `devices.config_version` in the
-- change's transaction; the device reports the version it applies in its status and
-- is sent the configuration again while it is behind (`cloud/src/device_config.rs`).

-- The organisation's time zone (IANA name): schedules' times are read in it.
ALTER TABLE organizations ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC';

ALTER TABLE devices ADD COLUMN config_version BIGINT NOT NULL DEFAULT 0;

-- A network camera read by the device as one of its cameras, named `name`. `url` is
-- kept without its login; `username` and `password` beside it (the password never
-- answered; put into the URL only in the device's configuration).
CREATE TABLE remote_cameras (
    id {{PK}},
    device_id BIGINT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    url TEXT NOT NULL,
    username TEXT NOT NULL DEFAULT '',
    password TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX remote_cameras_name ON remote_cameras (device_id, name);

-- A rectangle of a camera's frame blurred on the device: fractions 0-1, top-left
-- origin.
CREATE TABLE blur_regions (
    id {{PK}},
    device_id BIGINT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
    camera TEXT NOT NULL,
    x DOUBLE PRECISION NOT NULL,
    y DOUBLE PRECISION NOT NULL,
    width DOUBLE PRECISION NOT NULL,
    height DOUBLE PRECISION NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX blur_regions_device ON blur_regions (device_id, camera);

-- A task run on a camera on weekdays (`days`: a JSON list, 0 = Monday) from
-- `start_time` to `end_time` (HH:MM, the organisation's time zone).
CREATE TABLE schedules (
    id {{PK}},
    device_id BIGINT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
    camera TEXT NOT NULL,
    task_id BIGINT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    days TEXT NOT NULL,
    start_time TEXT NOT NULL,
    end_time TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX schedules_device ON schedules (device_id, camera);
CREATE INDEX schedules_task ON schedules (task_id);

-- A JPEG of a camera, asked for ('on_demand') or taken at the device's interval
-- ('interval'): the row is made when the `screenshot` command is sent (`taken_at`
-- NULL) and completed when the device's upload arrives (object `object_key` of the
-- organisation's objects). No foreign keys, as for cycle clips: a row outlives its
-- device or organisation until the hourly sweep deletes it with its file
-- (`cloud/src/screenshots.rs`), as it does those older than `screenshot_days`.
CREATE TABLE screenshots (
    id {{PK}},
    organization_id BIGINT NOT NULL,
    device_id BIGINT NOT NULL,
    camera TEXT NOT NULL,
    kind TEXT NOT NULL,
    command_id TEXT NOT NULL,
    requested_at BIGINT NOT NULL,
    taken_at BIGINT,
    size_bytes BIGINT NOT NULL DEFAULT 0,
    object_key TEXT
);
CREATE INDEX screenshots_device ON screenshots (device_id, camera, taken_at);
CREATE INDEX screenshots_due ON screenshots (device_id, camera, kind, requested_at);
