//! Task (operation) calls (spec section 7 "Tasks") and the task's fields (section 3
//! "Task", "Telemetry parameters", "Training parameters").
//!
//! A task is stored as its [`TaskSettings`] (everything a user edits, and what its
//! history records and reverts) plus what the service keeps itself (id, organisation,
//! training status, creation time). [`Task`] is what the API answers: the settings,
//! those, and fields derived from the operation (step names, counts) and from the
//! parameters (the spec's top-level copies and `taskJson`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A JSON object of free-form values.
pub type JsonObject = Map<String, Value>;

use crate::operation::{self, Operation, Process};

/// Training status (spec section 4).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum TrainStatus {
    #[default]
    NewTask,
    InAnnotation,
    Training,
    Failed,
    Trained,
}

impl TrainStatus {
    pub const ALL: [TrainStatus; 5] = [
        TrainStatus::NewTask,
        TrainStatus::InAnnotation,
        TrainStatus::Training,
        TrainStatus::Failed,
        TrainStatus::Trained,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TrainStatus::NewTask => "new_task",
            TrainStatus::InAnnotation => "in_annotation",
            TrainStatus::Training => "training",
            TrainStatus::Failed => "failed",
            TrainStatus::Trained => "trained",
        }
    }

    pub fn parse(s: &str) -> Option<TrainStatus> {
        TrainStatus::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// The label the portal shows (spec section 4).
    pub fn label(self) -> &'static str {
        match self {
            TrainStatus::NewTask => "NEW TASK",
            TrainStatus::InAnnotation => "IN ANNOTATION",
            TrainStatus::Training => "TRAINING",
            TrainStatus::Failed => "FAILED",
            TrainStatus::Trained => "TRAINED",
        }
    }
}

/// The largest integer a JavaScript number holds exactly: the default maximum cycle
/// time (spec section 9), i.e. no limit.
pub const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;
pub const DEFAULT_MIN_SHARE_TO_END: f64 = 0.75;
pub const DEFAULT_VERIFY_THRESHOLD: u32 = 6;
pub const DEFAULT_BACKGROUND_TIME: u32 = 50;

/// Process index → step indexes (JSON object keys are the process indexes as text).
///
/// Every field of this type reads through [`steps_by_process`]: serde reads a
/// `#[serde(flatten)]`ed struct (the settings in [`Task`]) from a buffer that hands
/// JSON's object keys over as text and no longer turns them into `u32`
/// (serde-rs/serde#1183).
pub type StepsByProcess = BTreeMap<u32, Vec<u32>>;

/// Reads a [`StepsByProcess`] whose keys come as integers or as text (`"0"`), the
/// latter from a flattened struct's buffer; a key that is no whole number is refused.
/// Written as the derived `Serialize` writes it.
pub mod steps_by_process {
    use std::fmt;

    use serde::de::{self, Deserializer, MapAccess, Unexpected, Visitor};

    use super::StepsByProcess;

    const EXPECTED: &str = "a process index (a whole number from 0 to 4294967295)";

    /// A process index read from an integer or from its digits.
    struct Key(u32);

    impl<'de> de::Deserialize<'de> for Key {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
            struct KeyVisitor;
            impl Visitor<'_> for KeyVisitor {
                type Value = Key;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str(EXPECTED)
                }
                fn visit_u64<E: de::Error>(self, v: u64) -> Result<Key, E> {
                    u32::try_from(v)
                        .map(Key)
                        .map_err(|_| E::invalid_value(Unexpected::Unsigned(v), &self))
                }
                fn visit_i64<E: de::Error>(self, v: i64) -> Result<Key, E> {
                    u32::try_from(v)
                        .map(Key)
                        .map_err(|_| E::invalid_value(Unexpected::Signed(v), &self))
                }
                fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                    let digits = !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
                    digits
                        .then(|| v.parse().ok())
                        .flatten()
                        .map(Key)
                        .ok_or_else(|| E::invalid_value(Unexpected::Str(v), &self))
                }
            }
            d.deserialize_any(KeyVisitor)
        }
    }

    struct MapVisitor;

    impl<'de> Visitor<'de> for MapVisitor {
        type Value = StepsByProcess;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a map of process indexes to step indexes")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<StepsByProcess, A::Error> {
            let mut out = StepsByProcess::new();
            while let Some((Key(k), v)) = m.next_entry::<Key, Vec<u32>>()? {
                out.insert(k, v);
            }
            Ok(out)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<StepsByProcess, D::Error> {
        d.deserialize_map(MapVisitor)
    }

    /// [`deserialize`] for an `Option` field (`null` is `None`); the field also needs
    /// `#[serde(default)]` to stay optional.
    pub fn deserialize_option<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<StepsByProcess>, D::Error> {
        struct Wrap(StepsByProcess);
        impl<'de> de::Deserialize<'de> for Wrap {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Wrap, D::Error> {
                deserialize(d).map(Wrap)
            }
        }
        Ok(<Option<Wrap> as de::Deserialize>::deserialize(d)?.map(|w| w.0))
    }
}

