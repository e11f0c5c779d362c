-- Identity and tenancy. One file for SQLite and PostgreSQL:
-- {{PK}} is the auto-increment primary key of each dialect (see src/db/migrate.rs).
-- Times are unix milliseconds (BIGINT). Flags are BIGINT 0/1: sqlx's Any driver has no SQLite
-- boolean, so both backends store the same integers.

CREATE TABLE organizations (
    id {{PK}},
    name TEXT NOT NULL UNIQUE,
    org_name_to_display TEXT NOT NULL,
    use_proxy_server BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL
);

CREATE TABLE departments (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (organization_id, name)
);

CREATE TABLE roles (
    id {{PK}},
    name TEXT NOT NULL UNIQUE
);

INSERT INTO roles (name) VALUES ('admin'), ('org_admin'), ('org_user'), ('user'), ('labeler'),
    ('analytics_user'), ('workstation_user'), ('support_user'), ('doc_user');

CREATE TABLE users (
    id {{PK}},
    email TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    lastname TEXT NOT NULL DEFAULT '',
    password_hash TEXT NOT NULL,
    role_id BIGINT REFERENCES roles(id),
    organization_id BIGINT REFERENCES organizations(id) ON DELETE SET NULL,
    is_active BIGINT NOT NULL DEFAULT 1,
    is_email_verified BIGINT NOT NULL DEFAULT 0,
    is_approved BIGINT NOT NULL DEFAULT 0,
    require_otp BIGINT NOT NULL DEFAULT 1,
    mfa_method TEXT,
    totp_secret TEXT,
    totp_pending_secret TEXT,
    mobile_number TEXT,
    must_change_password BIGINT NOT NULL DEFAULT 0,
    is_policy_accepted BIGINT NOT NULL DEFAULT 0,
    poc BIGINT NOT NULL DEFAULT 0,
    local_storage TEXT,
    created_at BIGINT NOT NULL
);

CREATE TABLE user_organizations (
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, organization_id)
);

-- A sign-in: the session key the client sends, the family of its refresh tokens.
CREATE TABLE auth_sessions (
    id TEXT PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    otp_verified BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    revoked BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE refresh_tokens (
    token_hash TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES auth_sessions(id) ON DELETE CASCADE,
    used BIGINT NOT NULL DEFAULT 0,
    expires_at BIGINT NOT NULL
);

CREATE TABLE otp_codes (
    id {{PK}},
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    code_hash TEXT NOT NULL,
    channel TEXT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    used BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);

-- Links mailed to users: e-mail verification, password reset, e-mail change.
CREATE TABLE email_tokens (
    token_hash TEXT PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    purpose TEXT NOT NULL,
    new_email TEXT,
    used BIGINT NOT NULL DEFAULT 0,
    expires_at BIGINT NOT NULL
);

-- Sign-in throttling, shared by every replica.
CREATE TABLE login_attempts (
    email TEXT PRIMARY KEY,
    failures BIGINT NOT NULL,
    first_failure_at BIGINT NOT NULL,
    locked_until BIGINT NOT NULL DEFAULT 0
);

-- Activity sessions (tracking use of the portal).
CREATE TABLE activity_sessions (
    id {{PK}},
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    browser TEXT NOT NULL,
    browser_version TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    end_time BIGINT NOT NULL
);

-- Every e-mail and SMS the service sends; SMTP delivery state when configured.
CREATE TABLE outbox (
    id {{PK}},
    channel TEXT NOT NULL,
    recipients TEXT NOT NULL,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    file_name TEXT,
    delivered BIGINT NOT NULL DEFAULT 0,
    error TEXT
);

CREATE TABLE features (
    id {{PK}},
    name TEXT NOT NULL UNIQUE
);

INSERT INTO features (name) VALUES ('Record Training Set'), ('Deploy Model'), ('Devices'),
    ('OPCUA Explorer'), ('Define Operation'), ('Pathfinder');

CREATE TABLE subscribed_features (
    id {{PK}},
    feature_id BIGINT NOT NULL REFERENCES features(id) ON DELETE CASCADE,
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    is_suppressed BIGINT NOT NULL DEFAULT 0,
    UNIQUE (feature_id, organization_id)
);

CREATE TABLE event_notifications (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    event_type TEXT NOT NULL,
    recipients TEXT NOT NULL,
    UNIQUE (organization_id, event_type)
);

CREATE INDEX users_organization ON users (organization_id);
CREATE INDEX user_organizations_org ON user_organizations (organization_id);
CREATE INDEX refresh_tokens_session ON refresh_tokens (session_id);
CREATE INDEX otp_codes_user ON otp_codes (user_id);
CREATE INDEX activity_sessions_user ON activity_sessions (user_id);
