//! Messages on the cloud's job queue (`queue_messages`): what the portal reads of a job
//! apalis delivers (`crate::jobs`), and the worker's moves of its status.

use gemba_shared::api::v1::queue::{
    FAILED, FINISHED, QUEUED, QueueMessage, QueueMessageCreate, STARTED,
};
use gemba_shared::api::v1::task::TaskPatch;
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
    pub task_id: Option<i64>,
    pub task_name: Option<String>,
    pub target_organization_id: Option<i64>,
    /// JSON of the `TaskPatch` of an `update_task`.
    pub changes: Option<String>,
    pub frames_per_video: Option<i64>,
    pub result_task_id: Option<i64>,
    /// Comma-separated image ids.
    pub result_image_ids: String,
    /// The role the sender's call acted as.
    pub sender_role: Option<String>,
    pub message: String,
    pub created_by: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl MessageRow {
    /// The changes of an `update_task` (none when unreadable: it never is, being
    /// written from one).
    pub fn changes(&self) -> Option<TaskPatch> {
        self.changes
            .as_deref()
            .and_then(|c| serde_json::from_str(c).ok())
    }

    pub fn to_api(&self) -> QueueMessage {
        QueueMessage {
            id: self.id,
            queue: self.queue.clone(),
            status: self.status.clone(),
            video_id: self.video_id,
            start_ms: self.start_ms,
            end_ms: self.end_ms,
            result_video_id: self.result_video_id,
            task_id: self.task_id,
            task_name: self.task_name.clone(),
            organization: self.target_organization_id,
            changes: self.changes(),
            frames_per_video: self.frames_per_video,
            result_task_id: self.result_task_id,
            result_image_ids: self
                .result_image_ids
                .split(',')
                .filter_map(|i| i.parse().ok())
                .collect(),
            message: self.message.clone(),
            created_at: self.created_at,
            updated_at: self.updated_at,
        }
    }
}

const COLS: &str = "id, organization_id, queue, status, video_id, start_ms, end_ms, \
    result_video_id, task_id, task_name, target_organization_id, changes, frames_per_video, \
    result_task_id, result_image_ids, sender_role, message, created_by, created_at, updated_at";

/// Who sent a message: the user and the role their call acted as.
#[derive(Debug, Clone, Copy)]
pub struct Sender<'a> {
    pub user: i64,
    pub role: &'a str,
}

/// A new message of `org` sent by `by`, `queued`.
pub async fn create(
    db: &Db,
    org: i64,
    by: Option<Sender<'_>>,
    m: &QueueMessageCreate,
) -> sqlx::Result<MessageRow> {
    let now = now_ms();
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "INSERT INTO queue_messages (organization_id, queue, status, video_id, start_ms, \
         end_ms, created_by, created_at, updated_at, task_id, task_name, \
         target_organization_id, changes, frames_per_video, sender_role) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $10, $11, $12, $13, $14) RETURNING {COLS}"
    )))
    .bind(org)
    .bind(&m.queue)
    .bind(QUEUED)
    .bind(m.video_id)
    .bind(m.start_ms)
    .bind(m.end_ms)
    .bind(by.map(|s| s.user))
    .bind(now)
    .bind(m.task_id)
    .bind(&m.task_name)
    .bind(m.organization)
    .bind(
        m.changes
            .as_ref()
            .map(|c| serde_json::to_string(c).expect("changes serialise")),
    )
    .bind(m.frames_per_video)
    .bind(by.map(|s| s.role))
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

/// What a message's job made.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Made {
    pub video: Option<i64>,
    pub task: Option<i64>,
    pub images: Vec<i64>,
}

/// Message `id` ended well, making `made`.
pub async fn finish(db: &Db, id: i64, made: &Made) -> sqlx::Result<()> {
    let images: Vec<String> = made.images.iter().map(i64::to_string).collect();
    sqlx::query(
        "UPDATE queue_messages SET status = $1, result_video_id = $2, result_task_id = $3, \
         result_image_ids = $4, updated_at = $5 WHERE id = $6",
    )
    .bind(FINISHED)
    .bind(made.video)
    .bind(made.task)
    .bind(images.join(","))
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
