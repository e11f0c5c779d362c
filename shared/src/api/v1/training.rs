//! Training a task's step model (spec section 2 `train`, section 4 training-task status,
//! section 7 `organization/trained_task/{id}` and `organization/train/stop/`) and the
//! model versions training makes (section 3 "Model version").
//!
//! `PATCH organization/trained_task/{id}` with `{"train_status": "training"}` queues a
//! training run of the task's labelled videos; `GET` on the same path answers the task's
//! training: its status, the latest run with its progress, and the model version it
//! made with its held-out metrics.

use serde::{Deserialize, Serialize};

use super::task::TrainStatus;

/// Where a training run is.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Waiting for a worker.
    Queued,
    Running,
    Succeeded,
    Failed,
    /// Stopped by a user (`PUT organization/train/stop/`).
    Stopped,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Queued => "queued",
            RunStatus::Running => "running",
            RunStatus::Succeeded => "succeeded",
            RunStatus::Failed => "failed",
            RunStatus::Stopped => "stopped",
        }
    }

    pub fn parse(s: &str) -> Option<RunStatus> {
        [
            RunStatus::Queued,
            RunStatus::Running,
            RunStatus::Succeeded,
            RunStatus::Failed,
            RunStatus::Stopped,
        ]
        .into_iter()
        .find(|r| r.as_str() == s)
    }

    /// Still to finish.
    pub fn is_active(self) -> bool {
        matches!(self, RunStatus::Queued | RunStatus::Running)
    }
}

/// One training of a task.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TrainingRun {
    pub id: i64,
    pub task: i64,
    pub status: RunStatus,
    /// 0–1, over the whole run (fetching and decoding video, the epochs, evaluating).
    pub progress: f64,
    /// What it is doing now, or why it failed.
    pub message: String,
    /// Labelled videos trained on and held out.
    pub train_videos: Vec<i64>,
    pub holdout_videos: Vec<i64>,
    /// The user who started it.
    pub started_by: Option<i64>,
    pub created_at: i64,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
    /// The model version it made (once succeeded).
    pub model_version: Option<i64>,
}

/// How well a model does on held-out footage.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Metrics {
    /// The model's labels: the steps in order, then `background`.
    pub labels: Vec<String>,
    pub frames: u64,
    /// Share of frames whose most likely label is the true one.
    pub frame_accuracy: f64,
    /// Per label (as `labels`): precision, recall and F1 of the frames.
    pub per_label: Vec<LabelScore>,
    /// `confusion[true][predicted]` frame counts, indexed as `labels`.
    pub confusion: Vec<Vec<u64>>,
    /// Cycles the cycle engine finds in the true labels, in the model's output, and
    /// true cycles with a found cycle overlapping them.
    pub true_cycles: usize,
    pub found_cycles: usize,
    pub matched_cycles: usize,
    /// Mean |found − true| cycle time over matched cycles, in seconds and as a share of
    /// the true cycle time.
    pub cycle_time_error_s: f64,
    pub cycle_time_error_share: f64,
    /// Matched cycles judged good/bad as the reference judges them.
    pub verdict_agreement: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LabelScore {
    pub label: String,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    /// True frames of this label.
    pub support: u64,
}

/// A trained model (spec section 3 "Model version").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ModelVersion {
    pub id: i64,
    /// The version name the agent reports (`{task}-{n}`).
    pub version: String,
    pub task: Option<i64>,
    pub model_type: Option<i64>,
    pub is_deleted: bool,
    /// SHA-256 (hex) and size of the bundle (`model.onnx`) the agent downloads.
    pub sha256: String,
    pub size_bytes: i64,
    /// On the held-out footage; `None` for a model made elsewhere.
    pub metrics: Option<Metrics>,
    /// The training run that made it.
    pub training_run: Option<i64>,
    pub created_at: i64,
}

/// `GET organization/trained_task/{id}`: a task's training.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TrainedTask {
    pub id: i64,
    #[serde(rename = "taskName")]
    pub task_name: String,
    pub train_status: TrainStatus,
    /// Labelled videos (with at least one segment) and ready videos of the task.
    pub labelled_videos: i64,
    pub ready_videos: i64,
    /// The latest run, if any.
    pub run: Option<TrainingRun>,
    /// The model version the latest successful run made.
    pub model_version: Option<ModelVersion>,
}

