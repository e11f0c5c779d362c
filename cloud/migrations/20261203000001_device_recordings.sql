-- Training video recorded on a device's camera: the device and camera, the command
-- that asked for it (its failed acknowledgement fails the video), and why it failed.
ALTER TABLE videos ADD COLUMN device_id BIGINT;
ALTER TABLE videos ADD COLUMN camera TEXT;
ALTER TABLE videos ADD COLUMN command_id TEXT;
ALTER TABLE videos ADD COLUMN message TEXT NOT NULL DEFAULT '';
CREATE INDEX videos_command ON videos (command_id);
