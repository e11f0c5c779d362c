//! `GET organization/task/s3_objects/{id}/` (spec section 7 "Tasks"; no shape shown): a
//! task's files in the object store (docs/decisions.md "A task's stored objects"): its
//! videos and their thumbnails, its model versions, its cycles' clips, its validation
//! videos and annotation images, newest first, each as the store has it.

use serde::{Deserialize, Serialize};

/// Most objects answered (the newest).
pub const MAX_OBJECTS: i64 = 500;

/// One stored file of a task.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StoredObject {
    /// What it is: `video`, `thumbnail`, `model`, `clip`, `validation_video` or
    /// `annotation_image`.
    pub kind: String,
    /// The record it belongs to (a video's, model version's, cycle's, … id).
    pub record: String,
    /// The record's name (a file name, a version, a cycle id).
    pub name: String,
    /// Its key in the organisation's part of the store.
    pub key: String,
    /// Its size as the store has it; `null` when the store has no such object.
    pub size_bytes: Option<i64>,
    /// When the store last changed it (milliseconds since the epoch); `null` as above.
    pub last_modified: Option<i64>,
    /// When its record was made.
    pub created_at: i64,
}
