-- Roll-ups of cycles for analytics (src/db/rollups.rs): per organisation, task, device
-- (0 once the device is deleted), good or bad, and hour or day (span_ms, UTC buckets by
-- the cycle's start): the cycles' count, summed, squared, shortest and longest time and
-- idle time; each step's time; and how many cycles fell in each cycle-time bin. Kept in
-- the transaction that stores the cycles; built from the cycles already stored at the
-- first start after this migration.
CREATE TABLE cycle_rollups (
    organization_id BIGINT NOT NULL,
    span_ms BIGINT NOT NULL,
    bucket_ms BIGINT NOT NULL,
    task_id BIGINT NOT NULL,
    device_id BIGINT NOT NULL,
    good BIGINT NOT NULL,
    n BIGINT NOT NULL,
    sum_ms BIGINT NOT NULL,
    sum_sq DOUBLE PRECISION NOT NULL,
    min_ms BIGINT NOT NULL,
    max_ms BIGINT NOT NULL,
    idle_ms BIGINT NOT NULL,
    PRIMARY KEY (organization_id, span_ms, bucket_ms, task_id, device_id, good)
);
CREATE TABLE cycle_step_rollups (
    organization_id BIGINT NOT NULL,
    span_ms BIGINT NOT NULL,
    bucket_ms BIGINT NOT NULL,
    task_id BIGINT NOT NULL,
    device_id BIGINT NOT NULL,
    good BIGINT NOT NULL,
    step BIGINT NOT NULL,
    n BIGINT NOT NULL,
    sum_ms BIGINT NOT NULL,
    sum_sq DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (organization_id, span_ms, bucket_ms, task_id, device_id, good, step)
);
CREATE TABLE cycle_time_bins (
    organization_id BIGINT NOT NULL,
    span_ms BIGINT NOT NULL,
    bucket_ms BIGINT NOT NULL,
    task_id BIGINT NOT NULL,
    device_id BIGINT NOT NULL,
    good BIGINT NOT NULL,
    bin BIGINT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (organization_id, span_ms, bucket_ms, task_id, device_id, good, bin)
);
-- The raw cycles of a range of all stations (a range's edges, fetch_cycles without a
-- task or device).
CREATE INDEX cycles_org_start ON cycles (organization_id, start_ms);
