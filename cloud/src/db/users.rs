//! Users, roles, organisation membership and activity sessions.

use gemba_shared::Role;
use sqlx::{AssertSqlSafe, FromRow};

use super::{Db, now_ms};

/// A user row with its role name.
#[derive(Debug, Clone, FromRow)]
pub struct UserRow {
    pub id: i64,
    pub email: String,
    pub name: String,
    pub lastname: String,
    pub password_hash: String,
    pub role: Option<String>,
    pub organization_id: Option<i64>,
    #[sqlx(try_from = "super::Flag")]
    pub is_active: bool,
    #[sqlx(try_from = "super::Flag")]
    pub is_email_verified: bool,
    #[sqlx(try_from = "super::Flag")]
    pub is_approved: bool,
    #[sqlx(try_from = "super::Flag")]
    pub require_otp: bool,
    pub mfa_method: Option<String>,
    pub totp_secret: Option<String>,
    pub totp_pending_secret: Option<String>,
    pub mobile_number: Option<String>,
    #[sqlx(try_from = "super::Flag")]
    pub must_change_password: bool,
    #[sqlx(try_from = "super::Flag")]
    pub is_policy_accepted: bool,
    #[sqlx(try_from = "super::Flag")]
    pub poc: bool,
    pub created_at: i64,
}

impl UserRow {
    pub fn role(&self) -> Option<Role> {
        self.role.as_deref().and_then(Role::parse)
    }
}

pub const USER_COLUMNS: &str = "u.id, u.email, u.name, u.lastname, u.password_hash, r.name AS role, \
     u.organization_id, u.is_active, u.is_email_verified, u.is_approved, u.require_otp, \
     u.mfa_method, u.totp_secret, u.totp_pending_secret, u.mobile_number, \
     u.must_change_password, u.is_policy_accepted, u.poc, u.created_at";

fn select_where(cond: &str) -> String {
    format!("SELECT {USER_COLUMNS} FROM users u LEFT JOIN roles r ON r.id = u.role_id WHERE {cond}")
}

pub async fn by_email(db: &Db, email: &str) -> sqlx::Result<Option<UserRow>> {
    sqlx::query_as(AssertSqlSafe(select_where("u.email = $1")))
        .bind(email.trim().to_lowercase())
        .fetch_optional(&db.pool)
        .await
}

pub async fn by_id(db: &Db, id: i64) -> sqlx::Result<Option<UserRow>> {
    sqlx::query_as(AssertSqlSafe(select_where("u.id = $1")))
        .bind(id)
        .fetch_optional(&db.pool)
        .await
}

pub struct NewUser<'a> {
    pub email: &'a str,
    pub name: &'a str,
    pub lastname: &'a str,
    pub password_hash: &'a str,
    pub role: Option<Role>,
    pub is_active: bool,
    pub is_email_verified: bool,
    pub is_approved: bool,
    pub require_otp: bool,
}

/// Inserts a user; `Err` with a unique violation when the e-mail is taken.
pub async fn insert(db: &Db, u: &NewUser<'_>) -> sqlx::Result<i64> {
    let role_id = match u.role {
        Some(r) => Some(role_id(db, r).await?),
        None => None,
    };
    sqlx::query_scalar(
        "INSERT INTO users (email, name, lastname, password_hash, role_id, is_active, \
         is_email_verified, is_approved, require_otp, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
    )
    .bind(u.email.trim().to_lowercase())
    .bind(u.name.trim())
    .bind(u.lastname.trim())
    .bind(u.password_hash)
    .bind(role_id)
    .bind(u.is_active as i64)
    .bind(u.is_email_verified as i64)
    .bind(u.is_approved as i64)
    .bind(u.require_otp as i64)
    .bind(now_ms())
    .fetch_one(&db.pool)
    .await
}

pub async fn role_id(db: &Db, role: Role) -> sqlx::Result<i64> {
    sqlx::query_scalar("SELECT id FROM roles WHERE name = $1")
        .bind(role.as_str())
        .fetch_one(&db.pool)
        .await
}

pub use gemba_shared::api::v1::account::RoleRecord;

pub async fn roles(db: &Db) -> sqlx::Result<Vec<RoleRecord>> {
    sqlx::query_as("SELECT id, name FROM roles ORDER BY id")
        .fetch_all(&db.pool)
        .await
}

pub async fn role_by_id(db: &Db, id: i64) -> sqlx::Result<Option<RoleRecord>> {
    sqlx::query_as("SELECT id, name FROM roles WHERE id = $1")
        .bind(id)
        .fetch_optional(&db.pool)
        .await
}

pub async fn insert_role(db: &Db, name: &str) -> sqlx::Result<RoleRecord> {
    sqlx::query_as("INSERT INTO roles (name) VALUES ($1) RETURNING id, name")
        .bind(name)
        .fetch_one(&db.pool)
        .await
}

