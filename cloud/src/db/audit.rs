//! The audit log of administrators' changes (`audit_log`): written by the audit
//! middleware (`crate::http::audit`) after each changing call of an administering role,
//! read a page at a time, newest first.
//!
//! Invariant: an entry is only ever inserted, never changed; it holds no request body.

pub use gemba_shared::api::v1::organization::AuditEntry;

use super::Db;

/// An entry to write (its id is the table's).
#[derive(Debug, Clone, PartialEq)]
pub struct NewEntry {
    pub at: i64,
    pub user_id: i64,
    pub email: String,
    pub role: String,
    pub client_ip: String,
    pub organization_id: Option<i64>,
    pub method: String,
    pub route: String,
    pub target: String,
    pub status: i64,
}

pub async fn insert(db: &Db, e: &NewEntry) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO audit_log (at, user_id, email, role, client_ip, organization_id, \
         method, route, target, status) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(e.at)
    .bind(e.user_id)
    .bind(&e.email)
    .bind(&e.role)
    .bind(&e.client_ip)
    .bind(e.organization_id)
    .bind(&e.method)
    .bind(&e.route)
    .bind(&e.target)
    .bind(e.status)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Entries of organisation `org` (every organisation's, and those of none, with `None`),
/// newest first: `limit` of them from `offset`, and how many there are.
pub async fn page(
    db: &Db,
    org: Option<i64>,
    offset: i64,
    limit: i64,
) -> sqlx::Result<(Vec<AuditEntry>, i64)> {
    // The page's numbers are the server's, written into the text (docs/decisions.md "SQL
    // that stays prepared").
    let rows = sqlx::query_as::<_, AuditEntry>(sqlx::AssertSqlSafe(format!(
        "SELECT id, at, user_id, email, role, client_ip, organization_id, method, route, \
         target, status FROM audit_log \
         WHERE ($1 IS NULL OR organization_id = $1) ORDER BY id DESC \
         LIMIT {limit} OFFSET {offset}"
    )))
    .bind(org)
    .fetch_all(&db.pool)
    .await?;
    let (count,): (i64,) =
        sqlx::query_as("SELECT COUNT(*) FROM audit_log WHERE ($1 IS NULL OR organization_id = $1)")
            .bind(org)
            .fetch_one(&db.pool)
            .await?;
    Ok((rows, count))
}
