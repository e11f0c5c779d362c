//! What each camera of a device is set to run, seen from the reconcile
//! (`crate::mqtt::reconcile`): the setting's generation, and how the device answered
//! the last start.
//!
//! Invariants: a camera's generation is its `device_tasks.updated_at`, which grows
//! with every change the portal makes (`devices::set_camera_task` never lets it stay
//! or go back, even within one millisecond); `refused` is set only by a refused
//! start of the camera's current task and cleared by an accepted one or by a new
//! setting.

use super::{Db, now_ms};

/// One camera's setting, for the reconcile.
#[derive(Debug, Clone, PartialEq)]
pub struct CameraTask {
    pub camera: String,
    pub task: i64,
    /// Set running from the portal (else stopped there, the task kept).
    pub running: bool,
    /// Orders the portal's settings of this camera (see `Command::StartTask`).
    pub generation: i64,
    /// When the device last refused to start it (`None`: it did not, or something
    /// changed since).
    pub refused_at: Option<i64>,
}

/// The cameras of device `device` and what each is set to run.
pub async fn of_device(db: &Db, device: i64) -> sqlx::Result<Vec<CameraTask>> {
    let rows: Vec<(String, i64, i64, i64, Option<i64>)> = sqlx::query_as(
        "SELECT camera, task_id, running, updated_at, refused_at FROM device_tasks \
         WHERE device_id = $1 ORDER BY camera",
    )
    .bind(device)
    .fetch_all(&db.pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(
            |(camera, task, running, generation, refused_at)| CameraTask {
                camera,
                task,
                running: running != 0,
                generation,
                refused_at,
            },
        )
        .collect())
}

/// The generation of what `camera` of `device` is set to (`None`: never set).
pub async fn generation(db: &Db, device: i64, camera: &str) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar("SELECT updated_at FROM device_tasks WHERE device_id = $1 AND camera = $2")
        .bind(device)
        .bind(camera)
        .fetch_optional(&db.pool)
        .await
}

/// Notes how the device answered a start of `task` on `camera`: refused with why
/// (`Some`), or accepted (`None`, forgetting an earlier refusal). A start of a task
/// the camera is no longer set to is ignored.
pub async fn answered_start(
    db: &Db,
    device: i64,
    camera: &str,
    task: i64,
    refused: Option<&str>,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE device_tasks SET refused = $4, refused_at = $5 \
         WHERE device_id = $1 AND camera = $2 AND task_id = $3",
    )
    .bind(device)
    .bind(camera)
    .bind(task)
    .bind(refused)
    .bind(refused.map(|_| now_ms()))
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Whether a start or stop sent to `device` at or after `since` (cloud clock), and since
/// it came online this time, still waits for its acknowledgement: a status read
/// meanwhile may be older than it. (One sent while it was offline is lost.)
pub async fn awaiting_answer(db: &Db, device: i64, since: i64) -> sqlx::Result<bool> {
    let n: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM device_commands c JOIN devices d ON d.id = c.device_id \
         WHERE c.device_id = $1 AND c.created_at >= $2 \
         AND c.created_at >= COALESCE(d.online_since, 0) AND c.acked_at IS NULL \
         AND (c.command LIKE '{\"type\":\"start_task\"%' \
         OR c.command LIKE '{\"type\":\"stop_task\"%')",
    )
    .bind(device)
    .bind(since)
    .fetch_one(&db.pool)
    .await?;
    Ok(n > 0)
}
