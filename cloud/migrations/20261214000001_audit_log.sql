-- Issue 28 (hardening): what the administrators changed. One row per changing call
-- (POST, PUT, PATCH, DELETE) of a signed-in user whose role administers (see
-- `cloud/src/http/audit.rs`), written after the answer: who (`user_id`, and `email` and
-- `role` as they were then), from which client address, in which organisation (NULL
-- for a super admin acting without one), the call (`method` and the route template),
-- its target (the path's parameters, `name=value` by a space, secrets left out) and the
-- answer's status. Never a request body. No foreign keys: an entry outlives the user
-- or the organisation it names.
CREATE TABLE audit_log (
    id {{PK}},
    at BIGINT NOT NULL,
    user_id BIGINT NOT NULL,
    email TEXT NOT NULL,
    role TEXT NOT NULL,
    client_ip TEXT NOT NULL,
    organization_id BIGINT,
    method TEXT NOT NULL,
    route TEXT NOT NULL,
    target TEXT NOT NULL,
    status BIGINT NOT NULL
);
CREATE INDEX audit_log_organization ON audit_log (organization_id, id);
