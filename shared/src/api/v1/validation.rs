//! Validation groups, videos and runs (spec section 7 "Organisations and validation"
//! and the `websocket_inference/validation_record…` calls of "Tasks"): a group of
//! labelled videos of one task, a run of a chosen model version over it through the
//! agent's own pipeline (`gemba-agent eval`), and the run's report per video and over
//! the group. The spec does not show their shapes; these are ours
//! (docs/decisions.md "Validation").

use serde::{Deserialize, Serialize};

use crate::api::v1::training::LabelScore;
use crate::cycle::Segment;

/// Longest group or video name.
pub const MAX_NAME_CHARS: usize = 100;
/// Most videos one group holds (a run evaluates each through the agent's pipeline).
pub const MAX_GROUP_VIDEOS: usize = 50;
/// Most videos or cycles one call adds.
pub const MAX_ADD: usize = 50;

pub const GROUP_UPDATED: &str = "Group updated successfully";
pub const GROUP_DELETED: &str = "Group deleted successfully";

/// A validation group: labelled videos of one task that model versions are judged on.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ValidationGroup {
    pub id: i64,
    pub name: String,
    pub task: i64,
    pub task_name: String,
    /// Its videos, and those of them whose labels a person has checked (a run
    /// evaluates those).
    pub videos: i64,
    pub checked_videos: i64,
    /// Its runs, newest first.
    pub runs: Vec<ValidationRunSummary>,
    pub created_at: i64,
}

/// `POST organization/validation-groups/`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ValidationGroupCreate {
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub name: String,
    pub task: i64,
}

/// A validation video (also called a validation record): footage with step labels that
/// a person checked, copied into the group from a task's labelled video or cut from a
/// cycle's clip (a trace).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ValidationVideo {
    pub id: i64,
    pub name: String,
    /// Its group (`null`: in none).
    pub group: Option<i64>,
    pub task: i64,
    /// The task video it was copied from, or the cycle whose clip it is.
    pub video: Option<i64>,
    pub cycle: Option<String>,
    pub duration_ms: i64,
    /// The step labels, in time order (frames outside them are background).
    pub segments: Vec<Segment>,
    /// A person has checked the labels (a record from a trace starts unchecked: its
    /// labels are what the station recognised).
    pub reviewed: bool,
    pub created_at: i64,
}

/// `PATCH organization/validation-videos/{id}/`: a new name, or another group.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ValidationVideoPatch {
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub name: Option<String>,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub group_id: Option<i64>,
}

/// `PUT organization/validation-videos/add-video-to-group/`: task videos with labels,
/// copied (footage and labels) into the group.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AddVideosToGroup {
    pub group_id: i64,
    pub videos: Vec<i64>,
}

/// `POST websocket_inference/validation_records_from_trace/`: cycles whose clips become
/// records of the group, labelled with the steps the station recognised.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RecordsFromTrace {
    pub group_id: i64,
    pub cycles: Vec<String>,
}

/// `POST websocket_inference/validation_record/{id}/`: the record's labels as a person
/// checked them.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RecordLabels {
    pub segments: Vec<Segment>,
}

/// `POST organization/validation-runs/`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ValidationRunCreate {
    pub group_id: i64,
    pub model_version: i64,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ValidationStatus {
    Queued,
    Running,
    Succeeded,
    Failed,
}

impl ValidationStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ValidationStatus::Queued => "queued",
            ValidationStatus::Running => "running",
            ValidationStatus::Succeeded => "succeeded",
            ValidationStatus::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<ValidationStatus> {
        Some(match s {
            "queued" => ValidationStatus::Queued,
            "running" => ValidationStatus::Running,
            "succeeded" => ValidationStatus::Succeeded,
            "failed" => ValidationStatus::Failed,
            _ => return None,
        })
    }
}

/// A run as its group lists it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ValidationRunSummary {
    pub id: i64,
    pub model_version: i64,
    pub model_version_name: String,
    pub status: ValidationStatus,
    pub created_at: i64,
}

/// A validation run: a model version over a group's checked videos.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ValidationRun {
    pub id: i64,
    pub group: i64,
    pub group_name: String,
    pub model_version: i64,
    pub model_version_name: String,
    pub status: ValidationStatus,
    /// Why it failed.
    pub error: Option<String>,
    /// Videos evaluated so far, of how many.
    pub done: i64,
    pub of: i64,
    /// Over all its videos, once it succeeded.
    pub report: Option<ValidationReport>,
    pub created_at: i64,
    pub finished_at: Option<i64>,
}

/// A run's figures over its videos: frames pooled (frame accuracy, and per step from
/// the summed confusion matrix), cycles pooled (cycle-time error and verdict agreement
/// over all matched cycles).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ValidationReport {
    pub videos: usize,
    pub frames: u64,
    pub frame_accuracy: f64,
    pub true_cycles: usize,
    pub found_cycles: usize,
    pub matched: usize,
    /// Absent when no cycle matched (nothing to measure).
    pub cycle_time_error_s: Option<f64>,
    pub cycle_time_error_share: Option<f64>,
    pub verdict_agreement: Option<f64>,
    /// Per label (the steps, then background): precision, recall, F1 of the frames.
    pub per_label: Vec<LabelScore>,
}

