-- Issue 31: service tokens (the spec's cloud-function token, `generic/userpool/`). An
-- integration calls the API with `Authorization: Bearer gst_…` as one organisation and
-- role, without a person's sign-in. Each token acts through an account of its own
-- (`user_id`: the name of the token, no usable password) so what it writes is
-- attributed to it; only the SHA-256 of the secret is kept.
CREATE TABLE service_tokens (
    id {{PK}},
    name TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role_id BIGINT NOT NULL REFERENCES roles(id),
    created_by BIGINT REFERENCES users(id) ON DELETE SET NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    last_used_at BIGINT,
    revoked_at BIGINT
);

CREATE INDEX service_tokens_org ON service_tokens (organization_id);
