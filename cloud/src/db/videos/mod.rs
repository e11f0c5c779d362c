//! A task's videos (`videos`): created with their size, filled part by part, then made
//! ready with what GStreamer read of them. Every query takes the organisation.
//!
//! By job: `upload` (creating a video, its parts or its recording arriving, making it
//! ready or failed), `records` (reading, listing, changing, deleting), `labels` (a
//! person's and propagated ones), `tags` (the organisation's tags, on videos and at
//! times in them), `comments`. Every item is re-exported here, so callers name
//! `db::videos::X`.

mod comments;
mod labels;
mod records;
mod tags;
mod upload;

pub use comments::{CommentRow, add_comment, comment, comments, delete_comment};
pub use labels::{
    LabelsRow, TRAINABLE, delete_labels, label_states, labels, mark_reviewed, propagate,
    save_labels, task_labels, to_propagate, unpropagate,
};
pub use records::{Filter, by_id, delete, get, page, patch};
pub use tags::{
    TimeTagRow, add_time_tag, create_tag, delete_tag, delete_time_tag, org_tags, tags_of,
    task_tags, time_tags,
};
pub use upload::{
    NewVideo, Ready, Recording, advance, create, fail_recording, make_ready, recording_arrived,
};

use sqlx::FromRow;

#[derive(FromRow, Clone, Debug)]
pub struct VideoRow {
    pub id: i64,
    pub organization_id: i64,
    pub task_id: i64,
    pub file_name: String,
    #[sqlx(try_from = "super::Flag")]
    pub is_uploaded_video: bool,
    pub status: String,
    pub size_bytes: i64,
    pub received_bytes: i64,
    pub object_key: String,
    pub thumbnail_key: Option<String>,
    pub duration_ms: Option<i64>,
    pub fps: Option<f64>,
    pub width: Option<i64>,
    pub height: Option<i64>,
    pub no_of_comments: i64,
    pub created_by: Option<i64>,
    pub created_at: i64,
    pub device_id: Option<i64>,
    pub camera: Option<String>,
    pub message: String,
}

const COLS: &str = "id, organization_id, task_id, file_name, is_uploaded_video, status, \
    size_bytes, received_bytes, object_key, thumbnail_key, duration_ms, fps, width, height, \
    no_of_comments, created_by, created_at, device_id, camera, message";

pub const UPLOADING: &str = "uploading";
pub const READY: &str = "ready";
/// A device records it; its upload makes it ready.
pub const RECORDING: &str = "recording";
/// The device could not record or upload it (`message` says why).
pub const FAILED: &str = "failed";
