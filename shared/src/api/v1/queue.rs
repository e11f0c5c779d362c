//! `POST generic/send_message_to_sqs/`: a message onto the cloud's own job queue (spec
//! section 7; section 9 names the queues and the two actions a job's status goes
//! through, `started` and `finished`), and `GET generic/queue_message/{id}/`, ours, to
//! read how it went (docs/decisions.md "send_message_to_sqs").
//!
//! Each queue takes its own fields of the body and refuses the others':
//! - `trim_video`: `video_id`, `start_ms`, `end_ms` (a span of a task video, cut into
//!   a new video of the task);
//! - `update_task`: `task_id`, `changes` (what `PATCH organization/task/{id}/` takes);
//! - `cloning_task`: `task_id`, `task_name`, optionally `organization` (the copy goes
//!   there, as `PATCH generic/clone_task/`; else into the task's own, as `POST`);
//! - `sample_images_for_detector`: `task_id`, optionally `frames_per_video` (that many
//!   evenly spaced frames of each ready video of the task become its annotation
//!   images; [`DEFAULT_FRAMES_PER_VIDEO`] when not given).

use serde::{Deserialize, Serialize};

use super::task::TaskPatch;

/// The spec's queue names.
pub const QUEUES: [&str; 4] = [
    "update_task",
    "sample_images_for_detector",
    "cloning_task",
    "trim_video",
];

/// Frames taken of each video by `sample_images_for_detector` when not said.
pub const DEFAULT_FRAMES_PER_VIDEO: i64 = 5;
/// The most frames of each video one `sample_images_for_detector` takes.
pub const MAX_FRAMES_PER_VIDEO: i64 = 50;

/// A message waiting for a worker.
pub const QUEUED: &str = "queued";
/// The spec's two actions: a worker took it, and it ended well.
pub const STARTED: &str = "started";
pub const FINISHED: &str = "finished";
/// It ended with an error (`message` says which).
pub const FAILED: &str = "failed";

/// The call's body: `queue` and that queue's fields (see the module header).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(deny_unknown_fields)]
pub struct QueueMessageCreate {
    /// One of [`QUEUES`].
    pub queue: String,
    /// `trim_video`: the task video (task record) to cut.
    #[serde(default)]
    pub video_id: Option<i64>,
    /// `trim_video`: where the trimmed video starts, in milliseconds of the source.
    #[serde(default)]
    pub start_ms: Option<i64>,
    /// `trim_video`: where it ends (exclusive), in milliseconds of the source.
    #[serde(default)]
    pub end_ms: Option<i64>,
    /// `update_task`, `cloning_task`, `sample_images_for_detector`: the task.
    #[serde(default)]
    pub task_id: Option<i64>,
    /// `cloning_task`: the copy's name.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub task_name: Option<String>,
    /// `cloning_task`: the organisation the copy goes into (the task's own when not
    /// given).
    #[serde(default)]
    pub organization: Option<i64>,
    /// `update_task`: the changes, as `PATCH organization/task/{id}/` takes them.
    #[serde(default)]
    pub changes: Option<TaskPatch>,
    /// `sample_images_for_detector`: frames taken of each video, 1 to
    /// [`MAX_FRAMES_PER_VIDEO`].
    #[serde(default)]
    pub frames_per_video: Option<i64>,
}

/// A message and how its job went.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    pub task_id: Option<i64>,
    pub task_name: Option<String>,
    pub organization: Option<i64>,
    pub changes: Option<TaskPatch>,
    pub frames_per_video: Option<i64>,
    /// What the job made: for `trim_video`, the new video of the task.
    pub result_video_id: Option<i64>,
    /// For `cloning_task`, the copy; for `update_task`, the task changed.
    pub result_task_id: Option<i64>,
    /// For `sample_images_for_detector`, the task's images of the frames taken (a
    /// frame taken before answers its image).
    pub result_image_ids: Vec<i64>,
    /// Why it failed; empty otherwise.
    pub message: String,
    pub created_at: i64,
    pub updated_at: i64,
}

/// The fields of the body each queue takes (besides `queue`).
fn fields_of(queue: &str) -> &'static [&'static str] {
    match queue {
        "trim_video" => &["video_id", "start_ms", "end_ms"],
        "update_task" => &["task_id", "changes"],
        "cloning_task" => &["task_id", "task_name", "organization"],
        _ => &["task_id", "frames_per_video"],
    }
}

