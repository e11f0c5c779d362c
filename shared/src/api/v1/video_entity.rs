//! `POST organization/entity/` (spec section 7 "Videos, tags and comments"; no payload
//! shown): the entity a comment attaches to. A comment's `entity_id` is its video's id
//! (`organization/task_record/comments?entity_id={id}`), so the entity of a task video
//! is the video itself: the call names it for a video of the organisation, creating no
//! row (docs/decisions.md "Comment entities").

use serde::{Deserialize, Serialize};

/// The call's body: which video.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct EntityCreate {
    /// The video (task record).
    pub task_record: i64,
}

/// A comment thread's entity.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Entity {
    /// The `entity_id` to send with `organization/task_record/comments`.
    pub entity_id: i64,
    pub task_record: i64,
    /// The video's task.
    pub task: i64,
    /// How many comments the entity has.
    pub no_of_comments: i64,
}
