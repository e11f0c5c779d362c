-- Issue 31: tampering requests. A camera covered or moved (`device_camera_events` of
-- kind 'covered' or 'moved') is reviewed by a person: its row here is made when the
-- event opens (with the screenshot then asked of the device) or at its review. `action`
-- is NULL while the request is open, then 'accept_view' (the device was sent
-- `rebaseline`, command `command_id`) or 'dismiss'; who (`reviewed_by`, their e-mail
-- kept in case the account goes), when and why (`note`).
CREATE TABLE tampering_reviews (
    event_id BIGINT PRIMARY KEY REFERENCES device_camera_events(id) ON DELETE CASCADE,
    screenshot_id BIGINT,
    action TEXT,
    note TEXT NOT NULL DEFAULT '',
    reviewed_by BIGINT REFERENCES users(id) ON DELETE SET NULL,
    reviewer_email TEXT,
    reviewed_at BIGINT,
    command_id TEXT
);
-- The open requests of the list come from the events' kinds.
CREATE INDEX device_camera_events_kind ON device_camera_events (kind, started_at);
