-- Issue 28: single sign-on. A user's identity at an OpenID provider: `provider` is the
-- configured provider ('azure', 'google'), `subject` its `sub` claim (stable, unlike
-- the e-mail address), `issuer` the issuer that vouched for it. One identity belongs to
-- one user; a user may have one per provider. `email` is the address the provider
-- verified when the link was made.
CREATE TABLE sso_identities (
    provider TEXT NOT NULL,
    subject TEXT NOT NULL,
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    issuer TEXT NOT NULL,
    email TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    last_used_at BIGINT NOT NULL,
    PRIMARY KEY (provider, subject)
);
CREATE UNIQUE INDEX sso_identities_user ON sso_identities (user_id, provider);
