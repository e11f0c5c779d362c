-- Production lines (issue 7): an organisation's ordered stations, each a task on a
-- device (a JSON list [{"task", "device"}], checked when written), with a takt time.
-- `live_name` is the lower-cased name, unique in the organisation.
CREATE TABLE lines (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    live_name TEXT NOT NULL,
    takt_ms BIGINT,
    stations TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (organization_id, live_name)
);
