//! Screenshots of devices' cameras (issue 29): a row is made when the `screenshot`
//! command is sent, completed when the device's JPEG arrives (its object key, size and
//! time), so a screenshot asked for and never sent stays without `taken_at` and is
//! never listed. No foreign keys: rows of a deleted device or organisation stay until
//! [`take_expired`] hands them to the sweep, which deletes their files.

use sqlx::FromRow;

use super::{Db, now_ms};

/// Asked for by a person.
pub const ON_DEMAND: &str = "on_demand";
/// Taken at the device's interval.
pub const INTERVAL: &str = "interval";

#[derive(Debug, Clone, FromRow)]
pub struct ScreenshotRow {
    pub id: i64,
    pub organization_id: i64,
    pub device_id: i64,
    pub camera: String,
    pub kind: String,
    pub command_id: String,
    pub requested_at: i64,
    pub taken_at: Option<i64>,
    pub size_bytes: i64,
    pub object_key: Option<String>,
}

const COLS: &str = "id, organization_id, device_id, camera, kind, command_id, requested_at, \
     taken_at, size_bytes, object_key";

/// A screenshot asked of `device`'s `camera` by command `command`.
pub async fn insert(
    db: &Db,
    org: i64,
    device: i64,
    camera: &str,
    kind: &str,
    command: &str,
) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "INSERT INTO screenshots (organization_id, device_id, camera, kind, command_id, \
         requested_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
    )
    .bind(org)
    .bind(device)
    .bind(camera)
    .bind(kind)
    .bind(command)
    .bind(now_ms())
    .fetch_one(&db.pool)
    .await
}

pub async fn get(db: &Db, org: i64, id: i64) -> sqlx::Result<Option<ScreenshotRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM screenshots WHERE id = $1 AND organization_id = $2"
    )))
    .bind(id)
    .bind(org)
    .fetch_optional(&db.pool)
    .await
}

/// Records screenshot `id`'s JPEG as arrived, once: whether this call did.
pub async fn arrived(db: &Db, id: i64, key: &str, size: i64) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE screenshots SET taken_at = $2, object_key = $3, size_bytes = $4 \
         WHERE id = $1 AND taken_at IS NULL",
    )
    .bind(id)
    .bind(now_ms())
    .bind(key)
    .bind(size)
    .execute(&db.pool)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// Which screenshots [`taken`] lists.
pub struct Taken<'a> {
    pub device: i64,
    /// One camera's, or all.
    pub camera: Option<&'a str>,
    pub kind: &'a str,
    /// From and to (unix ms, inclusive, either open).
    pub from: Option<i64>,
    pub to: Option<i64>,
}

/// The screenshots `t` names that arrived, newest first: a page (`offset`, `limit`)
/// and the count.
pub async fn taken(
    db: &Db,
    t: &Taken<'_>,
    offset: i64,
    limit: i64,
) -> sqlx::Result<(Vec<ScreenshotRow>, i64)> {
    let cond = "device_id = $1 AND ($2 IS NULL OR camera = $2) AND kind = $3 \
         AND taken_at IS NOT NULL AND ($4 IS NULL OR taken_at >= $4) \
         AND ($5 IS NULL OR taken_at <= $5)";
    let rows = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM screenshots WHERE {cond} ORDER BY taken_at DESC, id DESC \
         LIMIT {limit} OFFSET {offset}"
    )))
    .bind(t.device)
    .bind(t.camera)
    .bind(t.kind)
    .bind(t.from)
    .bind(t.to)
    .fetch_all(&db.pool)
    .await?;
    let count = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT COUNT(*) FROM screenshots WHERE {cond}"
    )))
    .bind(t.device)
    .bind(t.camera)
    .bind(t.kind)
    .bind(t.from)
    .bind(t.to)
    .fetch_one(&db.pool)
    .await?;
    Ok((rows, count))
}

/// When the last screenshot at intervals was asked of `camera` of `device`.
pub async fn last_interval_request(
    db: &Db,
    device: i64,
    camera: &str,
) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar(
        "SELECT MAX(requested_at) FROM screenshots WHERE device_id = $1 AND camera = $2 \
         AND kind = 'interval'",
    )
    .bind(device)
    .bind(camera)
    .fetch_one(&db.pool)
    .await
}

/// Deletes and answers at most `limit` screenshots to sweep: taken before `before`
/// (unix ms; none when `None`), asked for before `unanswered_before` and never sent, or
/// of a device that is gone.
pub async fn take_expired(
    db: &Db,
    before: Option<i64>,
    unanswered_before: i64,
    limit: i64,
) -> sqlx::Result<Vec<ScreenshotRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "DELETE FROM screenshots WHERE id IN (SELECT s.id FROM screenshots s \
         WHERE s.taken_at < $1 OR (s.taken_at IS NULL AND s.requested_at < $2) \
         OR NOT EXISTS (SELECT 1 FROM devices d WHERE d.id = s.device_id) \
         ORDER BY s.id LIMIT {limit}) RETURNING {COLS}"
    )))
    .bind(before)
    .bind(unanswered_before)
    .fetch_all(&db.pool)
    .await
}
