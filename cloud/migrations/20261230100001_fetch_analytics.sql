-- Whether a device sends its analytics (cycles) to the cloud now (1, the default) or
-- keeps them in its outbox until switched on again (0): `POST
-- device/set_fetch_analytics/{id}/` (issue 31, docs/decisions.md "set_fetch_analytics").
-- Part of the device's configuration: a change bumps `config_version`.
ALTER TABLE devices ADD COLUMN fetch_analytics BIGINT NOT NULL DEFAULT 1;
