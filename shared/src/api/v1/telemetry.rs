//! Cycle analytics (issue 7; spec section 2 `home` and `analytics`): the figures of an
//! organisation's cycles over a date range, answered by `GET telemetry/cycle_stats`.
//! Every figure is computed in the database from roll-ups kept as cycles arrive, and
//! equals the same figure computed from the raw cycles.

use serde::{Deserialize, Serialize};

/// Figures of some cycles. The times are `null` when there is no cycle.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CycleFigures {
    pub cycles: i64,
    pub good: i64,
    pub bad: i64,
    /// Mean cycle time (ms).
    pub avg_ms: Option<f64>,
    /// Population standard deviation of the cycle time (ms).
    pub stddev_ms: Option<f64>,
    pub min_ms: Option<i64>,
    pub max_ms: Option<i64>,
    /// Background time inside the cycles, summed (ms).
    pub idle_ms: i64,
}

/// A station: a task on a device.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StationFigures {
    pub task: i64,
    /// The operation's name (`null` once the task is gone).
    pub task_name: Option<String>,
    /// The operation's target cycle time (ms): its `stepsAvgTime.cycle_time` (seconds),
    /// when set.
    pub target_ms: Option<f64>,
    /// `null` for cycles whose device was deleted.
    pub device: Option<i64>,
    /// The device's name (`null` once deleted).
    pub device_name: Option<String>,
    #[serde(flatten)]
    pub figures: CycleFigures,
}

/// A step of a task: the cycles that had it and the time spent in it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StepFigures {
    pub task: i64,
    /// The step's index in its task.
    pub step: u32,
    /// Its name in the task's operation (`null` for a step the task no longer has).
    pub name: Option<String>,
    pub cycles: i64,
    pub avg_ms: f64,
    pub stddev_ms: f64,
}

/// A cycle-time bin: the cycles that took from `from_ms` to just under `to_ms`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TimeBin {
    pub from_ms: i64,
    /// `null` for the last bin (about 5 days and longer).
    pub to_ms: Option<i64>,
    pub cycles: i64,
}

/// A trend bucket: the cycles started from `start_ms` until the next bucket.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TrendPoint {
    pub start_ms: i64,
    #[serde(flatten)]
    pub figures: CycleFigures,
}

/// The answer of `GET telemetry/top_five_percentile`: the slowest 5% of the cycles
/// (at least one when there is any), slowest first, a page at a time.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TopCycles {
    /// The quickest of the slowest 5% (ms): every cycle listed took at least this long;
    /// `null` without cycles.
    pub threshold_ms: Option<i64>,
    /// How many cycles the slowest 5% are (5% of `cycles`, rounded up).
    pub count: i64,
    /// How many cycles match the filters in all.
    pub cycles: i64,
    pub results: Vec<super::device::RecentCycle>,
}

/// The answer of `GET telemetry/cycle_stats`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CycleStats {
    /// The range: cycles started at or after `start_ms` and before `end_ms`.
    pub start_ms: i64,
    pub end_ms: i64,
    /// The trend's buckets: `hour`, `day`, `week` or `month`.
    pub bucket: String,
    pub total: CycleFigures,
    /// Each station with cycles in the range, by task then device.
    pub stations: Vec<StationFigures>,
    /// Each step of the tasks with cycles, by task then step.
    pub steps: Vec<StepFigures>,
    /// The bins holding cycles, shortest first; each about 2.2% wide.
    pub distribution: Vec<TimeBin>,
    /// Every bucket of the range, the empty ones too, in time order.
    pub trend: Vec<TrendPoint>,
}

/// `PATCH telemetry/cycle/{id}`: a person's verdict on a cycle, good or bad, and why.
/// Kept in the cycle's history; the device's own reasons stay on the cycle.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(deny_unknown_fields)]
pub struct CycleVerdict {
    pub good: Option<bool>,
    /// Why (1 to [`REASON_MAX`] characters).
    #[cfg_attr(feature = "openapi", schema(max_length = 500))]
    pub reason: Option<String>,
}

/// The longest reason a person may give for a change to a cycle.
pub const REASON_MAX: usize = crate::validate::MAX_REASON_CHARS;

/// One change a person made to a cycle.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CycleChange {
    pub id: i64,
    pub at_ms: i64,
    /// `good` or `bad` (a verdict), `archived` or `restored`.
    pub change: String,
    pub reason: String,
    /// Who made it (their e-mail; `null` once their account is gone).
    pub by: Option<String>,
}

