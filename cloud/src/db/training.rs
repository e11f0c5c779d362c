//! Training runs (`training_runs`) and the model versions they make (`model_versions`).
//! A run is created `queued` in the same transaction that moves its task to `training`;
//! the worker moves it to `running`, reports progress, and ends it: `succeeded` with a
//! model version (the task `trained`), `failed` with the reason (the task `failed`), or
//! `stopped` (the task back in `in_annotation`, by `PUT organization/train/stop/`).

use gemba_shared::api::v1::training::{Metrics, ModelVersion, RunStatus, TrainingRun};
use sqlx::FromRow;

use super::{Db, now_ms};

#[derive(FromRow, Clone, Debug)]
pub struct RunRow {
    pub id: i64,
    pub organization_id: i64,
    pub task_id: i64,
    pub status: String,
    pub progress: f64,
    pub message: String,
    pub epochs: i64,
    pub train_videos: String,
    pub holdout_videos: String,
    pub started_by: Option<i64>,
    pub created_at: i64,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
    pub model_version_id: Option<i64>,
}

const RUN_COLS: &str = "id, organization_id, task_id, status, progress, message, epochs, \
    train_videos, holdout_videos, started_by, created_at, started_at, finished_at, \
    model_version_id";

impl RunRow {
    pub fn status(&self) -> RunStatus {
        RunStatus::parse(&self.status).unwrap_or(RunStatus::Failed)
    }

    pub fn train_videos(&self) -> Vec<i64> {
        serde_json::from_str(&self.train_videos).unwrap_or_default()
    }

    pub fn holdout_videos(&self) -> Vec<i64> {
        serde_json::from_str(&self.holdout_videos).unwrap_or_default()
    }

    pub fn into_api(self) -> TrainingRun {
        TrainingRun {
            id: self.id,
            task: self.task_id,
            status: self.status(),
            progress: self.progress,
            train_videos: self.train_videos(),
            holdout_videos: self.holdout_videos(),
            message: self.message,
            started_by: self.started_by,
            created_at: self.created_at,
            started_at: self.started_at,
            finished_at: self.finished_at,
            model_version: self.model_version_id,
        }
    }
}

pub struct NewRun<'a> {
    pub org: i64,
    pub task: i64,
    /// The task's version as read: the run starts only if nothing changed it since.
    pub task_version: i64,
    pub epochs: u32,
    pub train_videos: &'a [i64],
    pub holdout_videos: &'a [i64],
    pub by: i64,
}

/// Moves the task to `training` and creates its run, queued; `None` when the task
/// changed since it was read (or is already training).
pub async fn start(db: &Db, r: NewRun<'_>) -> sqlx::Result<Option<RunRow>> {
    let mut tx = db.begin_write().await?;
    let moved = sqlx::query(
        "UPDATE tasks SET train_status = 'training', version = version + 1 \
         WHERE id = $1 AND organization_id = $2 AND version = $3 AND train_status <> 'training'",
    )
    .bind(r.task)
    .bind(r.org)
    .bind(r.task_version)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if moved == 0 {
        return Ok(None);
    }
    let row: RunRow = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "INSERT INTO training_runs (organization_id, task_id, status, progress, message, epochs, \
         train_videos, holdout_videos, started_by, created_at) \
         VALUES ($1, $2, 'queued', 0, 'Waiting for a worker', $3, $4, $5, $6, $7) \
         RETURNING {RUN_COLS}"
    )))
    .bind(r.org)
    .bind(r.task)
    .bind(i64::from(r.epochs))
    .bind(serde_json::to_string(r.train_videos).expect("ids serialise"))
    .bind(serde_json::to_string(r.holdout_videos).expect("ids serialise"))
    .bind(r.by)
    .bind(now_ms())
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Some(row))
}

pub async fn run(db: &Db, id: i64) -> sqlx::Result<Option<RunRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {RUN_COLS} FROM training_runs WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(&db.pool)
    .await
}

