//! Service tokens (`service_tokens`): the spec's cloud-function token. An integration
//! calls the API with a token's secret as one organisation and one role.
//!
//! Invariants:
//! - only the SHA-256 of a secret is stored;
//! - each token acts through an account of its own (`user_id`), made with it in one
//!   transaction: linked to the token's organisation only, with the token's role, a
//!   password hash no password matches (`!`) and an address under `.invalid` that no
//!   mail reaches, so it never signs in; what the token writes is attributed to it;
//! - the token's own `role_id` is the role it acts as (changing its account's role in
//!   Users changes nothing), and it is never the super admin's;
//! - a revoked token stays listed (`revoked_at`) and its account is made inactive;
//! - `last_used_at` moves at most once a minute, so a busy integration does not write
//!   on every call.

use gemba_shared::Role;
use gemba_shared::api::v1::service_token::ServiceToken;
use sqlx::FromRow;

use super::{Db, UserRow, now_ms};

/// How stale `last_used_at` may be before a call moves it, in ms.
pub const TOUCH_EVERY_MS: i64 = 60_000;

/// The `session` of a request made with a service token: this, then the token's id.
pub const SESSION_PREFIX: &str = "service-token:";

const LISTED: &str = "SELECT t.id, t.name, t.organization_id AS organization, \
     o.org_name_to_display AS organization_name, r.name AS role, t.user_id, c.email AS created_by, \
     t.created_at, t.expires_at, t.last_used_at, t.revoked_at \
     FROM service_tokens t JOIN organizations o ON o.id = t.organization_id \
     JOIN roles r ON r.id = t.role_id LEFT JOIN users c ON c.id = t.created_by";

#[derive(FromRow)]
struct Listed {
    id: i64,
    name: String,
    organization: i64,
    organization_name: String,
    role: String,
    user_id: i64,
    created_by: Option<String>,
    created_at: i64,
    expires_at: i64,
    last_used_at: Option<i64>,
    revoked_at: Option<i64>,
}

impl From<Listed> for ServiceToken {
    fn from(r: Listed) -> ServiceToken {
        ServiceToken {
            id: r.id,
            name: r.name,
            organization: r.organization,
            organization_name: r.organization_name,
            role: r.role,
            user_id: r.user_id,
            created_by: r.created_by,
            created_at: r.created_at,
            expires_at: r.expires_at,
            last_used_at: r.last_used_at,
            revoked_at: r.revoked_at,
        }
    }
}

/// Every token, newest first.
pub async fn list(db: &Db) -> sqlx::Result<Vec<ServiceToken>> {
    let rows: Vec<Listed> =
        sqlx::query_as(sqlx::AssertSqlSafe(format!("{LISTED} ORDER BY t.id DESC")))
            .fetch_all(&db.pool)
            .await?;
    Ok(rows.into_iter().map(Into::into).collect())
}

pub async fn get(db: &Db, id: i64) -> sqlx::Result<Option<ServiceToken>> {
    let row: Option<Listed> =
        sqlx::query_as(sqlx::AssertSqlSafe(format!("{LISTED} WHERE t.id = $1")))
            .bind(id)
            .fetch_optional(&db.pool)
            .await?;
    Ok(row.map(Into::into))
}

pub struct NewServiceToken<'a> {
    pub name: &'a str,
    pub organization: i64,
    pub role: Role,
    pub created_by: i64,
    pub expires_at: i64,
    pub token_hash: &'a str,
    /// The address of its account, unique (`token-….@service-token.invalid`).
    pub account_email: &'a str,
}

/// Makes the token and its account in one transaction; its id.
pub async fn create(db: &Db, t: &NewServiceToken<'_>) -> sqlx::Result<i64> {
    let role_id = super::users::role_id(db, t.role).await?;
    let now = now_ms();
    let mut tx = db.begin_write().await?;
    let user: i64 = sqlx::query_scalar(
        "INSERT INTO users (email, name, lastname, password_hash, role_id, organization_id, \
         is_active, is_email_verified, is_approved, require_otp, created_at) \
         VALUES ($1, $2, 'service token', '!', $3, $4, 1, 1, 1, 1, $5) RETURNING id",
    )
    .bind(t.account_email)
    .bind(t.name)
    .bind(role_id)
    .bind(t.organization)
    .bind(now)
    .fetch_one(&mut *tx)
    .await?;
    sqlx::query(
        "INSERT INTO user_organizations (user_id, organization_id, created_at) VALUES ($1, $2, $3)",
    )
    .bind(user)
    .bind(t.organization)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO service_tokens (name, token_hash, organization_id, user_id, role_id, \
         created_by, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
    )
    .bind(t.name)
    .bind(t.token_hash)
    .bind(t.organization)
    .bind(user)
    .bind(role_id)
    .bind(t.created_by)
    .bind(now)
    .bind(t.expires_at)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(id)
}

