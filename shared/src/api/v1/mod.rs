//! REST API v1 payloads (served under `/api/`), named after the spec's fields.

pub mod account;
pub mod admin_report;
pub mod annotation;
pub mod assistant;
pub mod barcode;
pub mod cameras;
pub mod device;
pub mod feature_control;
pub mod files;
pub mod kaizen;
pub mod labeler;
pub mod lengths;
pub mod line;
pub mod monitoring;
pub mod opcua;
pub mod organization;
pub mod privacy;
pub mod push;
pub mod queue;
pub mod rectification;
pub mod release;
pub mod service_token;
pub mod sso;
pub mod stream;
pub mod tampering;
pub mod task;
pub mod task_objects_store;
pub mod telemetry;
pub mod training;
pub mod validation;
pub mod video;
pub mod video_entity;
pub mod video_metadata;
pub mod virtual_task;

use serde::{Deserialize, Serialize};

/// A plain message answer, e.g. `{"msg": "OTP Sent!"}`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Msg {
    pub msg: String,
}

impl Msg {
    pub fn new(m: impl Into<String>) -> Msg {
        Msg { msg: m.into() }
    }
}

/// A page of results: `{ "results": [...], "count": N }`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Page<T> {
    pub results: Vec<T>,
    pub count: i64,
}

/// Items per page of paged lists.
pub const PAGE_SIZE: i64 = 10;

/// The row offset of the 1-based `page` (default 1): `None` for a page below 1, or one
/// so far out that its offset does not fit in an `i64`.
pub fn page_offset(page: Option<i64>) -> Option<i64> {
    let page = page.unwrap_or(1);
    if page < 1 {
        return None;
    }
    (page - 1).checked_mul(PAGE_SIZE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_offsets_are_checked() {
        assert_eq!(page_offset(None), Some(0));
        assert_eq!(page_offset(Some(3)), Some(2 * PAGE_SIZE));
        assert_eq!(page_offset(Some(0)), None);
        assert_eq!(page_offset(Some(i64::MIN)), None);
        assert_eq!(
            page_offset(Some(i64::MAX / PAGE_SIZE)),
            Some((i64::MAX / PAGE_SIZE - 1) * PAGE_SIZE)
        );
        assert_eq!(page_offset(Some(i64::MAX - 1)), None);
    }
}
