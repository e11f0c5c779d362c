//! Wire types of the REST API, by version.
pub mod v1;