/// Revokes a token and makes its account inactive; false when there is no such token
/// or it was already revoked.
pub async fn revoke(db: &Db, id: i64) -> sqlx::Result<bool> {
    let mut tx = db.begin_write().await?;
    let n = sqlx::query(
        "UPDATE service_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL",
    )
    .bind(now_ms())
    .bind(id)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    sqlx::query(
        "UPDATE users SET is_active = 0 WHERE id = (SELECT user_id FROM service_tokens WHERE id = $1)",
    )
    .bind(id)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(n > 0)
}

/// A request's service token, its account, and whether the account is still linked to
/// the token's organisation: one query, as every call made with a token runs it.
#[derive(Debug, Clone, FromRow)]
pub struct Authenticated {
    #[sqlx(flatten)]
    pub user: UserRow,
    pub token_id: i64,
    pub token_org: i64,
    pub token_role: String,
    pub expires_at: i64,
    pub last_used_at: Option<i64>,
    pub revoked_at: Option<i64>,
    pub member: i64,
}

pub async fn authenticate(db: &Db, token_hash: &str) -> sqlx::Result<Option<Authenticated>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {}, t.id AS token_id, t.organization_id AS token_org, tr.name AS token_role, \
         t.expires_at, t.last_used_at, t.revoked_at, \
         (SELECT COUNT(*) FROM user_organizations uo WHERE uo.user_id = u.id \
          AND uo.organization_id = t.organization_id) AS member \
         FROM service_tokens t JOIN users u ON u.id = t.user_id \
         JOIN roles tr ON tr.id = t.role_id \
         LEFT JOIN roles r ON r.id = u.role_id WHERE t.token_hash = $1",
        super::users::USER_COLUMNS
    )))
    .bind(token_hash)
    .fetch_optional(&db.pool)
    .await
}

/// Moves a token's `last_used_at` to `now` unless it moved within the last minute.
pub async fn touch(db: &Db, id: i64, now: i64) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE service_tokens SET last_used_at = $1 WHERE id = $2 \
         AND (last_used_at IS NULL OR last_used_at <= $3)",
    )
    .bind(now)
    .bind(id)
    .bind(now - TOUCH_EVERY_MS)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Whether `last_used_at` is stale enough for a call to move it.
pub fn due_touch(last_used_at: Option<i64>, now: i64) -> bool {
    last_used_at.is_none_or(|t| now - t >= TOUCH_EVERY_MS)
}

/// For the `session` of a request made with a service token: whether that token still
/// works (not revoked, not expired, its account active). `None` for a sign-in's session.
pub async fn session_open(db: &Db, session: &str) -> sqlx::Result<Option<bool>> {
    let Some(id) = session
        .strip_prefix(SESSION_PREFIX)
        .and_then(|s| s.parse::<i64>().ok())
    else {
        return Ok(None);
    };
    let row: Option<(i64, Option<i64>, i64)> = sqlx::query_as(
        "SELECT t.expires_at, t.revoked_at, u.is_active FROM service_tokens t \
         JOIN users u ON u.id = t.user_id WHERE t.id = $1",
    )
    .bind(id)
    .fetch_optional(&db.pool)
    .await?;
    Ok(Some(row.is_some_and(|(exp, revoked, active)| {
        revoked.is_none() && exp > now_ms() && active != 0
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_use_moves_at_most_once_a_minute() {
        assert!(due_touch(None, 1_000));
        assert!(!due_touch(Some(1_000), 1_000 + TOUCH_EVERY_MS - 1));
        assert!(due_touch(Some(1_000), 1_000 + TOUCH_EVERY_MS));
    }
}
