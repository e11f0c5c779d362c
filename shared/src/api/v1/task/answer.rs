//! The task as the API answers it: its settings, what the service keeps itself
//! (training status, organisation, creation time) and the fields derived from them.

use serde::{Deserialize, Serialize};

use super::steps_by_process::{self, StepsByProcess};
use super::{TaskSettings, TelemetryParams, TrainingParams};
use crate::operation::{self, Process};

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