/// The task's latest run.
pub async fn latest_run(db: &Db, org: i64, task: i64) -> sqlx::Result<Option<RunRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {RUN_COLS} FROM training_runs WHERE organization_id = $1 AND task_id = $2 \
         ORDER BY id DESC LIMIT 1"
    )))
    .bind(org)
    .bind(task)
    .fetch_optional(&db.pool)
    .await
}

/// A queued run (or one a dead worker left running) begins; false when it was stopped
/// or ended meanwhile.
pub async fn begin(db: &Db, id: i64) -> sqlx::Result<bool> {
    Ok(sqlx::query(
        "UPDATE training_runs SET status = 'running', started_at = $2, progress = 0, \
         message = 'Starting' WHERE id = $1 AND status IN ('queued', 'running')",
    )
    .bind(id)
    .bind(now_ms())
    .execute(&db.pool)
    .await?
    .rows_affected()
        == 1)
}

/// Progress of a running run; false when it is no longer running (stopped).
pub async fn progress(db: &Db, id: i64, progress: f64, message: &str) -> sqlx::Result<bool> {
    Ok(sqlx::query(
        "UPDATE training_runs SET progress = $2, message = $3 WHERE id = $1 AND status = 'running'",
    )
    .bind(id)
    .bind(progress.clamp(0.0, 1.0))
    .bind(message)
    .execute(&db.pool)
    .await?
    .rows_affected()
        == 1)
}

/// Whether the run is still queued or running.
pub async fn is_active(db: &Db, id: i64) -> sqlx::Result<bool> {
    Ok(run(db, id).await?.is_some_and(|r| r.status().is_active()))
}

/// Ends an active run as `failed` with `why`, the task `failed`; false when the run was
/// no longer active.
pub async fn fail(db: &Db, r: &RunRow, why: &str) -> sqlx::Result<bool> {
    end(db, r, RunStatus::Failed, why, "failed").await
}

/// Stops the task's active run (the task back to `in_annotation`, its labels kept);
/// false when the task was not training.
pub async fn stop(db: &Db, org: i64, task: i64) -> sqlx::Result<bool> {
    let mut tx = db.begin_write().await?;
    let moved = sqlx::query(
        "UPDATE tasks SET train_status = 'in_annotation', version = version + 1 \
         WHERE id = $1 AND organization_id = $2 AND train_status = 'training'",
    )
    .bind(task)
    .bind(org)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if moved == 0 {
        return Ok(false);
    }
    sqlx::query(
        "UPDATE training_runs SET status = 'stopped', message = 'Stopped', finished_at = $3 \
         WHERE organization_id = $1 AND task_id = $2 AND status IN ('queued', 'running')",
    )
    .bind(org)
    .bind(task)
    .bind(now_ms())
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(true)
}

async fn end(
    db: &Db,
    r: &RunRow,
    status: RunStatus,
    message: &str,
    task_status: &str,
) -> sqlx::Result<bool> {
    let mut tx = db.begin_write().await?;
    let ended = sqlx::query(
        "UPDATE training_runs SET status = $2, message = $3, finished_at = $4 \
         WHERE id = $1 AND status IN ('queued', 'running')",
    )
    .bind(r.id)
    .bind(status.as_str())
    .bind(message)
    .bind(now_ms())
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if ended == 0 {
        return Ok(false);
    }
    sqlx::query(
        "UPDATE tasks SET train_status = $2, version = version + 1 \
         WHERE id = $1 AND train_status = 'training'",
    )
    .bind(r.task_id)
    .bind(task_status)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(true)
}

// ----- model versions --------------------------------------------------------------------

#[derive(FromRow, Clone, Debug)]
pub struct ModelRow {
    pub id: i64,
    pub organization_id: i64,
    pub task_id: Option<i64>,
    pub model_type_id: Option<i64>,
    pub version: String,
    pub object_key: String,
    pub sha256: String,
    pub size_bytes: i64,
    pub metrics: Option<String>,
    pub training_run_id: Option<i64>,
    #[sqlx(try_from = "super::Flag")]
    pub is_deleted: bool,
    pub created_at: i64,
}

