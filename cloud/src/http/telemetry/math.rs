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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The bins of cycles of these lengths (ms), as the roll-ups count them.
    fn bins_of(cycles: &[i64]) -> BTreeMap<i64, i64> {
        let mut bins = BTreeMap::new();
        for &ms in cycles {
            *bins.entry(rollups::bin_of(ms)).or_insert(0) += 1;
        }
        bins
    }

    /// The sums of cycles of these lengths (ms), as a batch is summed.
    fn sums_of(cycles: &[(i64, i64)]) -> Option<Sums> {
        let mut to = None;
        for &(ms, idle) in cycles {
            Sums::add_to(&mut to, &Sums::of(ms, idle));
        }
        to
    }

    fn settings(steps_avg_time: serde_json::Value) -> TaskSettings {
        TaskSettings {
            steps_avg_time: steps_avg_time.as_object().unwrap().clone(),
            ..TaskSettings::default()
        }
    }

    #[test]
    fn slowest_floor_of_no_cycles_is_zero() {
        assert_eq!(slowest_floor(&BTreeMap::new(), 1), 0);
        assert_eq!(slowest_floor(&BTreeMap::new(), 5), 0);
    }

    #[test]
    fn slowest_floor_is_the_lower_edge_of_the_kth_slowest_cycles_bin() {
        // Bin edges fall on whole seconds at every doubling: 1 s, 2 s, 4 s.
        let bins = bins_of(&[1000, 2000, 2000, 4000]);
        assert_eq!(slowest_floor(&bins, 1), 4000);
        // The two 2 s cycles tie: the 2nd and the 3rd slowest share a floor.
        assert_eq!(slowest_floor(&bins, 2), 2000);
        assert_eq!(slowest_floor(&bins, 3), 2000);
        assert_eq!(slowest_floor(&bins, 4), 1000);
        // More than were counted: every cycle is at least 0 ms long.
        assert_eq!(slowest_floor(&bins, 5), 0);
    }

    #[test]
    fn slowest_floor_of_one_cycle_and_of_cycles_under_a_second() {
        assert_eq!(slowest_floor(&bins_of(&[4000]), 1), 4000);
        // Bin 0 holds everything under 1 s and starts at 0.
        assert_eq!(slowest_floor(&bins_of(&[300, 999]), 1), 0);
        assert_eq!(slowest_floor(&bins_of(&[300, 999, 1000]), 1), 1000);
        assert_eq!(slowest_floor(&bins_of(&[300, 999, 1000]), 2), 0);
    }

    #[test]
    fn slowest_floor_is_at_most_the_kth_slowest_and_within_a_bin_of_it() {
        // 2.1 s falls inside a bin, not on its edge: the floor is a little under it.
        let bins = bins_of(&[1500, 2100, 9000]);
        let floor = slowest_floor(&bins, 2);
        assert!(floor <= 2100, "{floor}");
        assert!(floor as f64 > 2100.0 / 1.03, "{floor}");
    }

    #[test]
    fn target_is_the_cycle_time_in_seconds_as_ms() {
        assert_eq!(
            target_ms(&settings(json!({"cycle_time": 12.5}))),
            Some(12_500.0)
        );
        assert_eq!(
            target_ms(&settings(json!({"cycle_time": 3}))),
            Some(3_000.0)
        );
        assert_eq!(
            target_ms(&settings(json!({"cycle_time": 0.25, "step 1": 9}))),
            Some(250.0)
        );
    }

    #[test]
    fn no_target_without_a_positive_number() {
        assert_eq!(target_ms(&TaskSettings::default()), None);
        assert_eq!(target_ms(&settings(json!({"step 1": 4.0}))), None);
        assert_eq!(target_ms(&settings(json!({"cycle_time": 0}))), None);
        assert_eq!(target_ms(&settings(json!({"cycle_time": -2.0}))), None);
        assert_eq!(target_ms(&settings(json!({"cycle_time": "12"}))), None);
        assert_eq!(target_ms(&settings(json!({"cycle_time": null}))), None);
    }

    #[test]
    fn stddev_is_the_population_one() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squares 232, 232/8 − 25 = 4.
        assert_eq!(stddev(8, 40, 232.0), 2.0);
        // 1 and 3: mean 2, variance (1 + 9)/2 − 4 = 1 (the sample one would be 2).
        assert_eq!(stddev(2, 4, 10.0), 1.0);
    }

    #[test]
    fn stddev_of_one_value_or_of_ties_is_zero() {
        assert_eq!(stddev(1, 1500, 1500.0 * 1500.0), 0.0);
        assert_eq!(stddev(3, 9000, 3.0 * 3000.0 * 3000.0), 0.0);
    }

    #[test]
    fn stddev_of_no_values_is_zero_not_nan() {
        assert_eq!(stddev(0, 0, 0.0), 0.0);
    }

    #[test]
    fn stddev_never_takes_the_root_of_a_rounding_below_zero() {
        // Seven equal cycles of 100,000,002 ms: summed in f64 their squares come out
        // 2 short, so the variance computes as −2 and its root would be NaN.
        let s = sums_of(&[(100_000_002, 0); 7]).unwrap();
        let mean = 100_000_002f64;
        assert!(s.sum_sq / 7.0 - mean * mean < 0.0);
        assert_eq!(stddev(s.n, s.sum_ms, s.sum_sq), 0.0);
    }

    #[test]
    fn figures_of_no_cycles_are_empty_whatever_good_says() {
        assert_eq!(figures(None, 0), CycleFigures::default());
        assert_eq!(figures(None, 3), CycleFigures::default());
    }

    #[test]
    fn figures_of_one_cycle() {
        let s = sums_of(&[(1500, 200)]).unwrap();
        assert_eq!(
            figures(Some(&s), 1),
            CycleFigures {
                cycles: 1,
                good: 1,
                bad: 0,
                avg_ms: Some(1500.0),
                stddev_ms: Some(0.0),
                min_ms: Some(1500),
                max_ms: Some(1500),
                idle_ms: 200,
            }
        );
    }

    #[test]
    fn figures_of_several_cycles() {
        // 2 s, 4 s and 3 s: mean 3 s, variance (4 + 16 + 9)/3 − 9 = 2/3 s².
        let s = sums_of(&[(2000, 100), (4000, 0), (3000, 50)]).unwrap();
        let f = figures(Some(&s), 1);
        assert_eq!((f.cycles, f.good, f.bad), (3, 1, 2));
        assert_eq!(f.avg_ms, Some(3000.0));
        let sd = f.stddev_ms.unwrap();
        assert!((sd - (2.0e6f64 / 3.0).sqrt()).abs() < 1e-6, "{sd}");
        assert!((sd - 816.496_580_927_726).abs() < 1e-6, "{sd}");
        assert_eq!((f.min_ms, f.max_ms), (Some(2000), Some(4000)));
        assert_eq!(f.idle_ms, 150);
    }
}
