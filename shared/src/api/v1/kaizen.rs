//! `POST organization/create_kaizen_bucket` (spec section 7; no payload shown): the
//! organisation's `kaizen` bucket of the `generic/` file calls made in the object store
//! (docs/decisions.md "The kaizen bucket"). Asking again changes nothing.

use serde::{Deserialize, Serialize};

/// The bucket's name, as the file calls take it in `bucket_name`.
pub const KAIZEN_BUCKET: &str = "kaizen";

/// The marker object that makes a bucket exist in the store before any file is in it
/// (under the bucket, not listed as one of its files).
pub const BUCKET_MARKER: &str = ".bucket";

/// The answer.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct KaizenBucket {
    /// `kaizen`.
    pub bucket_name: String,
    /// Made by this call (false: it was there).
    pub created: bool,
}