const MODEL_COLS: &str = "id, organization_id, task_id, model_type_id, version, object_key, \
    sha256, size_bytes, metrics, training_run_id, is_deleted, created_at";

impl ModelRow {
    pub fn into_api(self) -> ModelVersion {
        ModelVersion {
            id: self.id,
            version: self.version,
            task: self.task_id,
            model_type: self.model_type_id,
            is_deleted: self.is_deleted,
            sha256: self.sha256,
            size_bytes: self.size_bytes,
            metrics: self
                .metrics
                .and_then(|m| serde_json::from_str::<Metrics>(&m).ok()),
            training_run: self.training_run_id,
            created_at: self.created_at,
        }
    }
}

pub async fn model(db: &Db, org: i64, id: i64) -> sqlx::Result<Option<ModelRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {MODEL_COLS} FROM model_versions WHERE organization_id = $1 AND id = $2"
    )))
    .bind(org)
    .bind(id)
    .fetch_optional(&db.pool)
    .await
}

pub struct NewModel<'a> {
    pub model_type_id: Option<i64>,
    pub version: &'a str,
    pub object_key: &'a str,
    pub sha256: &'a str,
    pub size_bytes: i64,
    /// On held-out footage; `None` for a model made elsewhere.
    pub metrics: Option<&'a Metrics>,
}

/// A model version of `task` made outside the product (no run, no metrics); a version
/// name the organisation has is the database's unique violation.
pub async fn register(db: &Db, org: i64, task: i64, m: &NewModel<'_>) -> sqlx::Result<ModelRow> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "INSERT INTO model_versions (organization_id, task_id, model_type_id, version, \
         object_key, sha256, size_bytes, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING {MODEL_COLS}"
    )))
    .bind(org)
    .bind(task)
    .bind(m.model_type_id)
    .bind(m.version)
    .bind(m.object_key)
    .bind(m.sha256)
    .bind(m.size_bytes)
    .bind(now_ms())
    .fetch_one(&db.pool)
    .await
}

/// Registers the run's model version and ends the run `succeeded` (the task
/// `trained`), in one transaction; `None` when the run was stopped meanwhile.
pub async fn succeed(db: &Db, r: &RunRow, m: NewModel<'_>) -> sqlx::Result<Option<ModelRow>> {
    let mut tx = db.begin_write().await?;
    let at = now_ms();
    let ended = sqlx::query(
        "UPDATE training_runs SET status = 'succeeded', progress = 1, message = 'Trained', \
         finished_at = $2 WHERE id = $1 AND status = 'running'",
    )
    .bind(r.id)
    .bind(at)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if ended == 0 {
        return Ok(None);
    }
    let row: ModelRow = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "INSERT INTO model_versions (organization_id, task_id, version, object_key, sha256, \
         size_bytes, metrics, training_run_id, created_at, model_type_id) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING {MODEL_COLS}"
    )))
    .bind(r.organization_id)
    .bind(r.task_id)
    .bind(m.version)
    .bind(m.object_key)
    .bind(m.sha256)
    .bind(m.size_bytes)
    .bind(
        m.metrics
            .map(|x| serde_json::to_string(x).expect("metrics serialise")),
    )
    .bind(r.id)
    .bind(at)
    .bind(m.model_type_id)
    .fetch_one(&mut *tx)
    .await?;
    sqlx::query("UPDATE training_runs SET model_version_id = $2 WHERE id = $1")
        .bind(r.id)
        .bind(row.id)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "UPDATE tasks SET train_status = 'trained', version = version + 1 \
         WHERE id = $1 AND train_status = 'training'",
    )
    .bind(r.task_id)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Some(row))
}

