//! Making a video: created with its size, filled part by part (or recorded by a device
//! and arriving whole), then made ready with what GStreamer read of it, or failed.

use super::{COLS, FAILED, READY, RECORDING, UPLOADING, VideoRow};
use crate::db::{Db, now_ms};

/// A video a device is to record: its device, camera and the command asking for it.
pub struct Recording<'a> {
    pub device: i64,
    pub camera: &'a str,
    pub command: &'a str,
}

pub struct NewVideo<'a> {
    pub org: i64,
    pub task: i64,
    pub file_name: &'a str,
    /// Of the object's key (`mp4`, `webm`, …).
    pub extension: &'a str,
    pub is_uploaded_video: bool,
    pub size_bytes: i64,
    pub created_by: i64,
    /// Recorded on a device (then `recording`, else `uploading`).
    pub recording: Option<Recording<'a>>,
}

/// Creates a video in `uploading` (or `recording`); its object key is
/// `videos/{id}/video.{extension}` of the organisation (set once the id is known).
pub async fn create(db: &Db, v: NewVideo<'_>) -> sqlx::Result<VideoRow> {
    let mut tx = db.begin_write().await?;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO videos (organization_id, task_id, file_name, is_uploaded_video, status, \
         size_bytes, object_key, created_by, created_at, device_id, camera, command_id) \
         VALUES ($1, $2, $3, $4, $5, $6, '', $7, $8, $9, $10, $11) RETURNING id",
    )
    .bind(v.org)
    .bind(v.task)
    .bind(v.file_name)
    .bind(v.is_uploaded_video as i64)
    .bind(if v.recording.is_some() {
        RECORDING
    } else {
        UPLOADING
    })
    .bind(v.size_bytes)
    .bind(v.created_by)
    .bind(now_ms())
    .bind(v.recording.as_ref().map(|r| r.device))
    .bind(v.recording.as_ref().map(|r| r.camera))
    .bind(v.recording.as_ref().map(|r| r.command))
    .fetch_one(&mut *tx)
    .await?;
    let row: VideoRow = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "UPDATE videos SET object_key = $1 WHERE id = $2 RETURNING {COLS}"
    )))
    .bind(format!("videos/{id}/video.{}", v.extension))
    .bind(id)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(row)
}

/// Records that the bytes up to `received` arrived, if the upload was still at `from`.
/// False when another part moved it first.
pub async fn advance(db: &Db, id: i64, from: i64, received: i64) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE videos SET received_bytes = $1 WHERE id = $2 AND status = $3 AND received_bytes = $4",
    )
    .bind(received)
    .bind(id)
    .bind(UPLOADING)
    .bind(from)
    .execute(&db.pool)
    .await?;
    Ok(r.rows_affected() == 1)
}

pub struct Ready<'a> {
    pub thumbnail_key: &'a str,
    pub duration_ms: i64,
    pub fps: f64,
    pub width: i64,
    pub height: i64,
}

pub async fn make_ready(db: &Db, id: i64, r: Ready<'_>) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE videos SET status = $1, received_bytes = size_bytes, thumbnail_key = $2, \
         duration_ms = $3, fps = $4, width = $5, height = $6, ready_at = $7 WHERE id = $8",
    )
    .bind(READY)
    .bind(r.thumbnail_key)
    .bind(r.duration_ms)
    .bind(r.fps)
    .bind(r.width)
    .bind(r.height)
    .bind(now_ms())
    .bind(id)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// A recording arrived whole (`size` bytes, in the staging file): it is read next.
/// False when the video is not (or no longer) `recording`.
pub async fn recording_arrived(db: &Db, id: i64, size: i64) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE videos SET size_bytes = $1, received_bytes = $1 WHERE id = $2 AND status = $3",
    )
    .bind(size)
    .bind(id)
    .bind(RECORDING)
    .execute(&db.pool)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// A recording failed: by video, or by the command that asked for it (its
/// acknowledgement said so). Only a video still `recording` changes.
pub async fn fail_recording(
    db: &Db,
    video: Option<i64>,
    command: Option<&str>,
    message: &str,
) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE videos SET status = $1, message = $2 \
         WHERE status = $3 AND (id = $4 OR command_id = $5)",
    )
    .bind(FAILED)
    .bind(message)
    .bind(RECORDING)
    .bind(video)
    .bind(command)
    .execute(&db.pool)
    .await?;
    Ok(r.rows_affected() > 0)
}
