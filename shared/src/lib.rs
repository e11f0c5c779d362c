//! gemba-shared: domain and wire types, validation, roles and permissions.
//!
//! No I/O and no panics on input. Serde only by default; the OpenAPI schema
//! derives are behind the `openapi` feature so the edge agent stays small.

pub mod api;
pub mod cycle;
pub mod eval;
pub mod footage;
pub mod mqtt;
pub mod operation;
pub mod roles;
pub mod validate;

pub use roles::{Permission, Role};
