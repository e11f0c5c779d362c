//! REST API v1 payloads (served under `/api/`), named after the spec's fields.

pub mod account;
pub mod feature_control;
pub mod organization;

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