/// The labelled videos of a task (ready, with at least one segment; propagated labels
/// once reviewed), oldest first.
pub async fn labelled_videos(db: &Db, org: i64, task: i64) -> sqlx::Result<Vec<i64>> {
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT v.id FROM videos v JOIN video_labels l ON l.video_id = v.id \
         WHERE v.organization_id = $1 AND v.task_id = $2 AND v.status = 'ready' \
         AND l.segments <> '[]' AND {} ORDER BY v.id",
        super::videos::TRAINABLE
    )))
    .bind(org)
    .bind(task)
    .fetch_all(&db.pool)
    .await
}

/// Ready videos of a task.
pub async fn ready_videos(db: &Db, org: i64, task: i64) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT COUNT(*) FROM videos WHERE organization_id = $1 AND task_id = $2 \
         AND status = 'ready'",
    )
    .bind(org)
    .bind(task)
    .fetch_one(&db.pool)
    .await
}

/// The organisation's model versions (of one task, when given), newest first.
pub async fn models(db: &Db, org: i64, task: Option<i64>) -> sqlx::Result<Vec<ModelRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {MODEL_COLS} FROM model_versions WHERE organization_id = $1 \
         AND ($2 IS NULL OR task_id = $2) ORDER BY id DESC"
    )))
    .bind(org)
    .bind(task)
    .fetch_all(&db.pool)
    .await
}

/// Sets a model version's soft delete; false when it is not the organisation's.
pub async fn set_model_deleted(db: &Db, org: i64, id: i64, deleted: bool) -> sqlx::Result<bool> {
    Ok(sqlx::query(
        "UPDATE model_versions SET is_deleted = $3 WHERE organization_id = $1 AND id = $2",
    )
    .bind(org)
    .bind(id)
    .bind(deleted as i64)
    .execute(&db.pool)
    .await?
    .rows_affected()
        == 1)
}

// ----- deployments -----------------------------------------------------------------------

pub struct NewDeployment<'a> {
    pub org: i64,
    pub model: i64,
    pub task: i64,
    pub device: i64,
    pub command: &'a str,
    pub by: i64,
}

pub async fn add_deployment(db: &Db, d: NewDeployment<'_>) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "INSERT INTO deployments (organization_id, model_version_id, task_id, device_id, \
         command_id, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
    )
    .bind(d.org)
    .bind(d.model)
    .bind(d.task)
    .bind(d.device)
    .bind(d.command)
    .bind(d.by)
    .bind(now_ms())
    .fetch_one(&db.pool)
    .await
}

/// A deployment with its model version, device and the command's answer.
#[derive(FromRow, Clone, Debug)]
pub struct DeploymentRow {
    pub id: i64,
    pub model_version_id: i64,
    pub version: String,
    pub task_id: i64,
    pub device_id: i64,
    pub display_name: String,
    pub device_status: Option<String>,
    pub created_at: i64,
    pub acked_at: Option<i64>,
    pub ok: Option<i64>,
    pub message: Option<String>,
}

/// The organisation's deployments, newest first, of one model version or task when
/// given (at most 200).
pub async fn deployments(
    db: &Db,
    org: i64,
    model: Option<i64>,
    task: Option<i64>,
) -> sqlx::Result<Vec<DeploymentRow>> {
    sqlx::query_as(
        "SELECT d.id, d.model_version_id, m.version, d.task_id, d.device_id, v.display_name, \
         v.status AS device_status, d.created_at, c.acked_at, c.ok, c.message \
         FROM deployments d JOIN model_versions m ON m.id = d.model_version_id \
         JOIN devices v ON v.id = d.device_id \
         LEFT JOIN device_commands c ON c.id = d.command_id \
         WHERE d.organization_id = $1 AND ($2 IS NULL OR d.model_version_id = $2) \
         AND ($3 IS NULL OR d.task_id = $3) ORDER BY d.id DESC LIMIT 200",
    )
    .bind(org)
    .bind(model)
    .bind(task)
    .fetch_all(&db.pool)
    .await
}
