//! `POST organization/task_record/extract_video_metadata` (spec section 7 "Videos, tags
//! and comments"; no payload shown): a stored video's file read again for its metadata
//! (docs/decisions.md "Video metadata"). Nothing is changed.

use serde::{Deserialize, Serialize};

/// The call's body: which video.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExtractVideoMetadata {
    /// The video (task record).
    pub task_record: i64,
}

/// A video file's metadata.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct VideoMetadata {
    pub task_record: i64,
    pub file_name: String,
    /// The stored file's size.
    pub size_bytes: i64,
    pub duration_ms: i64,
    /// Frames a second (0 when the file does not say).
    pub frame_rate: f64,
    pub width: i64,
    pub height: i64,
    /// The video codec as GStreamer describes it, e.g. "H.264 (High Profile)".
    pub codec: String,
    /// The container, e.g. "Quicktime" (an MP4) or "WebM"; `null` for a bare stream.
    pub container: Option<String>,
    pub has_audio: bool,
    /// The video stream's bits a second, when the file says.
    pub bitrate: Option<u32>,
}

/// The answer for a video whose file is not in the store yet.
pub const NOT_READY: &str = "The video has not finished uploading.";
