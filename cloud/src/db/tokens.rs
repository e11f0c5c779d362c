//! Auth sessions and their rotating refresh tokens, one-time codes, e-mailed
//! tokens and sign-in throttling.
//!
//! Invariants:
//! - only SHA-256 hashes of refresh tokens, codes and e-mailed tokens are stored;
//! - a refresh token is used at most once; presenting a used one revokes its whole
//!   session (reuse means it was stolen);
//! - a revoked session accepts neither its access tokens nor its refresh tokens.

use sqlx::FromRow;

use super::{Db, now_ms};

#[derive(Debug, Clone, FromRow)]
pub struct AuthSession {
    pub id: String,
    pub user_id: i64,
    #[sqlx(try_from = "super::Flag")]
    pub otp_verified: bool,
    pub expires_at: i64,
    #[sqlx(try_from = "super::Flag")]
    pub revoked: bool,
}

pub async fn create_session(
    db: &Db,
    id: &str,
    user: i64,
    otp_verified: bool,
    ttl_ms: i64,
) -> sqlx::Result<()> {
    let now = now_ms();
    sqlx::query(
        "INSERT INTO auth_sessions (id, user_id, otp_verified, created_at, expires_at) \
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(id)
    .bind(user)
    .bind(otp_verified as i64)
    .bind(now)
    .bind(now + ttl_ms)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// A request's session, its user, and whether the user is linked to the organisation
/// the request names (or, with none named, to the user's current one): one query, as
/// every authenticated request runs it.
#[derive(Debug, Clone, FromRow)]
pub struct Authenticated {
    #[sqlx(flatten)]
    pub user: super::UserRow,
    #[sqlx(try_from = "super::Flag")]
    pub otp_verified: bool,
    pub session_expires_at: i64,
    #[sqlx(try_from = "super::Flag")]
    pub session_revoked: bool,
    pub member: i64,
}

pub async fn authenticate(
    db: &Db,
    session: &str,
    user: i64,
    org: Option<i64>,
) -> sqlx::Result<Option<Authenticated>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {}, s.otp_verified, s.expires_at AS session_expires_at, \
         s.revoked AS session_revoked, \
         (SELECT COUNT(*) FROM user_organizations uo WHERE uo.user_id = u.id \
          AND uo.organization_id = COALESCE($3, u.organization_id)) AS member \
         FROM auth_sessions s JOIN users u ON u.id = s.user_id \
         LEFT JOIN roles r ON r.id = u.role_id WHERE s.id = $1 AND s.user_id = $2",
        super::users::USER_COLUMNS
    )))
    .bind(session)
    .bind(user)
    .bind(org)
    .fetch_optional(&db.pool)
    .await
}

pub async fn session(db: &Db, id: &str) -> sqlx::Result<Option<AuthSession>> {
    sqlx::query_as(
        "SELECT id, user_id, otp_verified, expires_at, revoked FROM auth_sessions WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(&db.pool)
    .await
}

pub async fn mark_session_verified(db: &Db, id: &str, ttl_ms: i64) -> sqlx::Result<()> {
    sqlx::query("UPDATE auth_sessions SET otp_verified = 1, expires_at = $1 WHERE id = $2")
        .bind(now_ms() + ttl_ms)
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(())
}

pub async fn revoke_session(db: &Db, id: &str) -> sqlx::Result<()> {
    sqlx::query("UPDATE auth_sessions SET revoked = 1 WHERE id = $1")
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(())
}

/// Revokes every session of a user except `keep`.
pub async fn revoke_user_sessions(db: &Db, user: i64, keep: Option<&str>) -> sqlx::Result<()> {
    sqlx::query("UPDATE auth_sessions SET revoked = 1 WHERE user_id = $1 AND id <> $2")
        .bind(user)
        .bind(keep.unwrap_or(""))
        .execute(&db.pool)
        .await?;
    Ok(())
}

pub async fn store_refresh(db: &Db, hash: &str, session: &str, ttl_ms: i64) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO refresh_tokens (token_hash, session_id, expires_at) VALUES ($1, $2, $3)",
    )
    .bind(hash)
    .bind(session)
    .bind(now_ms() + ttl_ms)
    .execute(&db.pool)
    .await?;
    Ok(())
}