/// Telemetry parameters (spec section 3); times in seconds.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, deny_unknown_fields)]
pub struct TelemetryParams {
    pub maximum_cycle_time: i64,
    pub minimum_cycle_time: i64,
    pub min_percentage_of_steps_required_to_end_cycle: f64,
    /// Default `{0: [0, 1]}`: the first or second step of process 0 starts a cycle.
    #[cfg_attr(feature = "openapi", schema(value_type = std::collections::HashMap<String, Vec<u32>>))]
    #[serde(deserialize_with = "steps_by_process::deserialize")]
    pub required_steps_for_start: StepsByProcess,
    /// Default `{0: []}`: seeing a start step again ends the cycle.
    #[cfg_attr(feature = "openapi", schema(value_type = std::collections::HashMap<String, Vec<u32>>))]
    #[serde(deserialize_with = "steps_by_process::deserialize")]
    pub required_steps_for_end: StepsByProcess,
    /// Frames in the smoothing window over per-frame labels (1: none).
    pub temporal_smoothness: u32,
    pub object_rotation: bool,
    pub strict_step_order: bool,
    pub add_background_time_to_step_time: bool,
}

impl Default for TelemetryParams {
    fn default() -> Self {
        TelemetryParams {
            maximum_cycle_time: MAX_SAFE_INTEGER,
            minimum_cycle_time: 0,
            min_percentage_of_steps_required_to_end_cycle: DEFAULT_MIN_SHARE_TO_END,
            required_steps_for_start: BTreeMap::from([(0, vec![0, 1])]),
            required_steps_for_end: BTreeMap::from([(0, vec![])]),
            temporal_smoothness: 1,
            object_rotation: false,
            strict_step_order: false,
            add_background_time_to_step_time: false,
        }
    }
}

/// Training parameters (spec section 3).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, deny_unknown_fields)]
pub struct TrainingParams {
    /// Consecutive frames before a step counts as seen.
    pub verify_threshold: u32,
    /// Background time for sub-steps, in frames (spec section 9: 50 when absent).
    pub background_time: u32,
}

impl Default for TrainingParams {
    fn default() -> Self {
        TrainingParams {
            verify_threshold: DEFAULT_VERIFY_THRESHOLD,
            background_time: DEFAULT_BACKGROUND_TIME,
        }
    }
}

/// `taskParameters`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, deny_unknown_fields)]
pub struct TaskParameters {
    #[serde(rename = "telemetryParams")]
    pub telemetry_params: TelemetryParams,
    #[serde(rename = "trainingParams")]
    pub training_params: TrainingParams,
}

/// Everything a user sets on a task: what `PATCH organization/task/{id}/` changes,
/// what a history entry records and what a revert restores.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default)]
pub struct TaskSettings {
    #[serde(rename = "taskName")]
    pub task_name: String,
    /// The operation in the task-detail text format, canonical (`operation::print`).
    pub task_detail: String,
    pub is_deleted: bool,
    /// Step indexes (across processes) whose sight makes a cycle bad.
    #[serde(rename = "negativeSteps")]
    pub negative_steps: Vec<u32>,
    pub optional_steps: Vec<u32>,
    /// Groups of step indexes that look alike.
    #[serde(rename = "similarSteps")]
    pub similar_steps: Vec<Vec<u32>>,
    /// Average cycle time and per-step averages, as training or analytics last measured.
    #[serde(rename = "stepsAvgTime")]
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>"))]
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub steps_avg_time: JsonObject,
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>"))]
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub sub_step_times: JsonObject,
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub model_choice: Option<String>,
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub model_version: Option<i64>,
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub model_type: Option<String>,
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>"))]
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub steps_data_json: JsonObject,
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub annotation_image_id: Option<i64>,
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>"))]
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub advance_features_json: JsonObject,
    /// The translated names: English step or sub-step name → its translation. A name
    /// without one shows in English.
    pub translation: BTreeMap<String, String>,
    /// The translation's language, e.g. "Deutsch"; none without a translation.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub translation_name: Option<String>,
    #[serde(rename = "taskParameters")]
    pub task_parameters: TaskParameters,
}