/// `PATCH organization/trained_task/{id}`: `{"train_status": "training"}` starts
/// training; other values are refused (the status moves by itself from there).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TrainedTaskPatch {
    #[cfg_attr(feature = "openapi", schema(max_length = 64))]
    pub train_status: String,
    /// Passes over the training frames (default [`DEFAULT_EPOCHS`]).
    #[serde(default)]
    pub epochs: Option<u32>,
}

/// Training's default number of epochs.
pub const DEFAULT_EPOCHS: u32 = 12;
/// The most epochs a run may ask for.
pub const MAX_EPOCHS: u32 = 200;

/// `PATCH organization/model_version/{id}`: the soft delete (spec section 9: toggled
/// optimistically by the portal).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct ModelVersionPatch {
    pub is_deleted: bool,
}

/// `POST organization/model_version/{id}/deploy/`: send the model version to these
/// devices (all of the organisation's and online, or none is sent).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct DeployRequest {
    pub devices: Vec<i64>,
}

/// How a deployment to one device goes.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum DeploymentStatus {
    /// Sent; the device downloads, checks and swaps it in.
    Installing,
    /// The device installed it (and runs it on the cameras running the task).
    Installed,
    /// The device could not: `message` says why.
    Failed,
}

/// A model version sent to one device (`GET organization/deployments/`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Deployment {
    pub id: i64,
    pub model_version: i64,
    pub version: String,
    pub task: i64,
    pub device: i64,
    pub device_name: String,
    pub status: DeploymentStatus,
    /// The device's answer.
    pub message: String,
    pub created_at: i64,
    pub finished_at: Option<i64>,
    /// The model versions the device's cameras run now, from its last status.
    pub running_versions: Vec<String>,
}

/// Most devices one deploy call sends to.
pub const MAX_DEPLOY_DEVICES: usize = 100;

// ----- model types and model files (spec section 3 "Model type") -------------------------

/// A kind of step model (spec section 3 "Model type"): a recipe the trainer follows
/// (the frame size the model sees and its hidden width) and the model files made to it.
/// The catalogue is the platform's, kept by the super admin; every organisation reads it,
/// and a task chooses its type by `model_choice` (the type's id).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ModelType {
    pub id: i64,
    pub name: String,
    pub description: String,
    /// The frame the model takes (RGB), in pixels.
    pub input_width: u32,
    pub input_height: u32,
    /// Units of the model's hidden layer.
    pub hidden: u32,
    pub model_files: Vec<ModelFile>,
    pub created_at: i64,
}

/// A model bundle (`model.onnx`) made to a model type's recipe, outside the product or
/// by hand; registered as a task's model version with `POST organization/model_version`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ModelFile {
    pub id: i64,
    pub model_type: i64,
    /// The file name it was uploaded with.
    pub name: String,
    /// From the model's metadata: its version name and labels (the steps in order, then
    /// background).
    pub version: String,
    pub labels: Vec<String>,
    pub sha256: String,
    pub size_bytes: i64,
    pub created_at: i64,
}

/// `POST organization/model_types`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct ModelTypeCreate {
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub name: String,
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(max_length = 1000))]
    pub description: String,
    pub input_width: u32,
    pub input_height: u32,
    pub hidden: u32,
}

/// `PATCH organization/model_type/{id}`: its name and description. The recipe of a
/// type with files or model versions is fixed (they were made to it); a type without
/// either may change it too.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct ModelTypePatch {
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub name: Option<String>,
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(max_length = 1000))]
    pub description: Option<String>,
    #[serde(default)]
    pub input_width: Option<u32>,
    #[serde(default)]
    pub input_height: Option<u32>,
    #[serde(default)]
    pub hidden: Option<u32>,
}

/// `PATCH organization/model_files?ids=…`: move the files to another model type (of
/// the same frame size).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct ModelFilesPatch {
    pub model_type: i64,
}

/// `POST organization/model_version`: register a model file as a model version of a
/// task (its labels must be the task's steps, then background).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct ModelVersionCreate {
    pub task: i64,
    pub model_file: i64,
}

/// The frame sizes and hidden widths a model type may have.
pub const MODEL_INPUT_SIDE: std::ops::RangeInclusive<u32> = 16..=640;
pub const MODEL_HIDDEN: std::ops::RangeInclusive<u32> = 4..=1024;
/// The largest model file an upload may carry.
pub const MAX_MODEL_FILE_BYTES: usize = 64 * 1024 * 1024;
