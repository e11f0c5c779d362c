//! Rectification steps (`organization/rectification_steps/`, spec section 7 "Tasks"):
//! what an operator does to put a cycle right when one of its steps is missed or done
//! wrong. The spec names the calls and shows no shape (section 3); ours
//! (docs/decisions.md "Rectification steps"): each belongs to one step of one task, a
//! step has its rectification steps in the order they were added, and the portal shows
//! them beside the task's steps and where a cycle's fault is shown (the Issue Center).

use serde::{Deserialize, Serialize};

use crate::validate::MAX_DESCRIPTION_CHARS;

/// Most rectification steps of one step of a task.
pub const MAX_PER_STEP: usize = 20;
/// Most characters of a rectification step's text.
pub const MAX_RECTIFICATION_CHARS: usize = MAX_DESCRIPTION_CHARS;

/// One rectification step.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RectificationStep {
    pub id: i64,
    pub task: i64,
    /// The step it puts right: its index in the task's operation.
    pub step: u32,
    /// That step's name in the operation as it is now; `null` once the operation has
    /// no step at that index.
    pub step_name: Option<String>,
    /// What the operator does.
    pub description: String,
    /// Its place among the step's rectification steps, 1 first.
    pub order: u32,
    /// When it was added (milliseconds since the epoch).
    pub created_at: i64,
}

/// `POST organization/rectification_steps/`: appended after the step's others.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RectificationStepCreate {
    pub task: i64,
    pub step: u32,
    #[cfg_attr(feature = "openapi", schema(max_length = 1000))]
    pub description: String,
}

/// Messages of the calls.
pub const UNKNOWN_STEP: &str = "The task has no step with this index.";
pub const DESCRIPTION_REQUIRED: &str = "Describe what the operator does.";

/// "A step has at most 20 rectification steps."
pub fn too_many_message() -> String {
    format!("A step has at most {MAX_PER_STEP} rectification steps.")
}
