//! Training and trace videos of a task (spec section 3 "Video (task record)", section 7
//! "Videos, tags and comments"). A video is uploaded in parts: the portal (or a device)
//! creates it with its size, then sends the bytes in order, each part with a
//! `Content-Range`; an interrupted upload resumes from `received_bytes`. The last part
//! makes the cloud read the video's metadata and a thumbnail; a file that is not a usable
//! video is refused then, and nothing of it is kept.

use serde::{Deserialize, Serialize};

use crate::cycle::Segment;

/// The largest part of an upload the cloud takes at once (8 MiB).
pub const MAX_PART_BYTES: i64 = 8 * 1024 * 1024;
/// The part size the portal uses (4 MiB): progress is shown after each.
pub const PART_BYTES: i64 = 4 * 1024 * 1024;
/// Longest file name.
pub const MAX_FILE_NAME: usize = crate::validate::MAX_FILE_NAME_CHARS;
/// How long a signed media URL stays good at least (6 hours): a labeling session. It
/// expires at the first whole hour after that, so reads within an hour get one URL. A
/// URL made for the portal also ends with the auth session it was made in (sign-out).
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
    /// A device is recording it from a camera (`record` below); it uploads it when done.
    Recording,
    /// The device could not record or upload it: `message` says why.
    Failed,
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
    /// A signed URL that plays the video (HTTP ranges), good for at least
    /// [`MEDIA_URL_TTL_SECS`]; once ready.
    pub url: Option<String>,
    /// A signed URL of its thumbnail (JPEG); once ready.
    pub thumbnail_url: Option<String>,
    /// Who uploaded it (user id), if known.
    pub created_by: Option<i64>,
    pub created_at: i64,
    /// Recorded on a device: which one and its camera.
    pub device: Option<i64>,
    pub camera: Option<String>,
    /// Why a recording failed (empty otherwise).
    pub message: String,
    /// Where its step labels stand.
    pub labels: LabelState,
}

/// Where a video's step labels stand.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum LabelState {
    /// Nobody has labelled it.
    None,
    /// A person saved its labels.
    Labelled,
    /// A trained model guessed its labels: a person is to review them before they are
    /// trained on.
    Propagated,
    /// Checked: saved in verification mode, or propagated labels marked reviewed.
    Reviewed,
}

/// A new upload (`POST organization/task/videos/{taskId}`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct VideoCreate {
    #[cfg_attr(feature = "openapi", schema(max_length = 255))]
    pub file_name: String,
    pub size_bytes: i64,
    /// Training (`true`, the default) or trace (`false`).
    #[serde(rename = "isUploadedVideo", default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub is_uploaded_video: Option<bool>,
}

/// Shortest recording a device is asked for, in seconds.
pub const MIN_RECORD_SECS: i64 = 5;
/// Longest recording a device is asked for, in seconds (10 minutes).
pub const MAX_RECORD_SECS: i64 = 600;

/// Record a training video on a device's camera
/// (`POST organization/task/videos/{taskId}/record/`): the device records `seconds`
/// from `camera` and uploads it; the video is `recording` until then.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct RecordRequest {
    pub device: i64,
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub camera: String,
    pub seconds: i64,
}

/// Most labelled segments a video may hold.
pub const MAX_SEGMENTS: usize = 10_000;

/// A video's step labels (`organization/task_record/{id}/labels/`): the segments where
/// each step is performed; time outside every segment is background (no step).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct VideoLabels {
    pub video: i64,
    pub task: i64,
    /// The operation's step names, by index.
    pub steps: Vec<String>,
    pub duration_ms: i64,
    /// In time order, none overlapping.
    pub segments: Vec<Segment>,
    /// A person has checked them (verification mode, or propagated labels marked
    /// reviewed).
    pub reviewed: bool,
    /// Propagated labels: the model version that guessed them (`null`: a person's).
    /// Saving labels makes them a person's.
    pub propagated_from: Option<String>,
    pub updated_by: Option<i64>,
    pub updated_at: Option<i64>,
}

/// New labels for a video: all its segments (they replace the old ones).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LabelsPut {
    pub segments: Vec<Segment>,
    /// Mark them checked (verification mode); unchecked when absent.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub reviewed: Option<bool>,
}

/// Some videos of a task, or all of them: what `PATCH
/// organization/task/mark_propagations_as_reviewed` marks reviewed (propagated labels,
/// then trained on; also the labeler area's `labeler/task/mark_propagations_as_reviewed`
/// for a task requested of the labeler) and `PATCH organization/task/delete_annotations`
/// deletes the labels of.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct TaskVideos {
    pub task: i64,
    /// The videos; absent: all of the task's (with labels to review, or to delete).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub videos: Option<Vec<i64>>,
}

/// Most videos one call names.
pub const MAX_TASK_VIDEOS: usize = 1000;