/// A cycle with the changes people made to it (oldest first), its names and its
/// station's neighbouring cycles: `trace_single_cycle_details`, the cycle-trace screen.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CycleDetails {
    pub cycle: super::device::RecentCycle,
    /// Its operation's name and step names (`null` and empty once the task is gone), its
    /// device's name.
    pub task_name: Option<String>,
    pub steps: Vec<String>,
    pub device_name: Option<String>,
    /// When it was archived; `null` while it counts.
    pub archived_at_ms: Option<i64>,
    pub history: Vec<CycleChange>,
    /// The station's cycles just before and after it (same task and device, by start,
    /// not archived).
    pub previous: Option<String>,
    pub next: Option<String>,
    /// What its device said of the part (a barcode read at the station…).
    pub metadata: std::collections::BTreeMap<String, String>,
    /// The video the station's device recorded around the cycle; `null` until it is
    /// uploaded (after the cycle), or when the device sends none.
    pub clip: Option<CycleClip>,
}

/// A cycle's video clip.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CycleClip {
    /// Signed, good for at least [`super::video::MEDIA_URL_TTL_SECS`]; plays with HTTP
    /// ranges.
    pub url: String,
    /// The time of its first frame on the cycle's clock (`start_ms`, the segments'):
    /// the video's second `s` shows the moment `start_ms + 1000 s`.
    pub start_ms: i64,
    /// Its length.
    pub duration_ms: i64,
}

/// A cycle with its clip when the device sent one: `telemetry/trace/v2` (and the spec's
/// first version, `telemetry/trace/`), the Trace screen.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Trace {
    pub cycle: super::device::RecentCycle,
    pub clip: Option<CycleClip>,
}

/// The largest clip a device may upload (bytes).
pub const CLIP_MAX_BYTES: i64 = 256 * 1024 * 1024;

/// `POST telemetry/archive_cycle/`: cycles to take out of lists and figures (kept, and
/// restored with `DELETE telemetry/archived_cycle/{id}`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(deny_unknown_fields)]
pub struct ArchiveCycles {
    /// 1 to [`ARCHIVE_MAX`] cycle ids of the organisation, none archived already.
    pub ids: Option<Vec<String>>,
    /// Why (1 to [`REASON_MAX`] characters).
    #[cfg_attr(feature = "openapi", schema(max_length = 500))]
    pub reason: Option<String>,
}

/// The most cycles one archive call takes.
pub const ARCHIVE_MAX: usize = 100;

/// The answer of `POST telemetry/archive_cycle/`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Archived {
    pub archived: i64,
}

/// An archived cycle (spec section 3: id, organization, task, device, start_datetime,
/// end_datetime), with names for the admin's list.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ArchivedCycle {
    pub id: String,
    pub organization: i64,
    pub organization_name: Option<String>,
    pub task: i64,
    pub task_name: Option<String>,
    /// `null` once its device was deleted.
    pub device: Option<i64>,
    pub device_name: Option<String>,
    /// RFC 3339, UTC.
    pub start_datetime: String,
    pub end_datetime: String,
    pub good: bool,
    pub archived_at_ms: i64,
    /// Who archived it (e-mail), and why.
    pub archived_by: Option<String>,
    pub reason: String,
}

/// An issue of the issue center: the bad cycles of one operation for one reason.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Issue {
    pub task: i64,
    /// The operation's name (`null` once the task is gone).
    pub task_name: Option<String>,
    /// What names the issue to `fetch_cycles/v2?reason=` and `issues/review`
    /// ([`IssueKey`]): `missed_step:1`, `too_long`, `marked_bad`…
    pub key: String,
    /// `missed_step`, `negative_step`, `wrong_order`, `too_long`, or `marked_bad` (bad
    /// by a person's verdict, without a reason of the device's).
    pub reason: String,
    /// The step the reason is about, and its name in the operation.
    pub step: Option<u32>,
    pub step_name: Option<String>,
    /// Bad cycles with this reason, and how many of them nobody has reviewed.
    pub cycles: i64,
    pub open: i64,
    /// Its cycles in each bucket of the answer's `buckets`.
    pub trend: Vec<i64>,
}

/// The answer of `GET telemetry/issues`: the bad cycles of a range grouped by reason.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct IssueCenter {
    pub start_ms: i64,
    pub end_ms: i64,
    /// The trend's buckets: `hour`, `day`, `week` or `month`, and where each starts.
    pub bucket: String,
    pub buckets: Vec<i64>,
    /// Bad cycles (each once, whatever its reasons), and those nobody has reviewed.
    pub bad: i64,
    pub open: i64,
    /// The issues, most cycles first.
    pub issues: Vec<Issue>,
}