pub enum RefreshUse {
    /// The token was valid and is now spent.
    Ok(AuthSession),
    /// Unknown, expired, or its session was revoked.
    Invalid,
    /// Already used: the session has been revoked.
    Reused,
}

/// Spends a refresh token (atomically: two concurrent uses cannot both succeed).
pub async fn use_refresh(db: &Db, hash: &str) -> sqlx::Result<RefreshUse> {
    let now = now_ms();
    let spent = sqlx::query(
        "UPDATE refresh_tokens SET used = 1 WHERE token_hash = $1 AND used = 0 AND expires_at > $2",
    )
    .bind(hash)
    .bind(now)
    .execute(&db.pool)
    .await?
    .rows_affected();
    let row: Option<(String, i64)> =
        sqlx::query_as("SELECT session_id, used FROM refresh_tokens WHERE token_hash = $1")
            .bind(hash)
            .fetch_optional(&db.pool)
            .await?;
    let Some((sid, _)) = row else {
        return Ok(RefreshUse::Invalid);
    };
    if spent == 0 {
        // Known but not spendable: if it was used before, treat as theft.
        let used: i64 = sqlx::query_scalar("SELECT used FROM refresh_tokens WHERE token_hash = $1")
            .bind(hash)
            .fetch_one(&db.pool)
            .await?;
        if used != 0 {
            revoke_session(db, &sid).await?;
            return Ok(RefreshUse::Reused);
        }
        return Ok(RefreshUse::Invalid);
    }
    match session(db, &sid).await? {
        Some(s) if !s.revoked && s.otp_verified && s.expires_at > now => Ok(RefreshUse::Ok(s)),
        _ => Ok(RefreshUse::Invalid),
    }
}

// ----- one-time codes ---------------------------------------------------------------

/// Most wrong guesses allowed on one code.
pub const OTP_MAX_ATTEMPTS: i64 = 5;

