-- Issue 28: a device's status is taken only when it is newer than what the cloud has,
-- so a captured status published again (say, an old "offline") changes nothing. Both
-- are the device's clock (`ts_ms`), never compared with the cloud's: `status_ts` is the
-- newest status taken (an online one must be later), `offline_ts` the last offline one
-- taken (an offline one, such as the last will the broker publishes for the agent, must
-- be later than that: the will's time is when its connection began, before that
-- connection's heartbeats). Both NULL (anything taken) until the device's first status,
-- and again when it is enrolled anew (a new key; a new computer's clock may be behind).
ALTER TABLE devices ADD COLUMN status_ts BIGINT;
ALTER TABLE devices ADD COLUMN offline_ts BIGINT;
