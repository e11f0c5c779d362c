//! `POST generic/send_message_to_sqs/`: a message onto the cloud's own job queue (spec
//! section 7; section 9 names the queues and the two actions a job's status goes
//! through, `started` and `finished`), and `GET generic/queue_message/{id}/`, ours, to
//! read how it went (docs/decisions.md "send_message_to_sqs").

use serde::{Deserialize, Serialize};

/// The spec's queue names.
pub const QUEUES: [&str; 4] = [
    "update_task",
    "sample_images_for_detector",
    "cloning_task",
    "trim_video",
];
/// The queues this cloud runs so far.
pub const BUILT_QUEUES: [&str; 1] = ["trim_video"];

/// A message waiting for a worker.
pub const QUEUED: &str = "queued";
/// The spec's two actions: a worker took it, and it ended well.
pub const STARTED: &str = "started";
pub const FINISHED: &str = "finished";
/// It ended with an error (`message` says which).
pub const FAILED: &str = "failed";

/// The call's body. `trim_video` needs `video_id`, `start_ms` and `end_ms`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct QueueMessageCreate {
    /// One of [`QUEUES`].
    pub queue: String,
    /// The task video (task record) to work on.
    #[serde(default)]
    pub video_id: Option<i64>,
    /// Where the trimmed video starts, in milliseconds of the source.
    #[serde(default)]
    pub start_ms: Option<i64>,
    /// Where it ends (exclusive), in milliseconds of the source.
    #[serde(default)]
    pub end_ms: Option<i64>,
}

/// A message and how its job went.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct QueueMessage {
    pub id: i64,
    pub queue: String,
    /// `queued`, `started`, `finished` or `failed`.
    pub status: String,
    pub video_id: Option<i64>,
    pub start_ms: Option<i64>,
    pub end_ms: Option<i64>,
    /// What the job made: for `trim_video`, the new video of the task.
    pub result_video_id: Option<i64>,
    /// Why it failed; empty otherwise.
    pub message: String,
    pub created_at: i64,
    pub updated_at: i64,
}

/// Checks a message's body; the error is `(field, message)`.
pub fn check(m: &QueueMessageCreate) -> Result<(), (&'static str, String)> {
    if !QUEUES.contains(&m.queue.as_str()) {
        return Err((
            "queue",
            format!("Unknown queue: use one of {}.", QUEUES.join(", ")),
        ));
    }
    if !BUILT_QUEUES.contains(&m.queue.as_str()) {
        return Err((
            "queue",
            format!(
                "The queue {} is not supported yet: use one of {}.",
                m.queue,
                BUILT_QUEUES.join(", ")
            ),
        ));
    }
    let Some(video) = m.video_id else {
        return Err(("video_id", "This field is required.".into()));
    };
    if video <= 0 {
        return Err(("video_id", "A video id is a positive number.".into()));
    }
    let (Some(start), Some(end)) = (m.start_ms, m.end_ms) else {
        let f = if m.start_ms.is_none() {
            "start_ms"
        } else {
            "end_ms"
        };
        return Err((f, "This field is required.".into()));
    };
    if start < 0 {
        return Err(("start_ms", "The start cannot be negative.".into()));
    }
    if end <= start {
        return Err(("end_ms", "The end must come after the start.".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trim(start: Option<i64>, end: Option<i64>) -> QueueMessageCreate {
        QueueMessageCreate {
            queue: "trim_video".into(),
            video_id: Some(3),
            start_ms: start,
            end_ms: end,
        }
    }

    #[test]
    fn a_whole_trim_passes() {
        assert_eq!(check(&trim(Some(0), Some(1000))), Ok(()));
    }

    #[test]
    fn unknown_queues_name_the_allowed_ones() {
        let m = QueueMessageCreate {
            queue: "nope".into(),
            ..trim(Some(0), Some(1))
        };
        let (f, msg) = check(&m).unwrap_err();
        assert_eq!(f, "queue");
        assert!(msg.contains("update_task, sample_images_for_detector, cloning_task, trim_video"));
    }

    #[test]
    fn queues_not_built_say_so() {
        let m = QueueMessageCreate {
            queue: "update_task".into(),
            ..trim(Some(0), Some(1))
        };
        assert!(check(&m).unwrap_err().1.contains("not supported yet"));
    }

    #[test]
    fn spans_must_be_whole_and_forward() {
        assert_eq!(check(&trim(None, Some(1))).unwrap_err().0, "start_ms");
        assert_eq!(check(&trim(Some(1), None)).unwrap_err().0, "end_ms");
        assert_eq!(check(&trim(Some(-1), Some(1))).unwrap_err().0, "start_ms");
        assert_eq!(check(&trim(Some(5), Some(5))).unwrap_err().0, "end_ms");
        let no_video = QueueMessageCreate {
            video_id: None,
            ..trim(Some(0), Some(1))
        };
        assert_eq!(check(&no_video).unwrap_err().0, "video_id");
    }
}
