-- Cycles keep their organisation, device and task ids without foreign keys: on
-- PostgreSQL the three per-row referential checks were a third of an ingested row's
-- cost (docs/decisions.md, "Cycles have no foreign keys"). Ingestion checks the device,
-- its organisation and the task before a cycle is written; deleting an organisation
-- deletes its cycles and deleting a device clears their device, in the same transaction
-- (src/db/orgs.rs, src/db/devices.rs). One file for both backends: the table is rebuilt
-- (SQLite cannot drop a constraint).
CREATE TABLE cycles_new (
    id TEXT PRIMARY KEY,
    organization_id BIGINT NOT NULL,
    device_id BIGINT,
    task_id BIGINT NOT NULL,
    camera TEXT NOT NULL,
    start_ms BIGINT NOT NULL,
    end_ms BIGINT NOT NULL,
    idle_ms BIGINT NOT NULL,
    good BIGINT NOT NULL,
    reasons TEXT NOT NULL,
    segments TEXT NOT NULL,
    metadata TEXT NOT NULL,
    received_at BIGINT NOT NULL
);
INSERT INTO cycles_new (id, organization_id, device_id, task_id, camera, start_ms, end_ms,
    idle_ms, good, reasons, segments, metadata, received_at)
SELECT id, organization_id, device_id, task_id, camera, start_ms, end_ms, idle_ms, good,
    reasons, segments, metadata, received_at FROM cycles;
DROP TABLE cycles;
ALTER TABLE cycles_new RENAME TO cycles;
CREATE INDEX cycles_task ON cycles (organization_id, task_id, start_ms);
CREATE INDEX cycles_device ON cycles (device_id, start_ms);