pub async fn store_otp(
    db: &Db,
    user: i64,
    hash: &str,
    channel: &str,
    ttl_ms: i64,
) -> sqlx::Result<()> {
    let now = now_ms();
    // A new code replaces the older ones.
    sqlx::query("UPDATE otp_codes SET used = 1 WHERE user_id = $1 AND used = 0")
        .bind(user)
        .execute(&db.pool)
        .await?;
    sqlx::query(
        "INSERT INTO otp_codes (user_id, code_hash, channel, created_at, expires_at) \
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(user)
    .bind(hash)
    .bind(channel)
    .bind(now)
    .bind(now + ttl_ms)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Codes sent to a user since `since_ms` (to limit resends).
pub async fn otp_sent_since(db: &Db, user: i64, since_ms: i64) -> sqlx::Result<i64> {
    sqlx::query_scalar("SELECT COUNT(*) FROM otp_codes WHERE user_id = $1 AND created_at > $2")
        .bind(user)
        .bind(since_ms)
        .fetch_one(&db.pool)
        .await
}

/// Checks a code against the user's live one; counts the attempt.
pub async fn check_otp(db: &Db, user: i64, hash: &str) -> sqlx::Result<bool> {
    let live: Option<(i64, String, i64)> = sqlx::query_as(
        "SELECT id, code_hash, attempts FROM otp_codes WHERE user_id = $1 AND used = 0 \
         AND expires_at > $2 ORDER BY id DESC LIMIT 1",
    )
    .bind(user)
    .bind(now_ms())
    .fetch_optional(&db.pool)
    .await?;
    let Some((id, code_hash, attempts)) = live else {
        return Ok(false);
    };
    if attempts >= OTP_MAX_ATTEMPTS {
        return Ok(false);
    }
    let ok = code_hash == hash;
    sqlx::query("UPDATE otp_codes SET attempts = attempts + 1, used = $1 WHERE id = $2")
        .bind(ok as i64)
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(ok)
}

// ----- e-mailed tokens --------------------------------------------------------------

pub async fn store_email_token(
    db: &Db,
    hash: &str,
    user: i64,
    purpose: &str,
    new_email: Option<&str>,
    ttl_ms: i64,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO email_tokens (token_hash, user_id, purpose, new_email, expires_at) \
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(hash)
    .bind(user)
    .bind(purpose)
    .bind(new_email)
    .bind(now_ms() + ttl_ms)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Spends an e-mailed token of `purpose`: the user id and the new e-mail, if any.
pub async fn use_email_token(
    db: &Db,
    hash: &str,
    purpose: &str,
) -> sqlx::Result<Option<(i64, Option<String>)>> {
    let spent = sqlx::query(
        "UPDATE email_tokens SET used = 1 WHERE token_hash = $1 AND purpose = $2 \
         AND used = 0 AND expires_at > $3",
    )
    .bind(hash)
    .bind(purpose)
    .bind(now_ms())
    .execute(&db.pool)
    .await?
    .rows_affected();
    if spent == 0 {
        return Ok(None);
    }
    sqlx::query_as("SELECT user_id, new_email FROM email_tokens WHERE token_hash = $1")
        .bind(hash)
        .fetch_optional(&db.pool)
        .await
}

/// Spends every live token of `purpose` mailed to a user.
pub async fn spend_user_email_tokens(db: &Db, user: i64, purpose: &str) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE email_tokens SET used = 1 WHERE user_id = $1 AND purpose = $2 AND used = 0",
    )
    .bind(user)
    .bind(purpose)
    .execute(&db.pool)
    .await?;
    Ok(())
}

// ----- sign-in throttling -----------------------------------------------------------

pub use gemba_shared::api::v1::account::LoginAttempts;

pub async fn locked_until(db: &Db, email: &str) -> sqlx::Result<i64> {
    let v: Option<i64> =
        sqlx::query_scalar("SELECT locked_until FROM login_attempts WHERE email = $1")
            .bind(email)
            .fetch_optional(&db.pool)
            .await?;
    Ok(v.unwrap_or(0))
}

/// Records a failed sign-in; locks the address once `max` failures fall in `window_ms`.
pub async fn record_failure(
    db: &Db,
    email: &str,
    max: i64,
    window_ms: i64,
    lockout_ms: i64,
) -> sqlx::Result<()> {
    // One statement, so concurrent failures for one address count each (a read, then a
    // write in a transaction, failed under load: SQLite refuses to upgrade a stale read
    // snapshot, and two first failures both inserted on PostgreSQL). The row's failures
    // go back to 0 once it locks; a later failure never shortens a lock. In the update, `login_attempts.*` is the old row.
    const WITHIN: &str = "$2 - login_attempts.first_failure_at <= $4";
    let counted = format!("(CASE WHEN {WITHIN} THEN login_attempts.failures + 1 ELSE 1 END)");
    let sql = format!(
        "INSERT INTO login_attempts (email, failures, first_failure_at, locked_until) \
         VALUES ($1, CASE WHEN 1 >= $3 THEN 0 ELSE 1 END, $2, CASE WHEN 1 >= $3 THEN $2 + $5 ELSE 0 END) \
         ON CONFLICT (email) DO UPDATE SET \
         failures = CASE WHEN {counted} >= $3 THEN 0 ELSE {counted} END, \
         first_failure_at = CASE WHEN {WITHIN} THEN login_attempts.first_failure_at ELSE $2 END, \
         locked_until = CASE WHEN {counted} >= $3 THEN $2 + $5 ELSE login_attempts.locked_until END"
    );
    sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(email)
        .bind(now_ms())
        .bind(max)
        .bind(window_ms)
        .bind(lockout_ms)
        .execute(&db.pool)
        .await?;
    Ok(())
}

pub async fn clear_failures(db: &Db, email: &str) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM login_attempts WHERE email = $1")
        .bind(email)
        .execute(&db.pool)
        .await?;
    Ok(r.rows_affected() > 0)
}

/// Addresses currently locked out.
pub async fn lockouts(db: &Db) -> sqlx::Result<Vec<LoginAttempts>> {
    sqlx::query_as(
        "SELECT email, failures, first_failure_at, locked_until FROM login_attempts \
         WHERE locked_until > $1 ORDER BY locked_until DESC",
    )
    .bind(now_ms())
    .fetch_all(&db.pool)
    .await
}
