-- Issue 32: OPC UA nodes bound to a camera's cycles on a device
-- (`gemba_shared::mqtt::v1::OpcuaBinding`). The device subscribes to each node and,
-- while its camera runs `task_id` (any task when NULL), a change of the node starts
-- ('start_cycle') or ends ('end_cycle') a cycle, or its value goes on the cycle's
-- metadata under `metadata_key` ('metadata'; empty for the other roles). Sent to the
-- device in its configuration (`cloud/src/device_config.rs`): every change bumps
-- `devices.config_version` in its transaction, and the whole list is checked
-- (`check_bindings`) before it is written.
CREATE TABLE opcua_bindings (
    id {{PK}},
    device_id BIGINT NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
    endpoint TEXT NOT NULL,
    node_id TEXT NOT NULL,
    camera TEXT NOT NULL,
    task_id BIGINT REFERENCES tasks(id) ON DELETE CASCADE,
    role TEXT NOT NULL,
    metadata_key TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL
);
CREATE INDEX opcua_bindings_device ON opcua_bindings (device_id);
