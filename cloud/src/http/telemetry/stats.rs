//! `telemetry/cycle_stats`: the figures of the organisation's cycles over a date range
//! (the dashboard's and Analytics'), from the roll-ups: all of them, each station's and
//! step's, the cycle-time distribution and a trend.

use std::collections::{BTreeMap, HashMap};

use axum::extract::State;
use gemba_shared::Permission;
use gemba_shared::api::v1::task::TaskSettings;
use gemba_shared::api::v1::telemetry::{
    CycleStats, StationFigures, StepFigures, TimeBin, TrendPoint,
};
use serde::Deserialize;

use crate::db::analytics::{self, StatsQuery, Width};
use crate::db::rollups::{self, Sums};
use crate::db::{devices, tasks};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Query};
use crate::http::telemetry::math::{figures, stddev, target_ms};
use crate::http::telemetry::{closed_range, cycle_filter, known_ids};
use crate::state::AppState;

/// Most trend buckets one answer holds.
pub const MAX_BUCKETS: usize = 2000;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct StatsParams {
    /// One task's cycles.
    pub task: Option<i64>,
    /// One device's cycles.
    pub device: Option<i64>,
    /// Started at or after (required): a date (`YYYY-MM-DD`, UTC) or an RFC 3339
    /// date-time.
    pub datetime_start: Option<String>,
    /// Started before (required): a date (the whole day counts) or an RFC 3339 date-time.
    pub datetime_end: Option<String>,
    /// `all_cycles` (the default), `good_cycles` or `bad_cycles`.
    pub cycle_filter: Option<String>,
    /// The trend's buckets: `hour`, `day` (the default), `week` (Monday to Sunday) or
    /// `month`; at most 2000 in the range.
    pub bucket: Option<String>,
    /// The time zone the trend's buckets follow, in minutes east of UTC (-720 to 840;
    /// default 0).
    pub utc_offset_minutes: Option<i64>,
}

/// The figures of the organisation's cycles started in a date range: all of them, each
/// station's, each step's, the cycle-time distribution and a trend.
#[utoipa::path(get, path = "/telemetry/cycle_stats", tag = "telemetry", params(StatsParams),
    responses((status = 200, body = CycleStats), (status = 400), (status = 403)))]
pub async fn cycle_stats(
    State(state): State<AppState>,
    me: AuthUser,
    Query(p): Query<StatsParams>,
) -> ApiResult<axum::Json<CycleStats>> {
    me.require(Permission::ViewCycles)?;
    let org = me.org()?;
    let q = stats_query_of(&p)?;
    known_ids(&state, &me, org, q.task, q.device).await?;
    let s = analytics::stats(&state.db, org, &q).await?;

    let mut total: Option<Sums> = None;
    let mut good = 0;
    let mut per_station: BTreeMap<(i64, i64), (Option<Sums>, i64)> = BTreeMap::new();
    for (&(task, device, is_good), sums) in &s.stations {
        let e = per_station.entry((task, device)).or_default();
        Sums::add_to(&mut e.0, sums);
        Sums::add_to(&mut total, sums);
        if is_good {
            e.1 += sums.n;
            good += sums.n;
        }
    }
    // The tasks' and devices' names, the tasks' steps and targets.
    let mut task_of: HashMap<i64, Option<TaskSettings>> = HashMap::new();
    for task in s
        .steps
        .keys()
        .map(|k| k.0)
        .chain(per_station.keys().map(|k| k.0))
    {
        if let std::collections::hash_map::Entry::Vacant(e) = task_of.entry(task) {
            let t = tasks::get(&state.db, me.user.id, Some(org), task).await?;
            e.insert(t.map(|t| t.settings()));
        }
    }
    let mut device_name: HashMap<i64, String> = HashMap::new();
    for &(_, device) in per_station.keys() {
        if device != 0
            && !device_name.contains_key(&device)
            && let Some(d) = devices::get(&state.db, me.user.id, Some(org), device).await?
        {
            device_name.insert(device, d.display_name);
        }
    }
    let settings = |task: i64| task_of.get(&task).and_then(Option::as_ref);
    let names: HashMap<i64, Vec<String>> = task_of
        .iter()
        .filter_map(|(&t, s)| Some((t, s.as_ref()?.operation().step_names())))
        .collect();
    let bucket = p.bucket.as_deref().map(str::trim).filter(|b| !b.is_empty());
    Ok(axum::Json(CycleStats {
        start_ms: q.start,
        end_ms: q.end,
        bucket: bucket.unwrap_or("day").to_string(),
        total: figures(total.as_ref(), good),
        stations: per_station
            .into_iter()
            .map(|((task, device), (sums, good))| StationFigures {
                task,
                task_name: settings(task).map(|s| s.task_name.clone()),
                target_ms: settings(task).and_then(target_ms),
                device: (device != 0).then_some(device),
                device_name: device_name.get(&device).cloned(),
                figures: figures(sums.as_ref(), good),
            })
            .collect(),
        steps: s
            .steps
            .iter()
            .map(|(&(task, step), t)| StepFigures {
                task,
                step,
                name: names.get(&task).and_then(|n| n.get(step as usize)).cloned(),
                cycles: t.n,
                avg_ms: t.sum_ms as f64 / t.n as f64,
                stddev_ms: stddev(t.n, t.sum_ms, t.sum_sq),
            })
            .collect(),
        distribution: s
            .bins
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(&bin, &cycles)| {
                let (from_ms, to_ms) = rollups::bin_bounds(bin);
                TimeBin {
                    from_ms,
                    to_ms,
                    cycles,
                }
            })
            .collect(),
        trend: s
            .trend
            .iter()
            .map(|(start_ms, [bad, good])| {
                let mut all = *bad;
                if let Some(g) = good {
                    Sums::add_to(&mut all, g);
                }
                TrendPoint {
                    start_ms: *start_ms,
                    figures: figures(all.as_ref(), good.map_or(0, |g| g.n)),
                }
            })
            .collect(),
    }))
}

pub(super) fn stats_query_of(p: &StatsParams) -> ApiResult<StatsQuery> {
    let (start, end) = closed_range(p.datetime_start.as_deref(), p.datetime_end.as_deref())?;
    let good = cycle_filter(p.cycle_filter.as_deref())?;
    let width = match p.bucket.as_deref().map(str::trim) {
        None | Some("") | Some("day") => Width::Day,
        Some("hour") => Width::Hour,
        Some("week") => Width::Week,
        Some("month") => Width::Month,
        Some(_) => {
            return Err(ApiError::field(
                "bucket",
                "Choose hour, day, week or month.",
            ));
        }
    };
    let offset = p.utc_offset_minutes.unwrap_or(0);
    if !(-720..=840).contains(&offset) {
        return Err(ApiError::field(
            "utc_offset_minutes",
            "Choose a time zone from -720 to 840 minutes east of UTC.",
        ));
    }
    let offset_ms = offset * 60_000;
    if analytics::bucket_count(start, end, width, offset_ms, MAX_BUCKETS) > MAX_BUCKETS {
        return Err(ApiError::field(
            "bucket",
            format!(
                "This range has more than {MAX_BUCKETS} {}s: choose a longer bucket or a \
                 shorter range.",
                p.bucket.as_deref().map_or("day", str::trim)
            ),
        ));
    }
    Ok(StatsQuery {
        task: p.task,
        device: p.device,
        good,
        start,
        end,
        width,
        offset_ms,
    })
}
