//! The super admin's reports (admin User Report, Labelers, Annotations). The spec names
//! the screens (`/admin/user-report`, `/admin/labelers`, `/admin/annotations`) but no
//! calls, so these are our own `admin/…` calls (docs/decisions.md, "Organisations,
//! roles and feature control").

use serde::{Deserialize, Serialize};

/// One user's use of the portal over a period (`GET admin/user-report/`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct UserReportRow {
    pub id: i64,
    pub name: String,
    pub lastname: String,
    pub email: String,
    /// The role's name (`org_admin`, …); none before approval.
    pub role: Option<String>,
    pub is_active: bool,
    /// Display names of the organisations the user is linked to, by name.
    pub organizations: Vec<String>,
    /// Activity sessions that overlap the period.
    pub sessions: i64,
    /// Completed sign-ins (the one-time code passed) in the period.
    pub sign_ins: i64,
    /// Time in the portal within the period, in milliseconds (sessions clipped to it).
    pub time_ms: i64,
    /// End of the user's latest activity session (any time), unix ms.
    pub last_active: Option<i64>,
    /// The browsers of the period's sessions (`Chrome 131`), by name.
    pub browsers: Vec<String>,
}

/// A page of the user report and the period it covers (`[from, to)`, unix ms).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct UserReport {
    pub results: Vec<UserReportRow>,
    pub count: i64,
    pub from: i64,
    pub to: i64,
}

/// An operation requested of a labeler, and how far its labelling is.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LabelerAssignment {
    pub task: i64,
    #[serde(rename = "taskName")]
    pub task_name: String,
    pub organization: i64,
    pub org_name_to_display: String,
    pub requested_at: i64,
    /// The operation's ready videos.
    pub ready_videos: i64,
    /// Its ready videos with labels to train on (by anyone).
    pub labelled_videos: i64,
    /// Its ready videos whose labels this labeler saved last.
    pub labelled_by_labeler: i64,
}

/// A user with the role `labeler` and the operations requested of them
/// (`GET admin/labelers/`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AdminLabeler {
    pub id: i64,
    pub name: String,
    pub lastname: String,
    pub email: String,
    pub is_active: bool,
    /// When this labeler last saved labels of any video, unix ms.
    pub last_label_at: Option<i64>,
    /// Newest request first.
    pub assignments: Vec<LabelerAssignment>,
}

/// One operation's labelling progress (`GET admin/annotations/`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AnnotationProgress {
    pub task: i64,
    #[serde(rename = "taskName")]
    pub task_name: String,
    pub organization: i64,
    pub org_name_to_display: String,
    /// Ready videos.
    pub videos: i64,
    /// Ready videos with labels to train on (a person's, or propagated and reviewed).
    pub labelled_videos: i64,
    /// Ready videos whose labels are marked reviewed.
    pub reviewed_videos: i64,
    /// Ready videos with propagated labels still to review.
    pub to_review: i64,
    /// Step segments over the ready videos' labels.
    pub segments: i64,
    /// Labelers the operation is requested of.
    pub labelers: i64,
    /// The latest label save, unix ms.
    pub last_change: Option<i64>,
}
