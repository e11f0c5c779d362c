-- Issue 26: what happened to a device's cameras, kept after it ended so the device page
-- still shows it. One kind so far, 'unsure': the camera's model was unsure of what it
-- saw (the agent's drift report) from `started_at` to `ended_at` (NULL while it lasts),
-- both on the cloud's clock; `device_since` is the start as the device said it (its
-- clock), to tell a new event from the same one. The figures: the share of unsure frames
-- and the brightness when it began, and when the model was last sure.
CREATE TABLE device_camera_events (
    id {{PK}},
    device_id BIGINT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
    camera TEXT NOT NULL,
    kind TEXT NOT NULL,
    device_since BIGINT NOT NULL,
    started_at BIGINT NOT NULL,
    ended_at BIGINT,
    unsure_share DOUBLE PRECISION,
    brightness DOUBLE PRECISION,
    sure_share DOUBLE PRECISION,
    sure_brightness DOUBLE PRECISION
);
CREATE INDEX device_camera_events_device ON device_camera_events (device_id, started_at);
-- At most one open event of a kind per camera.
CREATE UNIQUE INDEX device_camera_events_open ON device_camera_events (device_id, camera, kind)
    WHERE ended_at IS NULL;
