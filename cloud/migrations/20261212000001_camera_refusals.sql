-- Issue 25: a start a device refused is an answer, not a reason to ask again at once.
-- `refused` says why the camera's last start was refused (cleared when a start is
-- acknowledged, or the portal sets the camera anew), `refused_at` when (cloud clock).
ALTER TABLE device_tasks ADD COLUMN refused TEXT;
ALTER TABLE device_tasks ADD COLUMN refused_at BIGINT;
-- Since when a device is online this time (set by the status that brought it back):
-- a command sent before then was lost (devices take commands on clean sessions), so
-- the reconcile does not wait for its answer.
ALTER TABLE devices ADD COLUMN online_since BIGINT;