impl TaskSettings {
    /// A new task's settings: the spec's defaults.
    pub fn new(task_name: String, task_detail: String) -> TaskSettings {
        TaskSettings {
            task_name,
            task_detail,
            sub_step_times: Map::from_iter([(
                "background".to_string(),
                Value::from(DEFAULT_BACKGROUND_TIME),
            )]),
            ..TaskSettings::default()
        }
    }

    /// The operation of `task_detail` (empty when it does not read, which saving
    /// prevents).
    pub fn operation(&self) -> Operation {
        operation::parse(&self.task_detail).unwrap_or_default()
    }
}

/// The task's organisation as the task shows it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TaskOrganization {
    pub id: i64,
    pub org_name_to_display: String,
}

/// `taskJson`: the parameters as the device and the trainer read them.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TaskJson {
    pub training_params: TrainingParams,
    pub cycle_calculation_params: TelemetryParams,
}

/// A task as the API answers it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Task {
    pub id: i64,
    #[serde(flatten)]
    pub settings: TaskSettings,
    #[serde(rename = "Organization")]
    pub organization: TaskOrganization,
    /// Starred by the caller.
    pub starred: bool,
    pub train_status: TrainStatus,
    /// Unix milliseconds.
    pub created_at: i64,
    /// When a device last fetched the task's changes (`last_update/`), unix ms.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub last_update: Option<i64>,
    #[serde(rename = "stepsCount")]
    pub steps_count: usize,
    pub processes: Vec<Process>,
    /// Step names, indexed across processes (the indexes the parameters use).
    pub steps: Vec<String>,
    /// Each step's sub-step names.
    pub substeps: Vec<Vec<String>>,
    // The telemetry parameters the spec also lists on the task itself.
    pub maximum_cycle_time: i64,
    pub add_background_time_to_step_time: bool,
    pub object_rotation: bool,
    pub strict_step_order: bool,
    #[cfg_attr(feature = "openapi", schema(value_type = std::collections::HashMap<String, Vec<u32>>))]
    #[serde(deserialize_with = "steps_by_process::deserialize")]
    pub required_steps_for_start: StepsByProcess,
    #[cfg_attr(feature = "openapi", schema(value_type = std::collections::HashMap<String, Vec<u32>>))]
    #[serde(deserialize_with = "steps_by_process::deserialize")]
    pub required_steps_for_end: StepsByProcess,
    #[serde(rename = "taskJson")]
    pub task_json: TaskJson,
}

impl Task {
    /// The answer for a stored task: `settings` with its derived fields.
    pub fn new(
        id: i64,
        settings: TaskSettings,
        organization: TaskOrganization,
        starred: bool,
        train_status: TrainStatus,
        created_at: i64,
        last_update: Option<i64>,
    ) -> Task {
        let op = settings.operation();
        let steps: Vec<&operation::Step> = op.steps().collect();
        let t = settings.task_parameters.telemetry_params.clone();
        Task {
            id,
            organization,
            starred,
            train_status,
            created_at,
            last_update,
            steps_count: steps.len(),
            steps: steps.iter().map(|s| s.name.clone()).collect(),
            substeps: steps.iter().map(|s| s.substeps.clone()).collect(),
            maximum_cycle_time: t.maximum_cycle_time,
            add_background_time_to_step_time: t.add_background_time_to_step_time,
            object_rotation: t.object_rotation,
            strict_step_order: t.strict_step_order,
            required_steps_for_start: t.required_steps_for_start.clone(),
            required_steps_for_end: t.required_steps_for_end.clone(),
            task_json: TaskJson {
                training_params: settings.task_parameters.training_params.clone(),
                cycle_calculation_params: t,
            },
            processes: op.processes,
            settings,
        }
    }
}

