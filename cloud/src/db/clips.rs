//! Cycle clips: the video a station's device recorded around a cycle, uploaded after
//! the cycle was stored. One per cycle; the file is in the object store under the
//! cycle's organisation (`clips/{cycle}.{mp4|webm}`), the row says where and when its
//! first frame was on the cycle's clock. A cycle keeps its first clip.

use super::{Db, now_ms};

/// A stored clip.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct ClipRow {
    pub cycle_id: String,
    pub organization_id: i64,
    pub object_key: String,
    pub start_ms: i64,
    pub duration_ms: i64,
    pub size_bytes: i64,
    pub created_at: i64,
}

/// The device that recorded cycle `id` of `org`: `None` when the organisation has no
/// such cycle, `Some(None)` when its device was deleted.
pub async fn cycle_device(db: &Db, org: i64, id: &str) -> sqlx::Result<Option<Option<i64>>> {
    sqlx::query_scalar("SELECT device_id FROM cycles WHERE id = $1 AND organization_id = $2")
        .bind(id)
        .bind(org)
        .fetch_optional(&db.pool)
        .await
}

/// Keeps clip `c` unless its cycle has one: whether it did (a cycle's clip is never
/// replaced through an upload link, issue 28).
pub async fn put_new(db: &Db, c: &ClipRow) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "INSERT INTO cycle_clips (cycle_id, organization_id, object_key, start_ms, \
         duration_ms, size_bytes, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) \
         ON CONFLICT (cycle_id) DO NOTHING",
    )
    .bind(&c.cycle_id)
    .bind(c.organization_id)
    .bind(&c.object_key)
    .bind(c.start_ms)
    .bind(c.duration_ms)
    .bind(c.size_bytes)
    .bind(c.created_at)
    .execute(&db.pool)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// The clip of cycle `id` (of `org` when given: a super admin's call names none).
pub async fn get(db: &Db, org: Option<i64>, id: &str) -> sqlx::Result<Option<ClipRow>> {
    sqlx::query_as(
        "SELECT cycle_id, organization_id, object_key, start_ms, duration_ms, size_bytes, \
         created_at FROM cycle_clips WHERE cycle_id = $1 \
         AND ($2 IS NULL OR organization_id = $2)",
    )
    .bind(id)
    .bind(org)
    .fetch_optional(&db.pool)
    .await
}

/// The clips of cycles `ids` of `org` (those that have one).
pub async fn of_cycles(db: &Db, org: i64, ids: &[String]) -> sqlx::Result<Vec<ClipRow>> {
    if ids.is_empty() {
        return Ok(vec![]);
    }
    let marks: Vec<String> = (0..ids.len()).map(|i| format!("${}", i + 2)).collect();
    let sql = format!(
        "SELECT cycle_id, organization_id, object_key, start_ms, duration_ms, size_bytes, \
         created_at FROM cycle_clips WHERE organization_id = $1 AND cycle_id IN ({})",
        marks.join(", ")
    );
    let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(org);
    for id in ids {
        q = q.bind(id);
    }
    q.fetch_all(&db.pool).await
}

/// Forgets the clip of cycle `id` (of `org` when given); answers its organisation and
/// object key (for the caller to delete).
pub async fn remove(db: &Db, org: Option<i64>, id: &str) -> sqlx::Result<Option<(i64, String)>> {
    sqlx::query_as(
        "DELETE FROM cycle_clips WHERE cycle_id = $1 AND ($2 IS NULL OR organization_id = $2) \
         RETURNING organization_id, object_key",
    )
    .bind(id)
    .bind(org)
    .fetch_optional(&db.pool)
    .await
}

/// Forgets up to `limit` clips kept since before `before_ms` (unix ms), or whose cycle
/// is gone (its organisation deleted it some other way); answers them (for the caller
/// to delete their files).
pub async fn take_expired(db: &Db, before_ms: i64, limit: i64) -> sqlx::Result<Vec<ClipRow>> {
    sqlx::query_as(
        "DELETE FROM cycle_clips WHERE cycle_id IN (SELECT k.cycle_id FROM cycle_clips k \
         WHERE k.created_at < $1 OR NOT EXISTS (SELECT 1 FROM cycles c \
         WHERE c.id = k.cycle_id) ORDER BY k.created_at LIMIT $2) \
         RETURNING cycle_id, organization_id, object_key, start_ms, duration_ms, size_bytes, \
         created_at",
    )
    .bind(before_ms)
    .bind(limit)
    .fetch_all(&db.pool)
    .await
}

/// Unix milliseconds `days` ago.
pub fn days_ago(days: i64) -> i64 {
    now_ms() - days * 86_400_000
}