/// Whether a task's labels are enough to train on
/// (`GET organization/task/annotations_check/{id}`): what training would use and what
/// stands in its way.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AnnotationsCheck {
    pub task: i64,
    /// The operation's step names, by index.
    pub steps: Vec<String>,
    /// Ready videos of the task.
    pub ready_videos: i64,
    /// Videos training would use: labelled by a person (or propagated and reviewed),
    /// with at least one segment.
    pub labelled_videos: i64,
    /// Videos whose propagated labels wait for review (not trained on until then).
    pub to_review: i64,
    /// Labelled time of each step (ms, by index) in the videos training would use.
    pub step_ms: Vec<i64>,
    /// What stands in the way of a good model, in words; empty when nothing does.
    pub problems: Vec<String>,
    /// Training can start: some video is labelled.
    pub can_train: bool,
}

/// Checks `segments` for a video of `duration_ms` of an operation of `steps` steps;
/// answers them in time order, or the message of the first problem.
pub fn check_segments(
    mut segments: Vec<Segment>,
    steps: usize,
    duration_ms: i64,
) -> Result<Vec<Segment>, String> {
    if segments.len() > MAX_SEGMENTS {
        return Err(format!("A video may have at most {MAX_SEGMENTS} segments."));
    }
    for s in &segments {
        if s.step as usize >= steps {
            return Err(format!(
                "Step {} is not one of the operation's {steps} steps (0 to {}).",
                s.step,
                steps.saturating_sub(1)
            ));
        }
        if s.start_ms < 0 || s.end_ms <= s.start_ms {
            return Err(format!(
                "The segment {}–{} ms of step {} must start at 0 or later and end after it starts.",
                s.start_ms, s.end_ms, s.step
            ));
        }
        if s.end_ms > duration_ms {
            return Err(format!(
                "The segment {}–{} ms of step {} falls outside the video ({duration_ms} ms long).",
                s.start_ms, s.end_ms, s.step
            ));
        }
    }
    segments.sort_by_key(|s| (s.start_ms, s.end_ms));
    for w in segments.windows(2) {
        if w[1].start_ms < w[0].end_ms {
            return Err(format!(
                "The segments {}–{} ms (step {}) and {}–{} ms (step {}) overlap.",
                w[0].start_ms, w[0].end_ms, w[0].step, w[1].start_ms, w[1].end_ms, w[1].step
            ));
        }
    }
    Ok(segments)
}

/// Longest tag name and comment.
pub const MAX_TAG_NAME: usize = crate::validate::MAX_TAG_CHARS;
pub const MAX_COMMENT: usize = crate::validate::MAX_COMMENT_CHARS;

/// One of the organisation's tags (spec section 3 "Organisation tag").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OrgTag {
    pub id: i64,
    pub tag_name: String,
}

/// `GET organization/task/task_tags/{id}`: a tag of the organisation in use on the task's
/// videos, and on how many of them.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TaskTag {
    pub id: i64,
    pub tag_name: String,
    pub videos: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OrgTagCreate {
    #[cfg_attr(feature = "openapi", schema(max_length = 50))]
    pub tag_name: String,
}

/// A change to a video (`PATCH organization/task_record/{id}/`): its name, its type,
/// its tags (the organisation's tag ids; they replace the old ones). `no_of_comments`
/// is kept by the comment calls.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct VideoPatch {
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    #[cfg_attr(feature = "openapi", schema(max_length = 255))]
    pub file_name: Option<String>,
    #[serde(default, rename = "isUploadedVideo")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub is_uploaded_video: Option<bool>,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub tags: Option<Vec<i64>>,
}

/// A comment on a video (spec section 3 "Comment"; `entity_id` is the video).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Comment {
    pub id: i64,
    pub entity_id: i64,
    pub text: String,
    pub user: Option<i64>,
    pub user_name: String,
    pub created_at: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CommentCreate {
    pub entity_id: i64,
    #[cfg_attr(feature = "openapi", schema(max_length = 2000))]
    pub text: String,
}

/// One of the organisation's tags at a moment of a video (a time-stamp tag).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TimeTag {
    pub id: i64,
    /// The video.
    pub task_record: i64,
    pub tag: i64,
    pub tag_name: String,
    pub time_ms: i64,
    pub created_by: Option<i64>,
    pub created_at: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TimeTagCreate {
    pub task_record: i64,
    pub tag: i64,
    pub time_ms: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_sorted_and_checked() {
        let ok = check_segments(
            vec![Segment::new(1, 500, 900), Segment::new(0, 0, 500)],
            2,
            1000,
        )
        .unwrap();
        assert_eq!(ok, vec![Segment::new(0, 0, 500), Segment::new(1, 500, 900)]);
        assert!(check_segments(vec![], 2, 1000).unwrap().is_empty());
        let bad = |s: Vec<Segment>| check_segments(s, 2, 1000).unwrap_err();
        assert!(bad(vec![Segment::new(2, 0, 10)]).starts_with("Step 2 is not one of"));
        assert!(bad(vec![Segment::new(0, 10, 10)]).contains("end after it starts"));
        assert!(bad(vec![Segment::new(0, -5, 10)]).contains("start at 0 or later"));
        assert!(
            bad(vec![Segment::new(0, 900, 1001)])
                .contains("falls outside the video (1000 ms long)")
        );
        assert!(bad(vec![Segment::new(0, 0, 500), Segment::new(1, 499, 600)]).contains("overlap"));
        assert!(bad(vec![Segment::new(0, 0, 1); MAX_SEGMENTS + 1]).contains("at most"));
    }
}