/// `POST organization/task/`: a name and the operation, as text or as processes; the
/// other settings take their defaults unless given.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct TaskCreate {
    /// The task name; the text's first line when absent.
    #[serde(rename = "taskName")]
    pub task_name: Option<String>,
    /// The operation in the task-detail text format.
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
    pub task_name: Option<String>,
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
    pub model_choice: Option<String>,
    pub model_version: Option<i64>,
    pub model_type: Option<String>,
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>", optional = nullable))]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub steps_data_json: Option<JsonObject>,
    pub annotation_image_id: Option<i64>,
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>", optional = nullable))]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub advance_features_json: Option<JsonObject>,
    pub translation: Option<BTreeMap<String, String>>,
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

/// `POST generic/clone_task/`: a copy of `task` named `taskName`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CloneTask {
    pub task: i64,
    #[serde(rename = "taskName")]
    pub task_name: String,
}

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

// ----- task objects, plane objects, detection rules, regions --------------------------------

/// An object the detector looks for in a task (spec "Task object"): static objects
/// (fixtures) or moving ones (parts, tools), optionally tied to a step.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TaskObject {
    pub id: i64,
    pub task: i64,
    pub name: String,
    /// `#rrggbb` or `#rgb`.
    pub outline_color: String,
    pub is_static: bool,
    /// The step (index across processes) the object belongs to.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub step_id: Option<u32>,
}

/// `POST task/task_object/`. A missing or invalid colour gets a generated one.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct TaskObjectCreate {
    pub task: i64,
    pub name: String,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub outline_color: Option<String>,
    #[serde(default)]
    pub is_static: bool,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub step_id: Option<u32>,
}

/// `PATCH task/task_object/{id}/`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(deny_unknown_fields)]
pub struct TaskObjectPatch {
    pub name: Option<String>,
    pub outline_color: Option<String>,
    pub is_static: Option<bool>,
    pub step_id: Option<u32>,
}

/// A plane of a task's scene (a work surface), as a polygon in image coordinates
/// scaled to 0..1.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PlaneObject {
    pub id: i64,
    pub task: i64,
    pub name: String,
    pub points: Vec<[f64; 2]>,
}

/// `POST task/plane_objects/` (with `task`) and `PUT task/plane_objects/{id}/`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct PlaneObjectWrite {
    /// The task (on create; ignored on replace).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub task: Option<i64>,
    pub name: String,
    pub points: Vec<[f64; 2]>,
}

/// Steps related to a step: the key steps around an anchor (spec "default step rule").
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, deny_unknown_fields)]
pub struct StepRelation {
    pub key_steps: Vec<u32>,
    pub before_anchor: Vec<u32>,
    pub after_anchor: Vec<u32>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, deny_unknown_fields)]
pub struct StepRelations {
    pub anchor: StepRelation,
    pub similar: StepRelation,
}

/// How a step is recognised from detected objects (spec "default step rule").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, deny_unknown_fields)]
pub struct StepRule {
    /// Task objects that must be seen.
    pub objects_present: Vec<i64>,
    pub detect_always: bool,
    /// A boolean expression over object names, e.g. `screwdriver and not cover`.
    pub boolean_expr: String,
    pub rule_types: Vec<String>,
    pub step_relations: StepRelations,
}

impl Default for StepRule {
    fn default() -> Self {
        StepRule {
            objects_present: vec![],
            detect_always: true,
            boolean_expr: String::new(),
            rule_types: vec![],
            step_relations: StepRelations::default(),
        }
    }
}

/// The object-detection rule of one step (spec "Object-detection rule per step").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DetectionRule {
    /// None for a step with no stored rule (its default rule is shown).
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub id: Option<i64>,
    pub task: i64,
    pub step: u32,
    pub static_object: Vec<i64>,
    pub non_static_object: Vec<i64>,
    pub verify: bool,
    pub rule: StepRule,
}

