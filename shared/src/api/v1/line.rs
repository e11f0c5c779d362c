//! Lines (issue 7; spec section 2 `line`, `line-analytics`, `line-visibility` and
//! section 7 `telemetry/trace/line/{id}`, `trace/line_traceability/`): a production line
//! is an ordered set of stations, each a task on a device, that a part passes through
//! from the first to the last.

use serde::{Deserialize, Serialize};

use super::device::RecentCycle;
use super::telemetry::CycleFigures;

/// The most stations a line holds.
pub const STATIONS_MAX: usize = 20;
/// The longest line name.
pub const LINE_NAME_MAX: usize = crate::validate::MAX_NAME_CHARS;
/// The longest takt time, in seconds (a day).
pub const TAKT_MAX_S: f64 = 86_400.0;

/// A station as a line names it: a task on a device.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Station {
    pub task: i64,
    pub device: i64,
}

/// `POST telemetry/trace/line/` (all of it) and `PATCH telemetry/trace/line/{id}` (what
/// changes).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(deny_unknown_fields)]
pub struct LineBody {
    /// 1 to [`LINE_NAME_MAX`] characters, unique in the organisation.
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub name: Option<String>,
    /// The takt time in seconds (at most a day); 0 or `null` for none (on a change,
    /// `null` leaves it as it is and 0 removes it).
    pub takt_time_s: Option<f64>,
    /// 1 to [`STATIONS_MAX`] stations in the order a part passes them, each once.
    pub stations: Option<Vec<Station>>,
}

/// A station of a line, with names.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LineStation {
    pub task: i64,
    /// `null` once the task or device is gone.
    pub task_name: Option<String>,
    pub device: i64,
    pub device_name: Option<String>,
}

/// A line.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Line {
    pub id: i64,
    pub name: String,
    pub takt_time_s: Option<f64>,
    pub stations: Vec<LineStation>,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}

/// A station's figures over a range.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LineStationFigures {
    /// 0 for the first station.
    pub position: usize,
    #[serde(flatten)]
    pub station: LineStation,
    pub figures: CycleFigures,
}

/// The answer of `GET telemetry/line_stats`: a line's stations over a range.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LineStats {
    pub line: i64,
    pub start_ms: i64,
    pub end_ms: i64,
    pub takt_time_s: Option<f64>,
    pub stations: Vec<LineStationFigures>,
    /// The station with the longest mean cycle time (the line's pace; on a tie, the
    /// first of them), if any worked.
    pub bottleneck: Option<usize>,
    /// Good cycles of the last station: parts the line finished.
    pub output: i64,
    /// Parts an hour the line makes at its bottleneck's pace (an hour over the
    /// bottleneck's mean cycle time), if any station worked.
    pub capacity_per_hour: Option<f64>,
    /// The stations' mean cycle times summed over (stations × the bottleneck's): 1 when
    /// the work is spread evenly; `null` unless every station worked.
    pub balance: Option<f64>,
}

/// A station's cycle for the part a traced cycle made, if the line's times show one.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TracedStation {
    pub position: usize,
    #[serde(flatten)]
    pub station: LineStation,
    pub cycle: Option<RecentCycle>,
}

/// The answer of `GET telemetry/trace/line_traceability/`: where a part was at each
/// station of a line, by time: from the traced cycle, each later station's first cycle
/// starting once the one before ended, and each earlier station's last cycle ending
/// before the one after started.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LineTrace {
    pub line: i64,
    pub cycle_id: String,
    /// How the part was followed: `time`, or `barcode` (each station's cycle with the
    /// traced cycle's barcode, the one nearest in time).
    pub by: String,
    /// The barcode followed (`by` = `barcode`).
    pub barcode: Option<String>,
    /// The traced cycle's station.
    pub position: usize,
    pub stations: Vec<TracedStation>,
}