/// Sets a flag column of a user. `column` is never user input.
pub async fn set_flag(db: &Db, id: i64, column: &'static str, value: bool) -> sqlx::Result<()> {
    set(db, id, column, value as i64).await
}

/// Sets one text or integer column of a user. `column` is never user input.
pub async fn set<'q, T>(db: &Db, id: i64, column: &'static str, value: T) -> sqlx::Result<()>
where
    T: 'q + Send + sqlx::Encode<'q, sqlx::Any> + sqlx::Type<sqlx::Any>,
{
    sqlx::query(AssertSqlSafe(format!(
        "UPDATE users SET {column} = $1 WHERE id = $2"
    )))
    .bind(value)
    .bind(id)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Replaces a password hash; `must_change` marks a password its owner did not choose.
pub async fn set_password(db: &Db, id: i64, hash: &str, must_change: bool) -> sqlx::Result<()> {
    sqlx::query("UPDATE users SET password_hash = $1, must_change_password = $2 WHERE id = $3")
        .bind(hash)
        .bind(must_change as i64)
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(())
}

/// Spends authenticator time step `step` for a user: true when it is later than the
/// last one spent (atomically, so one code cannot pass twice, even concurrently).
pub async fn spend_totp_step(db: &Db, id: i64, step: i64) -> sqlx::Result<bool> {
    let r =
        sqlx::query("UPDATE users SET totp_last_step = $1 WHERE id = $2 AND totp_last_step < $1")
            .bind(step)
            .bind(id)
            .execute(&db.pool)
            .await?;
    Ok(r.rows_affected() > 0)
}

pub async fn approve(db: &Db, id: i64, role: Role) -> sqlx::Result<()> {
    let rid = role_id(db, role).await?;
    sqlx::query("UPDATE users SET role_id = $1, is_approved = 1, is_active = 1 WHERE id = $2")
        .bind(rid)
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(())
}

pub async fn delete(db: &Db, id: i64) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM users WHERE id = $1")
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(r.rows_affected() > 0)
}

/// Super admins' addresses (for sign-up notifications).
pub async fn admin_emails(db: &Db) -> sqlx::Result<Vec<String>> {
    sqlx::query_scalar(
        "SELECT u.email FROM users u JOIN roles r ON r.id = u.role_id \
         WHERE r.name = 'admin' AND u.is_active = 1 ORDER BY u.id",
    )
    .fetch_all(&db.pool)
    .await
}

// ----- membership -----------------------------------------------------------------

pub async fn is_member(db: &Db, user: i64, org: i64) -> sqlx::Result<bool> {
    let n: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM user_organizations WHERE user_id = $1 AND organization_id = $2",
    )
    .bind(user)
    .bind(org)
    .fetch_one(&db.pool)
    .await?;
    Ok(n > 0)
}

/// How many organisations `user` is linked to that `other` is not linked to.
pub async fn links_outside(db: &Db, user: i64, other: i64) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT COUNT(*) FROM user_organizations WHERE user_id = $1 AND organization_id NOT IN \
         (SELECT organization_id FROM user_organizations WHERE user_id = $2)",
    )
    .bind(user)
    .bind(other)
    .fetch_one(&db.pool)
    .await
}

/// Links a user to an organisation (idempotent) and makes it current when the user has none.
pub async fn link(db: &Db, user: i64, org: i64) -> sqlx::Result<()> {
    // Writes only, no read first: on SQLite a transaction that reads and then writes
    // fails ("database is locked", no retry helps) when another connection wrote in
    // between, e.g. the mailer recording a delivery.
    let mut tx = db.begin_write().await?;
    sqlx::query(
        "INSERT INTO user_organizations (user_id, organization_id, created_at) VALUES ($1, $2, $3) \
         ON CONFLICT (user_id, organization_id) DO NOTHING",
    )
    .bind(user)
    .bind(org)
    .bind(now_ms())
    .execute(&mut *tx)
    .await?;
    sqlx::query("UPDATE users SET organization_id = $1 WHERE id = $2 AND organization_id IS NULL")
        .bind(org)
        .bind(user)
        .execute(&mut *tx)
        .await?;
    tx.commit().await
}

/// Removes a link; the current organisation falls back to another linked one (or none).
pub async fn unlink(db: &Db, user: i64, org: i64) -> sqlx::Result<bool> {
    let mut tx = db.begin_write().await?;
    let r =
        sqlx::query("DELETE FROM user_organizations WHERE user_id = $1 AND organization_id = $2")
            .bind(user)
            .bind(org)
            .execute(&mut *tx)
            .await?;
    sqlx::query(
        "UPDATE users SET organization_id = (SELECT MIN(organization_id) FROM user_organizations \
         WHERE user_id = $1) WHERE id = $1 AND organization_id = $2",
    )
    .bind(user)
    .bind(org)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(r.rows_affected() > 0)
}

// ----- activity sessions ----------------------------------------------------------

pub use gemba_shared::api::v1::account::ActivitySession;