/// `POST telemetry/issues/review`: an issue's open bad cycles of a range (of one device,
/// when given) marked reviewed, with an optional note kept in their history.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(deny_unknown_fields)]
pub struct ReviewIssue {
    pub task: Option<i64>,
    /// The issue's [`Issue::key`].
    #[cfg_attr(feature = "openapi", schema(max_length = 64))]
    pub key: Option<String>,
    pub device: Option<i64>,
    /// The range, as `GET telemetry/issues` takes it.
    #[cfg_attr(feature = "openapi", schema(max_length = 64))]
    pub datetime_start: Option<String>,
    #[cfg_attr(feature = "openapi", schema(max_length = 64))]
    pub datetime_end: Option<String>,
    /// At most [`REASON_MAX`] characters.
    #[cfg_attr(feature = "openapi", schema(max_length = 500))]
    pub note: Option<String>,
}

/// The answer of `POST telemetry/issues/review`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Reviewed {
    pub reviewed: i64,
}

/// What an issue is about: one of the device's reasons, or a person's verdict of bad on
/// a cycle the device gave no reason for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum IssueKey {
    Reason(crate::cycle::BadReason),
    MarkedBad,
}

impl IssueKey {
    /// The issues a bad cycle with `reasons` belongs to (each once).
    pub fn of(reasons: &[crate::cycle::BadReason]) -> Vec<IssueKey> {
        if reasons.is_empty() {
            return vec![IssueKey::MarkedBad];
        }
        let mut keys: Vec<IssueKey> = reasons.iter().map(|r| IssueKey::Reason(*r)).collect();
        keys.sort();
        keys.dedup();
        keys
    }

    /// The reason's name and its step.
    pub fn parts(&self) -> (&'static str, Option<u32>) {
        use crate::cycle::BadReason::*;
        match self {
            IssueKey::Reason(MissedStep { step }) => ("missed_step", Some(*step)),
            IssueKey::Reason(NegativeStep { step }) => ("negative_step", Some(*step)),
            IssueKey::Reason(WrongOrder { step }) => ("wrong_order", Some(*step)),
            IssueKey::Reason(TooLong) => ("too_long", None),
            IssueKey::MarkedBad => ("marked_bad", None),
        }
    }

    /// `missed_step:1`, `too_long`, `marked_bad`…
    pub fn key(&self) -> String {
        match self.parts() {
            (r, Some(step)) => format!("{r}:{step}"),
            (r, None) => r.to_string(),
        }
    }

    /// The key [`IssueKey::key`] wrote, or `None`.
    pub fn parse(s: &str) -> Option<IssueKey> {
        use crate::cycle::BadReason::*;
        let (reason, step) = match s.split_once(':') {
            Some((r, n)) => (r, Some(n.parse::<u32>().ok()?)),
            None => (s, None),
        };
        Some(match (reason, step) {
            ("missed_step", Some(step)) => IssueKey::Reason(MissedStep { step }),
            ("negative_step", Some(step)) => IssueKey::Reason(NegativeStep { step }),
            ("wrong_order", Some(step)) => IssueKey::Reason(WrongOrder { step }),
            ("too_long", None) => IssueKey::Reason(TooLong),
            ("marked_bad", None) => IssueKey::MarkedBad,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cycle::BadReason::*;

    #[test]
    fn issue_keys_round_trip_and_refuse_the_rest() {
        for k in [
            IssueKey::Reason(MissedStep { step: 3 }),
            IssueKey::Reason(NegativeStep { step: 0 }),
            IssueKey::Reason(WrongOrder { step: 12 }),
            IssueKey::Reason(TooLong),
            IssueKey::MarkedBad,
        ] {
            assert_eq!(IssueKey::parse(&k.key()), Some(k));
        }
        for bad in [
            "",
            "missed_step",
            "missed_step:",
            "missed_step:-1",
            "too_long:1",
            "marked_bad:0",
            "late",
            "missed_step:1:2",
        ] {
            assert_eq!(IssueKey::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_bad_cycle_is_in_each_of_its_reasons_once_or_marked_bad() {
        let reasons = [
            MissedStep { step: 2 },
            TooLong,
            MissedStep { step: 2 },
            WrongOrder { step: 1 },
        ];
        let keys: Vec<String> = IssueKey::of(&reasons).iter().map(IssueKey::key).collect();
        assert_eq!(keys, ["missed_step:2", "wrong_order:1", "too_long"]);
        assert_eq!(IssueKey::of(&[]), [IssueKey::MarkedBad]);
    }
}
