-- Issue 30: the device's and its cameras' faults become events beside 'unsure' (kinds
-- 'offline', 'frozen', 'slow', 'model', 'outbox_filling', 'disk_low'; a device's own
-- events have the camera ''), with what the device said of each.
ALTER TABLE device_camera_events ADD COLUMN detail TEXT;