/// The body's fields that are given, by name.
fn given(m: &QueueMessageCreate) -> [(&'static str, bool); 8] {
    [
        ("video_id", m.video_id.is_some()),
        ("start_ms", m.start_ms.is_some()),
        ("end_ms", m.end_ms.is_some()),
        ("task_id", m.task_id.is_some()),
        ("task_name", m.task_name.is_some()),
        ("organization", m.organization.is_some()),
        ("changes", m.changes.is_some()),
        ("frames_per_video", m.frames_per_video.is_some()),
    ]
}

const REQUIRED: &str = "This field is required.";

/// Checks a message's body; the error is `(field, message)`. What needs the database
/// (the video, the task, the caller's rights, the task's changes) the cloud checks.
pub fn check(m: &QueueMessageCreate) -> Result<(), (&'static str, String)> {
    let q = m.queue.as_str();
    if !QUEUES.contains(&q) {
        return Err((
            "queue",
            format!("Unknown queue: use one of {}.", QUEUES.join(", ")),
        ));
    }
    let own = fields_of(q);
    if let Some((f, _)) = given(m)
        .into_iter()
        .find(|(f, set)| *set && !own.contains(f))
    {
        return Err((f, format!("The queue {q} does not take {f}.")));
    }
    if q == "trim_video" {
        return check_trim(m);
    }
    match m.task_id {
        None => return Err(("task_id", REQUIRED.into())),
        Some(t) if t <= 0 => return Err(("task_id", "A task id is a positive number.".into())),
        Some(_) => {}
    }
    match q {
        "update_task" if m.changes.is_none() => Err(("changes", REQUIRED.into())),
        "cloning_task" => match (&m.task_name, m.organization) {
            (None, _) => Err(("task_name", REQUIRED.into())),
            (_, Some(o)) if o <= 0 => Err((
                "organization",
                "An organisation id is a positive number.".into(),
            )),
            _ => Ok(()),
        },
        "sample_images_for_detector" => match m.frames_per_video {
            Some(n) if !(1..=MAX_FRAMES_PER_VIDEO).contains(&n) => Err((
                "frames_per_video",
                format!("Take 1 to {MAX_FRAMES_PER_VIDEO} frames of each video."),
            )),
            _ => Ok(()),
        },
        _ => Ok(()),
    }
}

fn check_trim(m: &QueueMessageCreate) -> Result<(), (&'static str, String)> {
    let Some(video) = m.video_id else {
        return Err(("video_id", REQUIRED.into()));
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
        return Err((f, REQUIRED.into()));
    };
    if start < 0 {
        return Err(("start_ms", "The start cannot be negative.".into()));
    }
    if end <= start {
        return Err(("end_ms", "The end must come after the start.".into()));
    }
    Ok(())
}

/// The times of `n` frames evenly spaced over a video `duration_ms` long: the middles
/// of `n` equal parts (never its very first or last frame, often black or blurred);
/// fewer when the video has fewer milliseconds than that.
pub fn sample_times(duration_ms: i64, n: i64) -> Vec<i64> {
    if duration_ms <= 0 || n <= 0 {
        return vec![];
    }
    let mut out: Vec<i64> = (0..n)
        .map(|i| ((2 * i + 1) as i128 * duration_ms as i128 / (2 * n) as i128) as i64)
        .collect();
    out.dedup();
    out
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
            ..QueueMessageCreate::default()
        }
    }

    fn of_task(queue: &str) -> QueueMessageCreate {
        QueueMessageCreate {
            queue: queue.into(),
            task_id: Some(4),
            ..QueueMessageCreate::default()
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
    fn each_queue_takes_its_own_fields_and_refuses_the_others() {
        let m = QueueMessageCreate {
            queue: "update_task".into(),
            ..trim(Some(0), Some(1))
        };
        assert_eq!(
            check(&m).unwrap_err(),
            (
                "video_id",
                "The queue update_task does not take video_id.".into()
            )
        );
        let m = QueueMessageCreate {
            frames_per_video: Some(3),
            ..trim(Some(0), Some(1))
        };
        assert_eq!(check(&m).unwrap_err().0, "frames_per_video");
        let m = QueueMessageCreate {
            task_name: Some("Copy".into()),
            ..of_task("sample_images_for_detector")
        };
        assert_eq!(check(&m).unwrap_err().0, "task_name");
    }

    #[test]
    fn task_queues_need_their_task_and_fields() {
        for q in ["update_task", "cloning_task", "sample_images_for_detector"] {
            let none = QueueMessageCreate {
                task_id: None,
                ..of_task(q)
            };
            assert_eq!(check(&none).unwrap_err(), ("task_id", REQUIRED.into()));
            let neg = QueueMessageCreate {
                task_id: Some(0),
                ..of_task(q)
            };
            assert_eq!(check(&neg).unwrap_err().0, "task_id");
        }
        assert_eq!(check(&of_task("update_task")).unwrap_err().0, "changes");
        let update = QueueMessageCreate {
            changes: Some(TaskPatch::default()),
            ..of_task("update_task")
        };
        assert_eq!(check(&update), Ok(()));
        assert_eq!(check(&of_task("cloning_task")).unwrap_err().0, "task_name");
        let clone = QueueMessageCreate {
            task_name: Some("Copy".into()),
            organization: Some(-1),
            ..of_task("cloning_task")
        };
        assert_eq!(check(&clone).unwrap_err().0, "organization");
        assert_eq!(check(&of_task("sample_images_for_detector")), Ok(()));
        for (n, ok) in [(0, false), (1, true), (50, true), (51, false)] {
            let m = QueueMessageCreate {
                frames_per_video: Some(n),
                ..of_task("sample_images_for_detector")
            };
            assert_eq!(check(&m).is_ok(), ok, "{n}");
        }
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

    #[test]
    fn sampled_frames_are_the_middles_of_equal_parts() {
        assert_eq!(sample_times(3000, 3), [500, 1500, 2500]);
        assert_eq!(sample_times(1000, 1), [500]);
        assert_eq!(sample_times(0, 5), Vec::<i64>::new());
        // A video shorter than the frames asked: each millisecond once.
        assert_eq!(sample_times(2, 5), [0, 1]);
        assert!(sample_times(i64::MAX, 50).iter().all(|&t| t < i64::MAX));
    }
}
