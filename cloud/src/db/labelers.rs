//! Labeling requested of labelers (`label_requests`): which tasks of which organisations
//! a labeler reaches through the labeler area.

use sqlx::FromRow;

use super::{Db, now_ms};

#[derive(FromRow, Clone, Debug)]
pub struct RequestRow {
    pub labeler_id: i64,
    pub email: String,
    pub name: String,
    pub created_at: i64,
}

/// The labelers a task is requested of, oldest request first.
pub async fn of_task(db: &Db, org: i64, task: i64) -> sqlx::Result<Vec<RequestRow>> {
    sqlx::query_as(
        "SELECT r.labeler_id, u.email, u.name, r.created_at FROM label_requests r \
         JOIN users u ON u.id = r.labeler_id \
         WHERE r.organization_id = $1 AND r.task_id = $2 ORDER BY r.id",
    )
    .bind(org)
    .bind(task)
    .fetch_all(&db.pool)
    .await
}

/// Requests labeling of `task` from `labeler`; false when it already was.
pub async fn request(db: &Db, org: i64, task: i64, labeler: i64, by: i64) -> sqlx::Result<bool> {
    Ok(sqlx::query(
        "INSERT INTO label_requests (organization_id, task_id, labeler_id, requested_by, created_at) \
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (task_id, labeler_id) DO NOTHING",
    )
    .bind(org)
    .bind(task)
    .bind(labeler)
    .bind(by)
    .bind(now_ms())
    .execute(&db.pool)
    .await?
    .rows_affected()
        == 1)
}

/// Withdraws the request; false when there was none.
pub async fn withdraw(db: &Db, org: i64, task: i64, labeler: i64) -> sqlx::Result<bool> {
    Ok(sqlx::query(
        "DELETE FROM label_requests WHERE organization_id = $1 AND task_id = $2 AND labeler_id = $3",
    )
    .bind(org)
    .bind(task)
    .bind(labeler)
    .execute(&db.pool)
    .await?
    .rows_affected()
        == 1)
}

/// A task requested of a labeler, with its organisation and its videos.
#[derive(FromRow, Clone, Debug)]
pub struct RequestedTask {
    pub task_id: i64,
    pub organization_id: i64,
    pub org_name_to_display: String,
    pub settings: String,
    pub created_at: i64,
    pub ready_videos: i64,
    pub labelled_videos: i64,
}

/// The tasks requested of `labeler` (not deleted), newest request first.
pub async fn requested(db: &Db, labeler: i64) -> sqlx::Result<Vec<RequestedTask>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT t.id AS task_id, t.organization_id, o.org_name_to_display, t.settings, \
         r.created_at, \
         (SELECT COUNT(*) FROM videos v WHERE v.task_id = t.id AND v.status = 'ready') AS ready_videos, \
         (SELECT COUNT(*) FROM video_labels l JOIN videos v ON v.id = l.video_id \
          WHERE l.task_id = t.id AND v.status = 'ready' AND l.segments <> '[]' AND {}) \
         AS labelled_videos \
         FROM label_requests r JOIN tasks t ON t.id = r.task_id \
         JOIN organizations o ON o.id = t.organization_id \
         WHERE r.labeler_id = $1 AND t.is_deleted = 0 ORDER BY r.id DESC",
        super::videos::TRAINABLE
    )))
    .bind(labeler)
    .fetch_all(&db.pool)
    .await
}

/// The organisation of `task` when it is requested of `labeler` (and not deleted).
pub async fn org_of_requested(db: &Db, labeler: i64, task: i64) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar(
        "SELECT t.organization_id FROM label_requests r JOIN tasks t ON t.id = r.task_id \
         WHERE r.labeler_id = $1 AND r.task_id = $2 AND t.is_deleted = 0",
    )
    .bind(labeler)
    .bind(task)
    .fetch_optional(&db.pool)
    .await
}
