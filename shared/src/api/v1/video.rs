//! Training and trace videos of a task (spec section 3 "Video (task record)", section 7
//! "Videos, tags and comments"). A video is uploaded in parts: the portal (or a device)
//! creates it with its size, then sends the bytes in order, each part with a
//! `Content-Range`; an interrupted upload resumes from `received_bytes`. The last part
//! makes the cloud read the video's metadata and a thumbnail; a file that is not a usable
//! video is refused then, and nothing of it is kept.

use serde::{Deserialize, Serialize};

/// The largest part of an upload the cloud takes at once (8 MiB).
pub const MAX_PART_BYTES: i64 = 8 * 1024 * 1024;
/// The part size the portal uses (4 MiB): progress is shown after each.
pub const PART_BYTES: i64 = 4 * 1024 * 1024;
/// Longest file name.
pub const MAX_FILE_NAME: usize = 255;
/// How long a signed media URL stays good (6 hours): a labeling session.
pub const MEDIA_URL_TTL_SECS: i64 = 6 * 3600;
/// The slow-upload warning's default estimate (spec section 9), in milliseconds.
pub const SLOW_UPLOAD_MS: i64 = 100_000;

/// Where a video is in its life.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum VideoStatus {
    /// Parts are still to come.
    Uploading,
    /// Whole, read and playable.
    Ready,
}

/// A video of a task (spec section 3 "Video (task record)").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Video {
    pub id: i64,
    pub task: i64,
    pub file_name: String,
    /// A training video (true) or a trace (false): the spec's video type filter.
    #[serde(rename = "isUploadedVideo")]
    pub is_uploaded_video: bool,
    pub status: VideoStatus,
    pub size_bytes: i64,
    pub received_bytes: i64,
    /// Set once the video is ready.
    pub duration_ms: Option<i64>,
    pub fps: Option<f64>,
    pub width: Option<i64>,
    pub height: Option<i64>,
    pub no_of_comments: i64,
    pub tags: Vec<String>,
    /// A signed URL that plays the video (HTTP ranges), good for
    /// [`MEDIA_URL_TTL_SECS`]; once ready.
    pub url: Option<String>,
    /// A signed URL of its thumbnail (JPEG); once ready.
    pub thumbnail_url: Option<String>,
    /// Who uploaded it (user id), if known.
    pub created_by: Option<i64>,
    pub created_at: i64,
}

/// A new upload (`POST organization/task/videos/{taskId}`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct VideoCreate {
    pub file_name: String,
    pub size_bytes: i64,
    /// Training (`true`, the default) or trace (`false`).
    #[serde(rename = "isUploadedVideo", default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub is_uploaded_video: Option<bool>,
}
