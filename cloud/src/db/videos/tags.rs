//! The organisation's tags (`org_tags`) and what they tag: videos whole
//! (`video_tags`), or at a time in them (`video_time_tags`).

use sqlx::FromRow;

use super::VideoRow;
use crate::db::{Db, now_ms};

/// The organisation's tags, by name.
pub async fn org_tags(db: &Db, org: i64) -> sqlx::Result<Vec<(i64, String)>> {
    sqlx::query_as(
        "SELECT id, tag_name FROM org_tags WHERE organization_id = $1 ORDER BY tag_name, id",
    )
    .bind(org)
    .fetch_all(&db.pool)
    .await
}

/// The organisation's tags on the task's videos: id, name and how many videos carry
/// each, the most used first.
pub async fn task_tags(db: &Db, org: i64, task: i64) -> sqlx::Result<Vec<(i64, String, i64)>> {
    sqlx::query_as(
        "SELECT t.id, t.tag_name, COUNT(*) AS n FROM org_tags t \
         JOIN video_tags vt ON vt.tag_id = t.id \
         JOIN videos v ON v.id = vt.video_id \
         WHERE t.organization_id = $1 AND v.organization_id = $1 AND v.task_id = $2 \
         GROUP BY t.id, t.tag_name ORDER BY n DESC, t.tag_name, t.id",
    )
    .bind(org)
    .bind(task)
    .fetch_all(&db.pool)
    .await
}

/// A new tag; `None` when the organisation has one of that name.
pub async fn create_tag(db: &Db, org: i64, name: &str) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar(
        "INSERT INTO org_tags (organization_id, tag_name, created_at) VALUES ($1, $2, $3) \
         ON CONFLICT (organization_id, tag_name) DO NOTHING RETURNING id",
    )
    .bind(org)
    .bind(name)
    .bind(now_ms())
    .fetch_optional(&db.pool)
    .await
}

pub async fn delete_tag(db: &Db, org: i64, id: i64) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM org_tags WHERE organization_id = $1 AND id = $2")
        .bind(org)
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(r.rows_affected() > 0)
}

/// The tag names of each of `videos`.
pub async fn tags_of(db: &Db, videos: &[i64]) -> sqlx::Result<Vec<(i64, String)>> {
    if videos.is_empty() {
        return Ok(vec![]);
    }
    // Ids the server read from its own rows, written into the statement.
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT vt.video_id, t.tag_name FROM video_tags vt JOIN org_tags t ON t.id = vt.tag_id \
         WHERE vt.video_id IN ({}) ORDER BY t.tag_name",
        crate::db::id_list(videos)
    )))
    .fetch_all(&db.pool)
    .await
}

#[derive(FromRow, Clone, Debug)]
pub struct TimeTagRow {
    pub id: i64,
    pub video_id: i64,
    pub tag_id: i64,
    pub tag_name: String,
    pub time_ms: i64,
    pub created_by: Option<i64>,
    pub created_at: i64,
}

const TIME_TAG_COLS: &str = "tt.id, tt.video_id, tt.tag_id, t.tag_name, tt.time_ms, \
    tt.created_by, tt.created_at FROM video_time_tags tt JOIN org_tags t ON t.id = tt.tag_id";

pub async fn time_tags(db: &Db, org: i64, video: i64) -> sqlx::Result<Vec<TimeTagRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {TIME_TAG_COLS} WHERE tt.organization_id = $1 AND tt.video_id = $2 \
         ORDER BY tt.time_ms, tt.id"
    )))
    .bind(org)
    .bind(video)
    .fetch_all(&db.pool)
    .await
}

/// Tags video `v` with `tag` at `time_ms`; `None` when the tag is not the organisation's.
pub async fn add_time_tag(
    db: &Db,
    v: &VideoRow,
    tag: i64,
    time_ms: i64,
    by: i64,
) -> sqlx::Result<Option<TimeTagRow>> {
    let id: Option<i64> = sqlx::query_scalar(
        "INSERT INTO video_time_tags (organization_id, video_id, tag_id, time_ms, created_by, \
         created_at) SELECT $1, $2, id, $3, $4, $5 FROM org_tags \
         WHERE id = $6 AND organization_id = $1 RETURNING id",
    )
    .bind(v.organization_id)
    .bind(v.id)
    .bind(time_ms)
    .bind(by)
    .bind(now_ms())
    .bind(tag)
    .fetch_optional(&db.pool)
    .await?;
    let Some(id) = id else { return Ok(None) };
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {TIME_TAG_COLS} WHERE tt.id = $1"
    )))
    .bind(id)
    .fetch_optional(&db.pool)
    .await
}

pub async fn delete_time_tag(db: &Db, org: i64, id: i64) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM video_time_tags WHERE organization_id = $1 AND id = $2")
        .bind(org)
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(r.rows_affected() > 0)
}
