-- Barcodes (spec sections 3 and 7 "Barcodes"): values an organisation prints on its
-- work, unique per organisation, each associated with at most one of its tasks. The
-- associated ones go to every device of the organisation in its configuration
-- (`mqtt::v1::TaskBarcode`), so a camera that reads one starts its task; every change
-- to them bumps the organisation's devices' `config_version`.
CREATE TABLE barcodes (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    barcode_value TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX barcodes_value ON barcodes (organization_id, barcode_value);

-- A barcode associated with a task of the same organisation; a barcode starts one task
-- only, so `barcode_id` is unique.
CREATE TABLE barcode_tasks (
    id {{PK}},
    barcode_id BIGINT NOT NULL REFERENCES barcodes(id) ON DELETE CASCADE,
    task_id BIGINT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX barcode_tasks_barcode ON barcode_tasks (barcode_id);
CREATE INDEX barcode_tasks_task ON barcode_tasks (task_id);