pub async fn create_activity(
    db: &Db,
    user: i64,
    browser: &str,
    version: &str,
) -> sqlx::Result<ActivitySession> {
    let now = now_ms();
    sqlx::query_as(
        "INSERT INTO activity_sessions (user_id, browser, browser_version, created_at, end_time) \
         VALUES ($1, $2, $3, $4, $4) RETURNING id, user_id AS \"user\", browser, browser_version, end_time",
    )
    .bind(user)
    .bind(browser)
    .bind(version)
    .bind(now)
    .fetch_one(&db.pool)
    .await
}

/// Moves a session's end time to now; `None` when it is not the user's.
pub async fn touch_activity(db: &Db, id: i64, user: i64) -> sqlx::Result<Option<i64>> {
    let now = now_ms();
    let r =
        sqlx::query("UPDATE activity_sessions SET end_time = $1 WHERE id = $2 AND user_id = $3")
            .bind(now)
            .bind(id)
            .bind(user)
            .execute(&db.pool)
            .await?;
    Ok((r.rows_affected() > 0).then_some(now))
}

pub async fn latest_activity(db: &Db, user: i64) -> sqlx::Result<Option<ActivitySession>> {
    sqlx::query_as(
        "SELECT id, user_id AS \"user\", browser, browser_version, end_time FROM activity_sessions \
         WHERE user_id = $1 ORDER BY end_time DESC, id DESC LIMIT 1",
    )
    .bind(user)
    .fetch_optional(&db.pool)
    .await
}

// ----- lists ------------------------------------------------------------------------

/// Filters of the user lists.
#[derive(Debug, Default, Clone)]
pub struct UserFilter {
    /// Only members of this organisation (None: everyone, for the super admin).
    pub org: Option<i64>,
    /// Only users whose current organisation is `org`.
    pub current_only: bool,
    pub is_active: Option<bool>,
    pub role: Option<String>,
    pub search: Option<String>,
}

#[derive(FromRow)]
struct Counted {
    #[sqlx(flatten)]
    user: UserRow,
    total: i64,
}

/// A page of users matching `f` and the total count; `limit` None for all.
pub async fn list(
    db: &Db,
    f: &UserFilter,
    offset: i64,
    limit: Option<i64>,
) -> sqlx::Result<(Vec<UserRow>, i64)> {
    let org_cond = if f.current_only {
        "u.organization_id = $1"
    } else {
        "EXISTS (SELECT 1 FROM user_organizations uo WHERE uo.user_id = u.id AND uo.organization_id = $1)"
    };
    // The search is only in the statement when there is one: SQLite plans LIKE on an
    // indexed column with the bound value, so a bound pattern (even NULL) would make
    // it prepare the statement again on every call.
    let search_cond = if f.search.as_ref().is_some_and(|s| !s.trim().is_empty()) {
        "(LOWER(u.email) LIKE $4 ESCAPE '\\' OR LOWER(u.name) LIKE $4 ESCAPE '\\' \
         OR LOWER(u.lastname) LIKE $4 ESCAPE '\\')"
    } else {
        "$4 IS NULL"
    };
    let cond = format!(
        "($1 IS NULL OR {org_cond}) AND ($2 IS NULL OR u.is_active = $2) AND ($3 IS NULL OR r.name = $3) \
         AND {search_cond}"
    );
    let search = f
        .search
        .as_ref()
        .filter(|s| !s.trim().is_empty())
        .map(|s| super::contains_pattern(s));
    // The limit and offset (numbers the server computed) are written into the
    // statement, not bound: SQLite plans with the values of a bound LIMIT/OFFSET, so it
    // would prepare the statement again on every call.
    let limit = limit.unwrap_or(i64::MAX);
    // The total rides along with the page (one query); only a page past the end
    // needs a count of its own.
    let rows: Vec<Counted> = sqlx::query_as(AssertSqlSafe(format!(
        "SELECT {USER_COLUMNS}, COUNT(*) OVER () AS total FROM users u \
         LEFT JOIN roles r ON r.id = u.role_id WHERE {cond} \
         ORDER BY u.id LIMIT {limit} OFFSET {offset}"
    )))
    .bind(f.org)
    .bind(f.is_active.map(i64::from))
    .bind(f.role.clone())
    .bind(search.clone())
    .fetch_all(&db.pool)
    .await?;
    let count =
        match rows.first() {
            Some(r) => r.total,
            None if offset == 0 => 0,
            None => sqlx::query_scalar(AssertSqlSafe(format!(
                "SELECT COUNT(*) FROM users u LEFT JOIN roles r ON r.id = u.role_id WHERE {cond}"
            )))
            .bind(f.org)
            .bind(f.is_active.map(i64::from))
            .bind(f.role.clone())
            .bind(search)
            .fetch_one(&db.pool)
            .await?,
        };
    let rows = rows.into_iter().map(|r| r.user).collect();
    Ok((rows, count))
}
