//! The figures' arithmetic, plain functions apart from requests: a cycle-time floor
//! under the slowest cycles, a task's target, the standard deviation, and a group's
//! figures from its sums.

use std::collections::BTreeMap;

use gemba_shared::api::v1::task::TaskSettings;
use gemba_shared::api::v1::telemetry::CycleFigures;

use crate::db::rollups::{self, Sums};

/// The lower edge of the cycle-time bin holding the `k`-th slowest of the cycles
/// counted in `bins`: every one of the `k` slowest is at least that long.
pub(super) fn slowest_floor(bins: &BTreeMap<i64, i64>, k: i64) -> i64 {
    let mut seen = 0;
    for (bin, n) in bins.iter().rev() {
        seen += n;
        if seen >= k {
            return rollups::bin_bounds(*bin).0;
        }
    }
    0
}

/// An operation's target cycle time (ms): `stepsAvgTime.cycle_time`, in seconds.
pub(super) fn target_ms(s: &TaskSettings) -> Option<f64> {
    s.steps_avg_time
        .get("cycle_time")
        .and_then(serde_json::Value::as_f64)
        .filter(|v| *v > 0.0)
        .map(|v| v * 1000.0)
}

/// Population standard deviation from a count, a sum and a sum of squares.
pub(super) fn stddev(n: i64, sum: i64, sum_sq: f64) -> f64 {
    let mean = sum as f64 / n as f64;
    (sum_sq / n as f64 - mean * mean).max(0.0).sqrt()
}

pub(super) fn figures(s: Option<&Sums>, good: i64) -> CycleFigures {
    match s {
        None => CycleFigures::default(),
        Some(s) => CycleFigures {
            cycles: s.n,
            good,
            bad: s.n - good,
            avg_ms: Some(s.sum_ms as f64 / s.n as f64),
            stddev_ms: Some(stddev(s.n, s.sum_ms, s.sum_sq)),
            min_ms: Some(s.min_ms),
            max_ms: Some(s.max_ms),
            idle_ms: s.idle_ms,
        },
    }
}
