-- The last authenticator-app time step (unix seconds / 30) a code was accepted for: a code
-- is accepted only for a later step, so a seen code cannot be replayed (RFC 6238, 5.2).
ALTER TABLE users ADD COLUMN totp_last_step BIGINT NOT NULL DEFAULT 0;
