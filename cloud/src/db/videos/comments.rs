//! Comments on videos (`video_comments`), counted on the video.

use sqlx::FromRow;

use super::VideoRow;
use crate::db::{Db, now_ms};

#[derive(FromRow, Clone, Debug)]
pub struct CommentRow {
    pub id: i64,
    pub video_id: i64,
    pub user_id: Option<i64>,
    pub user_name: String,
    pub text: String,
    pub created_at: i64,
}

pub async fn comments(db: &Db, org: i64, video: i64) -> sqlx::Result<Vec<CommentRow>> {
    sqlx::query_as(
        "SELECT id, video_id, user_id, user_name, text, created_at FROM video_comments \
         WHERE organization_id = $1 AND video_id = $2 ORDER BY created_at, id",
    )
    .bind(org)
    .bind(video)
    .fetch_all(&db.pool)
    .await
}

/// Adds a comment and counts it on the video, in one transaction.
pub async fn add_comment(
    db: &Db,
    v: &VideoRow,
    user: i64,
    user_name: &str,
    text: &str,
) -> sqlx::Result<CommentRow> {
    let mut tx = db.begin_write().await?;
    let row: CommentRow = sqlx::query_as(
        "INSERT INTO video_comments (organization_id, video_id, user_id, user_name, text, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6) \
         RETURNING id, video_id, user_id, user_name, text, created_at",
    )
    .bind(v.organization_id)
    .bind(v.id)
    .bind(user)
    .bind(user_name)
    .bind(text)
    .bind(now_ms())
    .fetch_one(&mut *tx)
    .await?;
    sqlx::query("UPDATE videos SET no_of_comments = no_of_comments + 1 WHERE id = $1")
        .bind(v.id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(row)
}

pub async fn comment(db: &Db, org: i64, id: i64) -> sqlx::Result<Option<CommentRow>> {
    sqlx::query_as(
        "SELECT id, video_id, user_id, user_name, text, created_at FROM video_comments \
         WHERE organization_id = $1 AND id = $2",
    )
    .bind(org)
    .bind(id)
    .fetch_optional(&db.pool)
    .await
}

/// Deletes a comment and uncounts it, in one transaction.
pub async fn delete_comment(db: &Db, c: &CommentRow) -> sqlx::Result<()> {
    let mut tx = db.begin_write().await?;
    let n = sqlx::query("DELETE FROM video_comments WHERE id = $1")
        .bind(c.id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
    if n > 0 {
        sqlx::query("UPDATE videos SET no_of_comments = no_of_comments - 1 WHERE id = $1")
            .bind(c.video_id)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(())
}
