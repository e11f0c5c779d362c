//! The records of a task that name a file in the object store (videos and their
//! thumbnails, model versions, cycle clips, validation videos, annotation images), for
//! `GET organization/task/s3_objects/{id}/`. Callers have found the task in the
//! organisation; every part of the query names both.

use sqlx::FromRow;

use super::Db;

#[derive(Debug, FromRow)]
pub struct Row {
    pub kind: String,
    pub record: String,
    pub name: String,
    pub object_key: String,
    pub created_at: i64,
}

/// Task `task`'s (of organisation `org`) stored files by their records, newest first,
/// at most `limit`.
pub async fn list(db: &Db, org: i64, task: i64, limit: i64) -> sqlx::Result<Vec<Row>> {
    sqlx::query_as(
        "SELECT * FROM ( \
           SELECT 'video' AS kind, CAST(id AS TEXT) AS record, file_name AS name, \
                  object_key, created_at FROM videos \
            WHERE task_id = $1 AND organization_id = $2 AND status = 'ready' \
           UNION ALL \
           SELECT 'thumbnail', CAST(id AS TEXT), file_name, thumbnail_key, created_at FROM videos \
            WHERE task_id = $1 AND organization_id = $2 AND thumbnail_key IS NOT NULL \
           UNION ALL \
           SELECT 'model', CAST(id AS TEXT), version, object_key, created_at FROM model_versions \
            WHERE task_id = $1 AND organization_id = $2 AND is_deleted = 0 \
           UNION ALL \
           SELECT 'clip', c.cycle_id, c.cycle_id, c.object_key, c.created_at FROM cycle_clips c \
             JOIN cycles y ON y.id = c.cycle_id \
            WHERE y.task_id = $1 AND c.organization_id = $2 \
           UNION ALL \
           SELECT 'validation_video', CAST(id AS TEXT), name, object_key, created_at \
             FROM validation_videos WHERE task_id = $1 AND organization_id = $2 \
           UNION ALL \
           SELECT 'annotation_image', CAST(id AS TEXT), CAST(id AS TEXT), object_key, created_at \
             FROM annotation_images WHERE task_id = $1 AND organization_id = $2 \
         ) o ORDER BY created_at DESC, kind, record LIMIT $3",
    )
    .bind(task)
    .bind(org)
    .bind(limit)
    .fetch_all(&db.pool)
    .await
}
