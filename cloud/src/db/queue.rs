//! Messages on the cloud's job queue (`queue_messages`): what the portal reads of a job
//! apalis delivers (`crate::jobs`), and the worker's moves of its status.

use gemba_shared::api::v1::queue::{
    FAILED, FINISHED, QUEUED, QueueMessage, QueueMessageCreate, STARTED,
};
use sqlx::FromRow;

use super::{Db, now_ms};

#[derive(Debug, Clone, FromRow)]
pub struct MessageRow {
    pub id: i64,
    pub organization_id: i64,
    pub queue: String,
    pub status: String,
    pub video_id: Option<i64>,
    pub start_ms: Option<i64>,
    pub end_ms: Option<i64>,
    pub result_video_id: Option<i64>,
    pub message: String,
    pub created_by: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl MessageRow {
    pub fn to_api(&self) -> QueueMessage {
        QueueMessage {
            id: self.id,
            queue: self.queue.clone(),
            status: self.status.clone(),
            video_id: self.video_id,
            start_ms: self.start_ms,
            end_ms: self.end_ms,
            result_video_id: self.result_video_id,
            message: self.message.clone(),
            created_at: self.created_at,
            updated_at: self.updated_at,
        }
    }
}

const COLS: &str = "id, organization_id, queue, status, video_id, start_ms, end_ms, \
    result_video_id, message, created_by, created_at, updated_at";

/// A new message of `org` sent by `by`, `queued`.
pub async fn create(
    db: &Db,
    org: i64,
    by: Option<i64>,
    m: &QueueMessageCreate,
) -> sqlx::Result<MessageRow> {
    let now = now_ms();
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "INSERT INTO queue_messages (organization_id, queue, status, video_id, start_ms, \
         end_ms, created_by, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) \
         RETURNING {COLS}"
    )))
    .bind(org)
    .bind(&m.queue)
    .bind(QUEUED)
    .bind(m.video_id)
    .bind(m.start_ms)
    .bind(m.end_ms)
    .bind(by)
    .bind(now)
    .fetch_one(&db.pool)
    .await
}

/// Message `id` of `org`.
pub async fn get(db: &Db, org: i64, id: i64) -> sqlx::Result<Option<MessageRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM queue_messages WHERE id = $1 AND organization_id = $2"
    )))
    .bind(id)
    .bind(org)
    .fetch_optional(&db.pool)
    .await
}

/// Message `id` of any organisation (the worker's).
pub async fn by_id(db: &Db, id: i64) -> sqlx::Result<Option<MessageRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM queue_messages WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(&db.pool)
    .await
}

/// Deletes message `id` (its job could not be queued).
pub async fn delete(db: &Db, id: i64) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM queue_messages WHERE id = $1")
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(())
}

/// A worker took message `id` (again, if a dead worker left it `started`).
pub async fn start(db: &Db, id: i64) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE queue_messages SET status = $1, message = '', updated_at = $2 WHERE id = $3",
    )
    .bind(STARTED)
    .bind(now_ms())
    .bind(id)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Message `id` ended well, making video `result` (if any).
pub async fn finish(db: &Db, id: i64, result: Option<i64>) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE queue_messages SET status = $1, result_video_id = $2, updated_at = $3 WHERE id = $4",
    )
    .bind(FINISHED)
    .bind(result)
    .bind(now_ms())
    .bind(id)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Message `id` failed for `why`.
pub async fn fail(db: &Db, id: i64, why: &str) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE queue_messages SET status = $1, message = $2, updated_at = $3 WHERE id = $4",
    )
    .bind(FAILED)
    .bind(why)
    .bind(now_ms())
    .bind(id)
    .execute(&db.pool)
    .await?;
    Ok(())
}
