//! The task calls' bodies and answers (create, patch, clone, stop training, history,
//! revert, last update, model choices) and the messages they answer with.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::steps_by_process::{self, StepsByProcess};
use super::{JsonObject, Task, TaskParameters, TaskSettings};
use crate::operation::Process;

/// `POST organization/task/`: a name and the operation, as text or as processes; the
/// other settings take their defaults unless given.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct TaskCreate {
    /// The task name; the text's first line when absent.
    #[serde(rename = "taskName")]
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub task_name: Option<String>,
    /// The operation in the task-detail text format.
    #[cfg_attr(feature = "openapi", schema(max_length = 50000))]
    pub task_detail: Option<String>,
    /// The operation's processes, when no text is given.
    pub processes: Option<Vec<Process>>,
    #[serde(rename = "taskParameters")]
    pub task_parameters: Option<TaskParameters>,
}

/// `PATCH organization/task/{id}/`: the fields to change. `processes` replaces the
/// operation like `task_detail` does; the top-level telemetry fields change the same
/// fields of `taskParameters.telemetryParams`; `starred` is the caller's own mark and no
/// change to the task.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(deny_unknown_fields)]
pub struct TaskPatch {
    #[serde(rename = "taskName")]
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub task_name: Option<String>,
    #[cfg_attr(feature = "openapi", schema(max_length = 50000))]
    pub task_detail: Option<String>,
    pub processes: Option<Vec<Process>>,
    pub is_deleted: Option<bool>,
    pub starred: Option<bool>,
    #[serde(rename = "negativeSteps")]
    pub negative_steps: Option<Vec<u32>>,
    pub optional_steps: Option<Vec<u32>>,
    #[serde(rename = "similarSteps")]
    pub similar_steps: Option<Vec<Vec<u32>>>,
    #[serde(rename = "stepsAvgTime")]
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>", optional = nullable))]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub steps_avg_time: Option<JsonObject>,
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>", optional = nullable))]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub sub_step_times: Option<JsonObject>,
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub model_choice: Option<String>,
    pub model_version: Option<i64>,
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub model_type: Option<String>,
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>", optional = nullable))]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub steps_data_json: Option<JsonObject>,
    pub annotation_image_id: Option<i64>,
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>", optional = nullable))]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub advance_features_json: Option<JsonObject>,
    pub translation: Option<BTreeMap<String, String>>,
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub translation_name: Option<String>,
    #[serde(rename = "taskParameters")]
    pub task_parameters: Option<TaskParameters>,
    pub maximum_cycle_time: Option<i64>,
    pub add_background_time_to_step_time: Option<bool>,
    pub object_rotation: Option<bool>,
    pub strict_step_order: Option<bool>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<std::collections::HashMap<String, Vec<u32>>>))]
    #[serde(default, deserialize_with = "steps_by_process::deserialize_option")]
    pub required_steps_for_start: Option<StepsByProcess>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<std::collections::HashMap<String, Vec<u32>>>))]
    #[serde(default, deserialize_with = "steps_by_process::deserialize_option")]
    pub required_steps_for_end: Option<StepsByProcess>,
}

/// `POST organization/task/extract_task_from_doc/`: the draft operation read from a
/// standard operating procedure (.docx, .pdf or text, the request's body). Nothing is
/// saved: the portal opens it in the editor, where the user checks and saves it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TaskFromDocument {
    /// The document's title, else its file name.
    #[serde(rename = "taskName")]
    pub task_name: String,
    /// The draft in the task-detail text format.
    pub task_detail: String,
    pub processes: Vec<Process>,
    /// What the file was read as: `docx`, `pdf` or `text`.
    pub source: String,
    /// What the user should look at before saving (steps without sub-steps, names cut,
    /// sections merged).
    pub notes: Vec<String>,
}

/// `POST generic/clone_task/`: a copy of `task` named `taskName`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CloneTask {
    pub task: i64,
    #[serde(rename = "taskName")]
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub task_name: String,
}

/// `PATCH generic/clone_task/`: a copy of `task` named `taskName` in another
/// organisation the user may act in (docs/decisions.md "Clone").
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CloneTaskInto {
    pub task: i64,
    #[serde(rename = "taskName")]
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub task_name: String,
    /// The organisation the copy is made in.
    pub organization: i64,
}

/// The answer for an organisation the user may not copy into (or none).
pub const NOT_YOUR_ORGANIZATION: &str = "You cannot add tasks to this organization.";

/// `PUT organization/train/stop/`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StopTraining {
    pub task: i64,
}

/// One change of a task (`task/{id}/history/`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TaskHistoryEntry {
    /// The history id.
    pub id: i64,
    pub task: i64,
    /// `created`, `updated`, `deleted`, `restored`, `reverted` or `cloned`.
    pub action: String,
    /// The settings fields the change set (their API names).
    pub changed_fields: Vec<String>,
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub user: Option<i64>,
    pub user_name: String,
    /// Unix milliseconds.
    pub created_at: i64,
    /// The task's settings after the change: what reverting to this entry restores.
    pub snapshot: TaskSettings,
}

/// `PATCH task/{id}/revert/`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RevertTask {
    pub history_id: i64,
}

/// The revert answer: the fields it set, and the task after.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RevertResult {
    pub msg: String,
    pub reverted_fields: Vec<String>,
    pub reverted_fields_count: usize,
    pub task: Task,
}

/// `PATCH task/last_update/{id}`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LastUpdate {
    pub last_update: i64,
}

/// One of `task/model_choices`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ModelChoice {
    pub value: String,
    pub label: String,
}

/// The revert success message (spec section 8): the count and the first three fields.
pub fn revert_message(fields: &[String]) -> String {
    if fields.is_empty() {
        return REVERT_NO_CHANGE_MESSAGE.into();
    }
    let first: Vec<&str> = fields.iter().take(3).map(String::as_str).collect();
    let more = if fields.len() > 3 { "..." } else { "" };
    format!(
        "Task successfully reverted! {} field(s) updated: {}{more}",
        fields.len(),
        first.join(", ")
    )
}

pub const REVERT_NO_CHANGE_MESSAGE: &str =
    "Task reverted - no changes detected (task was already in the target state)";

/// '{task} is being trained, You cannot update the task when it is being trained.'
pub fn being_trained_message(task: &str) -> String {
    format!("{task} is being trained, You cannot update the task when it is being trained.")
}

/// '{task} is being performed, You cannot update the task when it is being performed.'
pub fn being_performed_message(task: &str) -> String {
    format!("{task} is being performed, You cannot update the task when it is being performed.")
}