/// `POST object_detection_rule/{task}/` (with `step`) and `PATCH
/// object_detection_rule/{id}/`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(deny_unknown_fields)]
pub struct DetectionRuleWrite {
    pub step: Option<u32>,
    pub static_object: Option<Vec<i64>>,
    pub non_static_object: Option<Vec<i64>>,
    pub verify: Option<bool>,
    pub rule: Option<StepRule>,
}

/// `PATCH object_detection_rule/bulk_delete`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BulkDelete {
    pub ids: Vec<i64>,
}

/// A task's regions of interest (`generic/list_region_json/{id}/`): free-form JSON the
/// device applies to its camera image.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RegionJson {
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>"))]
    pub region_json: JsonObject,
}

/// Whether `c` is a 3- or 6-digit hex colour, with or without `#` (spec section 5).
pub fn is_hex_color(c: &str) -> bool {
    let h = c.strip_prefix('#').unwrap_or(c);
    matches!(h.len(), 3 | 6) && h.chars().all(|c| c.is_ascii_hexdigit())
}

/// A colour for the `n`-th object: hues spread by the golden angle, so neighbours differ.
pub fn generated_color(n: u64) -> String {
    let h = (n as f64 * 137.507_764) % 360.0;
    let (s, l) = (0.65, 0.5);
    let c = (1.0 - (2.0 * l - 1.0_f64).abs()) * s;
    let x = c * (1.0 - ((h / 60.0) % 2.0 - 1.0).abs());
    let m = l - c / 2.0;
    let (r, g, b) = match (h / 60.0) as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let byte = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    format!("#{:02x}{:02x}{:02x}", byte(r), byte(g), byte(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_specs() {
        let s = TaskSettings::new("T".into(), "T\n".into());
        let v = serde_json::to_value(&s).unwrap();
        let t = &v["taskParameters"]["telemetryParams"];
        assert_eq!(t["maximum_cycle_time"], 9_007_199_254_740_991_i64);
        assert_eq!(t["min_percentage_of_steps_required_to_end_cycle"], 0.75);
        assert_eq!(
            t["required_steps_for_start"],
            serde_json::json!({"0": [0, 1]})
        );
        assert_eq!(t["required_steps_for_end"], serde_json::json!({"0": []}));
        assert_eq!(v["taskParameters"]["trainingParams"]["verify_threshold"], 6);
        assert_eq!(v["sub_step_times"]["background"], 50);
        // A partial parameter object takes the defaults for the rest.
        let p: TaskParameters = serde_json::from_value(
            serde_json::json!({"telemetryParams": {"strict_step_order": true}}),
        )
        .unwrap();
        assert!(p.telemetry_params.strict_step_order);
        assert_eq!(p.telemetry_params.maximum_cycle_time, MAX_SAFE_INTEGER);
        assert_eq!(p.training_params.verify_threshold, 6);
    }

    #[test]
    fn colours_are_checked_and_generated() {
        for ok in ["#abc", "abc", "#A1b2C3", "00ff00"] {
            assert!(is_hex_color(ok), "{ok}");
        }
        for bad in ["", "#", "#abcd", "#ggg", "red", "#12345", "＃abc", "#abc "] {
            assert!(!is_hex_color(bad), "{bad}");
        }
        let colours: Vec<String> = (0..20).map(generated_color).collect();
        assert!(
            colours.iter().all(|c| is_hex_color(c) && c.len() == 7),
            "{colours:?}"
        );
        let distinct: std::collections::BTreeSet<_> = colours.iter().collect();
        assert_eq!(distinct.len(), 20);
    }

    #[test]
    fn the_revert_message_names_three_fields() {
        let f = |n: &[&str]| revert_message(&n.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(f(&[]), REVERT_NO_CHANGE_MESSAGE);
        assert_eq!(
            f(&["taskName"]),
            "Task successfully reverted! 1 field(s) updated: taskName"
        );
        assert_eq!(
            f(&["a", "b", "c", "d"]),
            "Task successfully reverted! 4 field(s) updated: a, b, c..."
        );
    }

    #[test]
    fn a_task_derives_its_steps_from_the_text() {
        let s = TaskSettings::new("T".into(), "T\nA:\na;\nb;\nP~\nB:\nc;\n".into());
        let t = Task::new(
            1,
            s,
            TaskOrganization {
                id: 1,
                org_name_to_display: "O".into(),
            },
            false,
            TrainStatus::NewTask,
            0,
            None,
        );
        assert_eq!(t.steps, ["A", "B"]);
        assert_eq!(t.substeps, [vec!["a", "b"], vec!["c"]]);
        assert_eq!(t.steps_count, 2);
        assert_eq!(t.processes.len(), 2);
        let v = serde_json::to_value(&t).unwrap();
        assert_eq!(v["taskName"], "T");
        assert_eq!(v["stepsCount"], 2);
        assert_eq!(v["Organization"]["id"], 1);
        assert_eq!(v["taskJson"]["training_params"]["verify_threshold"], 6);
    }

    /// A task with every `StepsByProcess` off its default.
    fn a_task() -> Task {
        let mut s = TaskSettings::new("T".into(), "T\nA:\na;\nb;\nP~\nB:\nc;\n".into());
        let t = &mut s.task_parameters.telemetry_params;
        t.required_steps_for_start = BTreeMap::from([(0, vec![0]), (1, vec![1]), (10, vec![])]);
        t.required_steps_for_end = BTreeMap::from([(1, vec![1]), (4_294_967_295, vec![0])]);
        let org = TaskOrganization {
            id: 1,
            org_name_to_display: "O".into(),
        };
        Task::new(7, s, org, true, TrainStatus::Trained, 5, Some(6))
    }

    #[test]
    fn a_task_reads_back_from_its_own_json() {
        let t = a_task();
        let text = serde_json::to_string(&t).unwrap();
        // The keys are written as text, as before.
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v["taskParameters"]["telemetryParams"]["required_steps_for_end"],
            serde_json::json!({"1": [1], "4294967295": [0]})
        );
        assert_eq!(v["required_steps_for_start"]["10"], serde_json::json!([]));
        assert_eq!(serde_json::from_str::<Task>(&text).unwrap(), t);
        assert_eq!(serde_json::from_value::<Task>(v).unwrap(), t);
        // And inside another answer.
        let r = RevertResult {
            msg: "m".into(),
            reverted_fields: vec![],
            reverted_fields_count: 0,
            task: t.clone(),
        };
        let back: RevertResult = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn a_process_index_is_a_whole_number() {
        let mut v = serde_json::to_value(a_task()).unwrap();
        for bad in ["x", "", "-1", "1.5", " 1", "+1", "4294967296"] {
            v["taskParameters"]["telemetryParams"]["required_steps_for_start"] =
                serde_json::json!({ bad: [0] });
            let e = serde_json::from_value::<Task>(v.clone()).unwrap_err();
            assert!(
                e.to_string()
                    .contains(&format!("invalid value: string {bad:?}"))
                    && e.to_string().contains("a process index"),
                "{bad:?}: {e}"
            );
        }
        // Outside a flattened struct too, and in a patch.
        let e = serde_json::from_str::<TelemetryParams>(r#"{"required_steps_for_end": {"x": []}}"#)
            .unwrap_err();
        assert!(e.to_string().contains("string \"x\""), "{e}");
        let e = serde_json::from_str::<TaskPatch>(r#"{"required_steps_for_start": {"x": []}}"#)
            .unwrap_err();
        assert!(e.to_string().contains("string \"x\""), "{e}");
        // Integer keys (another format's map) read as well.
        let ints = serde::de::value::MapDeserializer::<_, serde::de::value::Error>::new(
            [(3u32, vec![1u32]), (0, vec![])].into_iter(),
        );
        let m = steps_by_process::deserialize(ints).unwrap();
        assert_eq!(m, BTreeMap::from([(0, vec![]), (3, vec![1])]));
        let p: TaskPatch = serde_json::from_str(
            r#"{"required_steps_for_start": {"2": [1, 0]}, "required_steps_for_end": null}"#,
        )
        .unwrap();
        assert_eq!(
            p.required_steps_for_start,
            Some(BTreeMap::from([(2, vec![1, 0])]))
        );
        assert_eq!(p.required_steps_for_end, None);
        let p: TaskPatch = serde_json::from_str("{}").unwrap();
        assert_eq!(p.required_steps_for_start, None);
        // Missing: the defaults, as before.
        let t: TelemetryParams = serde_json::from_str("{}").unwrap();
        assert_eq!(t, TelemetryParams::default());
    }
}
