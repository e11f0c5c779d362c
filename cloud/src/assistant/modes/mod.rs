//! Each mode's facts from the analytics calls' answers (`telemetry/cycle_stats`,
//! `telemetry/issues`, `telemetry/line_stats`, `device/device_status/`,
//! `telemetry/device_events`): plain functions, no I/O. Each figure links to the screen
//! listing its cycles with the same filter. One file a mode: `station` (one period
//! and two compared), `line`, `ergonomics`, `iot`; the links and words they share
//! are here.

mod ergonomics;
mod iot;
mod line;
mod station;

pub use ergonomics::ergonomics;
pub use iot::iot;
pub use line::line_performance;
pub use station::{station_comparison, station_performance};

use gemba_shared::api::v1::telemetry::StationFigures;

use super::facts::{Period, link, method};

/// A station's coefficient of variation above which its cycle times are called unsteady.
pub const UNSTEADY_CV: f64 = 0.15;
/// A line balance (average station time over the bottleneck's) under which the line is
/// called unbalanced.
pub const BALANCED: f64 = 0.85;
/// A step this many times the operation's median step is called a long hold.
pub const LONG_STEP: f64 = 1.5;

/// The filter the answer was asked with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scope {
    pub task: Option<i64>,
    pub device: Option<i64>,
}

pub(super) fn id(v: Option<i64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// `/user/analytics` over `p` for a station, with a cycle filter.
pub(super) fn analytics(p: Period, task: Option<i64>, device: Option<i64>, filter: &str) -> String {
    let (from, to) = p.days();
    link(
        "/user/analytics",
        &[
            ("from", from),
            ("to", to),
            ("task", id(task)),
            ("device", id(device)),
            ("filter", filter.to_string()),
        ],
    )
}

pub(super) fn issue_center(p: Period, task: Option<i64>) -> String {
    let (from, to) = p.days();
    link(
        "/user/issue-center",
        &[("from", from), ("to", to), ("task", id(task))],
    )
}

pub(super) fn station_name(s: &StationFigures) -> String {
    let op = s
        .task_name
        .clone()
        .unwrap_or_else(|| format!("operation {}", s.task));
    match (&s.device_name, s.device) {
        (Some(d), _) => format!("{op} on {d}"),
        (None, Some(d)) => format!("{op} on device {d}"),
        (None, None) => format!("{op} (device removed)"),
    }
}

/// The method a bad-cycle reason points to.
pub(super) fn method_of_reason(reason: &str) -> &'static str {
    match reason {
        "missed_step" => method::POKA_YOKE,
        "wrong_order" | "negative_step" => method::STANDARD_WORK,
        _ => method::FIVE_WHYS,
    }
}

pub(super) fn reason_words(reason: &str) -> &'static str {
    match reason {
        "missed_step" => "a missed step",
        "negative_step" => "a step that should not be done",
        "wrong_order" => "steps out of order",
        "too_long" => "over the maximum cycle time",
        _ => "marked bad by a person",
    }
}

#[cfg(test)]
mod tests;
