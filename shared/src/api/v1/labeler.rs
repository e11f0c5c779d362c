//! The labeler area (spec section 2: Operations Requested, a task's videos, profile):
//! an organisation asks a labeler (a user with the role `labeler`, usually of no
//! organisation) to label a task's videos; the labeler then reaches exactly those tasks,
//! their ready videos and their step labels, through the `labeler/` calls.

use serde::{Deserialize, Serialize};

/// A labeler a task is requested of (`organization/task/{id}/labelers/`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LabelRequest {
    pub labeler: i64,
    pub email: String,
    pub name: String,
    pub requested_at: i64,
}

/// `POST organization/task/{id}/labelers/`: request labeling from the labeler with this
/// e-mail address.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct LabelRequestCreate {
    #[cfg_attr(feature = "openapi", schema(max_length = 254))]
    pub email: String,
}

/// A task requested of the signed-in labeler (`GET labeler/tasks/`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RequestedTask {
    pub id: i64,
    #[serde(rename = "taskName")]
    pub task_name: String,
    pub organization: i64,
    pub org_name_to_display: String,
    pub steps: Vec<String>,
    pub ready_videos: i64,
    pub labelled_videos: i64,
    pub requested_at: i64,
}
