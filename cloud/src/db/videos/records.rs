//! Reading, listing, changing and deleting videos.

use super::{COLS, VideoRow};
use crate::db::Db;

/// A video by id alone (the labeler area checks its task's request itself).
pub async fn by_id(db: &Db, id: i64) -> sqlx::Result<Option<VideoRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM videos WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(&db.pool)
    .await
}

pub async fn get(db: &Db, org: i64, id: i64) -> sqlx::Result<Option<VideoRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM videos WHERE organization_id = $1 AND id = $2"
    )))
    .bind(org)
    .bind(id)
    .fetch_optional(&db.pool)
    .await
}

/// Deletes videos `ids` of `org`, all or none: answers the rows deleted (for their
/// objects), or `Err(id)` with the first id that is not a video of `org` (then nothing
/// is deleted).
pub async fn delete(db: &Db, org: i64, ids: &[i64]) -> sqlx::Result<Result<Vec<VideoRow>, i64>> {
    if ids.is_empty() {
        return Ok(Ok(vec![]));
    }
    let list = crate::db::id_list(ids);
    let mut tx = db.begin_write().await?;
    let gone: Vec<VideoRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "DELETE FROM videos WHERE organization_id = $1 AND id IN ({list}) RETURNING {COLS}"
    )))
    .bind(org)
    .fetch_all(&mut *tx)
    .await?;
    if let Some(&missing) = ids.iter().find(|&&id| !gone.iter().any(|r| r.id == id)) {
        // Dropping the transaction rolls the delete back.
        return Ok(Err(missing));
    }
    tx.commit().await?;
    Ok(Ok(gone))
}

/// The list's filters (spec section 7: page, isUploadedVideo, datetime_start,
/// datetime_end, ordering by no_of_comments).
#[derive(Debug, Default)]
pub struct Filter {
    pub uploaded: Option<bool>,
    /// Created at or after, unix ms.
    pub start: Option<i64>,
    /// Created before, unix ms.
    pub end: Option<i64>,
    /// `Some(true)`: most comments first; `Some(false)`: fewest first; else newest first.
    pub by_comments: Option<bool>,
    /// Only videos that are whole and read (the labeler area).
    pub ready_only: bool,
}

/// A page of `task`'s videos and how many match.
pub async fn page(
    db: &Db,
    org: i64,
    task: i64,
    f: &Filter,
    offset: i64,
    limit: i64,
) -> sqlx::Result<(Vec<VideoRow>, i64)> {
    // Every filter is a parameter; an absent one is NULL and matches everything.
    let cond = "organization_id = $1 AND task_id = $2 \
        AND ($3 IS NULL OR is_uploaded_video = $3) \
        AND ($4 IS NULL OR created_at >= $4) AND ($5 IS NULL OR created_at < $5) \
        AND ($6 = 0 OR status = 'ready')";
    let order = match f.by_comments {
        Some(true) => "no_of_comments DESC, id DESC",
        Some(false) => "no_of_comments ASC, id DESC",
        None => "created_at DESC, id DESC",
    };
    let rows: Vec<VideoRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM videos WHERE {cond} ORDER BY {order} LIMIT {limit} OFFSET {offset}"
    )))
    .bind(org)
    .bind(task)
    .bind(f.uploaded.map(i64::from))
    .bind(f.start)
    .bind(f.end)
    .bind(i64::from(f.ready_only))
    .fetch_all(&db.pool)
    .await?;
    let count: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT COUNT(*) FROM videos WHERE {cond}"
    )))
    .bind(org)
    .bind(task)
    .bind(f.uploaded.map(i64::from))
    .bind(f.start)
    .bind(f.end)
    .bind(i64::from(f.ready_only))
    .fetch_one(&db.pool)
    .await?;
    Ok((rows, count))
}

/// Changes video `v`: name, type, and its tags (all of the organisation's, else
/// `Err(id)` with the first that is not, and nothing changes).
pub async fn patch(
    db: &Db,
    v: &VideoRow,
    file_name: Option<&str>,
    uploaded: Option<bool>,
    tags: Option<&[i64]>,
) -> sqlx::Result<Result<(), i64>> {
    let mut tx = db.begin_write().await?;
    sqlx::query(
        "UPDATE videos SET file_name = COALESCE($1, file_name), \
         is_uploaded_video = COALESCE($2, is_uploaded_video) WHERE id = $3",
    )
    .bind(file_name)
    .bind(uploaded.map(i64::from))
    .bind(v.id)
    .execute(&mut *tx)
    .await?;
    if let Some(tags) = tags {
        sqlx::query("DELETE FROM video_tags WHERE video_id = $1")
            .bind(v.id)
            .execute(&mut *tx)
            .await?;
        for &t in tags {
            let n = sqlx::query(
                "INSERT INTO video_tags (video_id, tag_id) SELECT $1, id FROM org_tags \
                 WHERE id = $2 AND organization_id = $3 ON CONFLICT DO NOTHING",
            )
            .bind(v.id)
            .bind(t)
            .bind(v.organization_id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            // Nothing inserted: not one of the organisation's tags (callers pass each id
            // once), and dropping the transaction undoes the rest.
            if n == 0 {
                return Ok(Err(t));
            }
        }
    }
    tx.commit().await?;
    Ok(Ok(()))
}
