//! Task (operation) calls (spec section 7 "Tasks") and the task's fields (section 3
//! "Task", "Telemetry parameters", "Training parameters").
//!
//! A task is stored as its [`TaskSettings`] (everything a user edits, and what its
//! history records and reverts) plus what the service keeps itself (id, organisation,
//! training status, creation time). [`Task`] is what the API answers: the settings,
//! those, and fields derived from the operation (step names, counts) and from the
//! parameters (the spec's top-level copies and `taskJson`).
//!
//! In files by job: what a user sets (`settings.rs`), the task as the API answers it
//! (`answer.rs`), the calls' bodies and messages (`calls.rs`), task and plane objects
//! and regions (`objects.rs`), step relations and detection rules (`rules.rs`), the
//! process-to-steps maps ([`steps_by_process`]) and the unit tests (`tests.rs`).

mod answer;
mod calls;
mod objects;
mod rules;
mod settings;
pub mod steps_by_process;
#[cfg(test)]
mod tests;

pub use answer::*;
pub use calls::*;
pub use objects::*;
pub use rules::*;
pub use settings::*;
pub use steps_by_process::StepsByProcess;