/// One video's evaluation, as `gemba-agent eval` prints it (the agent's
/// `eval::Report`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct VideoEval {
    pub model_version: String,
    pub frames: u64,
    pub frame_accuracy: f64,
    pub fps: f64,
    pub true_cycles: usize,
    pub found_cycles: usize,
    pub matched: usize,
    pub cycle_time_error_s: Option<f64>,
    pub cycle_time_error_share: Option<f64>,
    pub verdict_agreement: Option<f64>,
    pub per_label: Vec<LabelScore>,
    /// `confusion[true][predicted]` frame counts, indexed as `per_label`.
    pub confusion: Vec<Vec<u64>>,
}

/// One video of a run (`GET organization/validation-runs-videos/{id}/`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ValidationRunVideo {
    pub id: i64,
    /// The validation video (`null` once deleted).
    pub video: Option<i64>,
    pub name: String,
    /// Its evaluation, once done.
    pub report: Option<VideoEval>,
    /// Why it could not be evaluated.
    pub error: Option<String>,
}

/// The run's figures over `videos` (each evaluated with the same model, so the same
/// labels): frames and confusion matrices summed, cycle figures weighted by matched
/// cycles. `None` without a video.
pub fn aggregate(videos: &[VideoEval]) -> Option<ValidationReport> {
    let first = videos.first()?;
    let n = first.per_label.len();
    let mut confusion = vec![vec![0u64; n]; n];
    let (mut true_cycles, mut found_cycles, mut matched) = (0, 0, 0);
    let (mut err_s, mut err_share, mut agree) = (0.0, 0.0, 0.0);
    for v in videos {
        for (i, row) in v.confusion.iter().enumerate().take(n) {
            for (j, c) in row.iter().enumerate().take(n) {
                confusion[i][j] += c;
            }
        }
        true_cycles += v.true_cycles;
        found_cycles += v.found_cycles;
        matched += v.matched;
        let m = v.matched as f64;
        err_s += v.cycle_time_error_s.unwrap_or(0.0) * m;
        err_share += v.cycle_time_error_share.unwrap_or(0.0) * m;
        agree += v.verdict_agreement.unwrap_or(0.0) * m;
    }
    let frames: u64 = confusion.iter().flatten().sum();
    let right: u64 = (0..n).map(|i| confusion[i][i]).sum();
    let per_label = (0..n)
        .map(|i| {
            let tp = confusion[i][i] as f64;
            let support: u64 = confusion[i].iter().sum();
            let predicted: u64 = confusion.iter().map(|r| r[i]).sum();
            let precision = ratio(tp, predicted as f64);
            let recall = ratio(tp, support as f64);
            LabelScore {
                label: first.per_label[i].label.clone(),
                precision,
                recall,
                f1: ratio(2.0 * precision * recall, precision + recall),
                support,
            }
        })
        .collect();
    let over_matched = |x: f64| (matched > 0).then(|| x / matched as f64);
    Some(ValidationReport {
        videos: videos.len(),
        frames,
        frame_accuracy: ratio(right as f64, frames as f64),
        true_cycles,
        found_cycles,
        matched,
        cycle_time_error_s: over_matched(err_s),
        cycle_time_error_share: over_matched(err_share),
        verdict_agreement: over_matched(agree),
        per_label,
    })
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(confusion: Vec<Vec<u64>>, matched: usize, err: Option<f64>) -> VideoEval {
        let labels = ["A", "background"];
        VideoEval {
            model_version: "v".into(),
            frames: confusion.iter().flatten().sum(),
            frame_accuracy: 0.0,
            fps: 1.0,
            true_cycles: matched + 1,
            found_cycles: matched,
            matched,
            cycle_time_error_s: err,
            cycle_time_error_share: err.map(|e| e / 10.0),
            verdict_agreement: err.map(|_| 1.0),
            per_label: labels
                .iter()
                .map(|l| LabelScore {
                    label: (*l).into(),
                    ..LabelScore::default()
                })
                .collect(),
            confusion,
        }
    }

    #[test]
    fn a_run_pools_frames_and_weighs_cycles_by_matches() {
        let r = aggregate(&[
            eval(vec![vec![8, 2], vec![0, 10]], 1, Some(1.0)),
            eval(vec![vec![0, 0], vec![5, 5]], 3, Some(3.0)),
        ])
        .unwrap();
        assert_eq!((r.videos, r.frames), (2, 30));
        assert_eq!(r.frame_accuracy, 23.0 / 30.0);
        assert_eq!((r.true_cycles, r.found_cycles, r.matched), (6, 4, 4));
        assert_eq!(r.cycle_time_error_s, Some((1.0 + 9.0) / 4.0));
        assert_eq!(r.verdict_agreement, Some(1.0));
        // Step A: 8 right of 10 true, 8 of 13 said.
        assert_eq!(r.per_label[0].support, 10);
        assert_eq!(r.per_label[0].recall, 0.8);
        assert_eq!(r.per_label[0].precision, 8.0 / 13.0);
        assert_eq!(r.per_label[1].label, "background");
    }

    #[test]
    fn no_match_anywhere_reports_no_cycle_error_and_no_video_no_report() {
        let r = aggregate(&[eval(vec![vec![1, 0], vec![0, 1]], 0, None)]).unwrap();
        assert_eq!(r.cycle_time_error_s, None);
        assert_eq!(r.verdict_agreement, None);
        assert_eq!(r.frame_accuracy, 1.0);
        assert_eq!(aggregate(&[]), None);
    }
}
