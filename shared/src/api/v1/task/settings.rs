//! What a user sets on a task: its settings and its telemetry and training parameters,
//! with the spec's defaults.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::steps_by_process::{self, StepsByProcess};
use crate::operation::{self, Operation};

/// A JSON object of free-form values.
pub type JsonObject = Map<String, Value>;

/// The largest integer a JavaScript number holds exactly: the default maximum cycle
/// time (spec section 9), i.e. no limit.
pub const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;
pub const DEFAULT_MIN_SHARE_TO_END: f64 = 0.75;
pub const DEFAULT_VERIFY_THRESHOLD: u32 = 6;
pub const DEFAULT_BACKGROUND_TIME: u32 = 50;

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
