//! Telemetry (spec section 7 "Telemetry"): the organisation's cycles as its devices sent
//! them. `GET telemetry/fetch_cycles/v2` lists them with the spec's cycle filter
//! (section 9: all, good or bad cycles), a task, a device, a date range, paging and
//! ordering; `GET telemetry/cycle_stats` answers their figures over a date range (the
//! dashboard's and Analytics'; ours, as the spec names no such call) from the roll-ups.
//! Reading needs `ViewCycles`; another organisation's task or device is refused as
//! unknown.

use axum::extract::State;
use gemba_shared::Permission;
use gemba_shared::api::v1::device::RecentCycle;
use gemba_shared::api::v1::{PAGE_SIZE, Page};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use std::collections::{BTreeMap, HashMap};

use gemba_shared::api::v1::task::TaskSettings;
use gemba_shared::api::v1::telemetry::{
    CycleFigures, CycleStats, IssueKey, StationFigures, StepFigures, TimeBin, TopCycles, Trace,
    TrendPoint,
};

use crate::db::analytics::{self, StatsQuery, Width};
use crate::db::cycles::{self, CycleQuery};
use crate::db::rollups::{self, Sums};
use crate::db::{devices, issues, tasks};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Query};
use crate::http::videos::list::date_range;
use crate::state::AppState;

/// Most cycles one page holds.
pub const MAX_PAGE_SIZE: i64 = 100;

mod changes;
mod issue_center;
mod lines;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(changes::patch_cycle))
        .routes(routes!(changes::delete_cycle))
        .routes(routes!(changes::cycle_details))
        .routes(routes!(changes::archive, changes::archived))
        .routes(routes!(changes::restore))
        .routes(routes!(issue_center::issues))
        .routes(routes!(issue_center::review))
        .routes(routes!(lines::list, lines::create))
        .routes(routes!(lines::get, lines::patch, lines::delete))
        .routes(routes!(lines::line_stats))
        .routes(routes!(lines::traceability))
        .routes(routes!(fetch_cycles))
        .routes(routes!(fetch_cycles_post))
        .routes(routes!(traces))
        .routes(routes!(traces_v1))
        .routes(routes!(unique_metadata_keys))
        .routes(routes!(cycle_stats))
        .routes(routes!(top_five_percentile))
}

#[derive(Debug, Deserialize, utoipa::IntoParams, utoipa::ToSchema)]
#[into_params(parameter_in = Query)]
pub struct CyclesParams {
    /// One task's cycles.
    pub task: Option<i64>,
    /// One device's cycles.
    pub device: Option<i64>,
    /// Started at or after: a date (`YYYY-MM-DD`, UTC) or an RFC 3339 date-time.
    pub datetime_start: Option<String>,
    /// Started before: a date (the whole day counts) or an RFC 3339 date-time.
    pub datetime_end: Option<String>,
    /// `all_cycles` (the default), `good_cycles` or `bad_cycles`.
    pub cycle_filter: Option<String>,
    /// 1-based page.
    pub page: Option<i64>,
    /// Cycles a page, 1 to [`MAX_PAGE_SIZE`] (default [`PAGE_SIZE`]).
    pub page_size: Option<i64>,
    /// `-start_ms` (newest first, the default), `start_ms`, `duration` or `-duration`.
    pub ordering: Option<String>,
    /// One issue's cycles (bad ones): its key (`missed_step:1`, `too_long`,
    /// `marked_bad`…; see `telemetry/issues`).
    pub reason: Option<String>,
    /// Reviewed ones only (`true`) or those nobody reviewed (`false`).
    pub reviewed: Option<bool>,
    /// Those whose metadata has this key (see `unique_metadata_keys`)…
    pub metadata_key: Option<String>,
    /// …with this value.
    pub metadata_value: Option<String>,
}

/// The organisation's cycles, a page at a time.
#[utoipa::path(get, path = "/telemetry/fetch_cycles/v2", tag = "telemetry", params(CyclesParams),
    responses((status = 200, body = Page<RecentCycle>), (status = 400), (status = 403)))]
pub async fn fetch_cycles(
    State(state): State<AppState>,
    me: AuthUser,
    Query(p): Query<CyclesParams>,
) -> ApiResult<axum::Json<Page<RecentCycle>>> {
    me.require(Permission::ViewCycles)?;
    let org = me.org()?;
    let q = query_of(&p)?;
    known_ids(&state, &me, org, q.task, q.device).await?;
    let (results, count) = cycles::page(&state.db, org, &q).await?;
    Ok(axum::Json(Page { results, count }))
}

/// The organisation's cycles, a page at a time (`fetch_cycles/v2`'s parameters), each
/// with its video clip when its device sent one.
#[utoipa::path(get, path = "/telemetry/trace/v2", tag = "telemetry", params(CyclesParams),
    responses((status = 200, body = Page<Trace>), (status = 400), (status = 403)))]
pub async fn traces(
    state: State<AppState>,
    me: AuthUser,
    p: Query<CyclesParams>,
) -> ApiResult<axum::Json<Page<Trace>>> {
    me.require(Permission::ViewCycles)?;
    let org = me.org()?;
    let page = fetch_cycles(state.clone(), me, p).await?.0;
    let ids: Vec<String> = page.results.iter().map(|c| c.id.clone()).collect();
    let mut clips: HashMap<String, crate::db::clips::ClipRow> =
        crate::db::clips::of_cycles(&state.db, org, &ids)
            .await?
            .into_iter()
            .map(|c| (c.cycle_id.clone(), c))
            .collect();
    let results = page
        .results
        .into_iter()
        .map(|cycle| {
            let clip = match clips.remove(&cycle.id) {
                Some(c) => Some(crate::http::clips::to_api(&state, &c)?),
                None => None,
            };
            Ok(Trace { cycle, clip })
        })
        .collect::<ApiResult<_>>()?;
    Ok(axum::Json(Page {
        results,
        count: page.count,
    }))
}

/// The spec's first version of `trace/v2`: the same.
#[utoipa::path(get, path = "/telemetry/trace/", tag = "telemetry", params(CyclesParams),
    responses((status = 200, body = Page<Trace>), (status = 400), (status = 403)))]
pub async fn traces_v1(
    state: State<AppState>,
    me: AuthUser,
    p: Query<CyclesParams>,
) -> ApiResult<axum::Json<Page<Trace>>> {
    traces(state, me, p).await
}

/// The organisation's cycles, a page at a time: `fetch_cycles/v2`'s parameters in a JSON
/// body (the spec's first version of the call).
#[utoipa::path(post, path = "/telemetry/fetch_cycles/", tag = "telemetry",
    request_body = CyclesParams,
    responses((status = 200, body = Page<RecentCycle>), (status = 400), (status = 403)))]
pub async fn fetch_cycles_post(
    state: State<AppState>,
    me: AuthUser,
    Json(p): Json<CyclesParams>,
) -> ApiResult<axum::Json<Page<RecentCycle>>> {
    fetch_cycles(state, me, Query(p)).await
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MetadataKeysParams {
    /// One task's cycles.
    pub task: Option<i64>,
}

/// Most metadata keys one answer holds.
pub const MAX_METADATA_KEYS: i64 = 1000;

/// The keys the organisation's cycles carry in their metadata (a barcode read at the
/// station…), sorted: what `fetch_cycles/v2?metadata_key=` filters on.
#[utoipa::path(get, path = "/telemetry/unique_metadata_keys/", tag = "telemetry",
    params(MetadataKeysParams),
    responses((status = 200, body = Vec<String>), (status = 400), (status = 403)))]
pub async fn unique_metadata_keys(
    State(state): State<AppState>,
    me: AuthUser,
    Query(p): Query<MetadataKeysParams>,
) -> ApiResult<axum::Json<Vec<String>>> {
    me.require(Permission::ViewCycles)?;
    let org = me.org()?;
    known_ids(&state, &me, org, p.task, None).await?;
    Ok(axum::Json(
        cycles::metadata_keys(&state.db, org, p.task, MAX_METADATA_KEYS).await?,
    ))
}

/// The slowest 5% of the organisation's cycles that the filters name (a range, a task,
/// a device, the cycle filter; `ordering` is not taken), slowest first, a page at a time.
#[utoipa::path(get, path = "/telemetry/top_five_percentile", tag = "telemetry", params(CyclesParams),
    responses((status = 200, body = TopCycles), (status = 400), (status = 403)))]
pub async fn top_five_percentile(
    State(state): State<AppState>,
    me: AuthUser,
    Query(p): Query<CyclesParams>,
) -> ApiResult<axum::Json<TopCycles>> {
    me.require(Permission::ViewCycles)?;
    let org = me.org()?;
    if p.ordering.as_deref().is_some_and(|o| !o.trim().is_empty()) {
        return Err(ApiError::field(
            "ordering",
            "The slowest cycles come slowest first; send no ordering.",
        ));
    }
    let q = CycleQuery {
        order: "end_ms - start_ms DESC",
        ..query_of(&p)?
    };
    known_ids(&state, &me, org, q.task, q.device).await?;
    let (n, q) = match (q.start, q.end) {
        // Filters the roll-ups keep, over a closed range: the count and a floor under
        // the slowest 5% from the cycle-time bins, so that only the cycles above it are
        // sorted (a year of cycles is read once, not sorted whole three times).
        (Some(start), Some(end))
            if q.reasons.is_none() && q.reviewed.is_none() && q.metadata.is_none() =>
        {
            let bins = analytics::bins(
                &state.db,
                org,
                &StatsQuery {
                    task: q.task,
                    device: q.device,
                    good: q.good,
                    start,
                    end,
                    width: Width::Day,
                    offset_ms: 0,
                },
            )
            .await?;
            let n: i64 = bins.values().sum();
            let floor = slowest_floor(&bins, (n + 19) / 20);
            (
                n,
                CycleQuery {
                    min_ms: Some(floor),
                    ..q
                },
            )
        }
        _ => (cycles::count(&state.db, org, &q).await?, q),
    };
    // 5% rounded up: at least one cycle when there is any.
    let k = (n + 19) / 20;
    let threshold_ms = if k == 0 {
        None
    } else {
        let kth = CycleQuery {
            offset: k - 1,
            limit: 1,
            ..q.clone()
        };
        let kth = cycles::rows(&state.db, org, &kth).await?;
        kth.first().map(|c| c.end_ms - c.start_ms)
    };
    let results = if q.offset < k {
        let window = CycleQuery {
            limit: q.limit.min(k - q.offset),
            ..q.clone()
        };
        cycles::rows(&state.db, org, &window).await?
    } else {
        vec![]
    };
    Ok(axum::Json(TopCycles {
        threshold_ms,
        count: k,
        cycles: n,
        results,
    }))
}

/// The lower edge of the cycle-time bin holding the `k`-th slowest of the cycles
/// counted in `bins`: every one of the `k` slowest is at least that long.
fn slowest_floor(bins: &BTreeMap<i64, i64>, k: i64) -> i64 {
    let mut seen = 0;
    for (bin, n) in bins.iter().rev() {
        seen += n;
        if seen >= k {
            return rollups::bin_bounds(*bin).0;
        }
    }
    0
}

/// Refuses a task or device that is not one of the organisation's, as unknown.
async fn known_ids(
    state: &AppState,
    me: &AuthUser,
    org: i64,
    task: Option<i64>,
    device: Option<i64>,
) -> ApiResult<()> {
    if let Some(t) = task
        && tasks::get(&state.db, me.user.id, Some(org), t)
            .await?
            .is_none()
    {
        return Err(ApiError::field(
            "task",
            "Choose one of this organisation's tasks.",
        ));
    }
    if let Some(d) = device
        && devices::get(&state.db, me.user.id, Some(org), d)
            .await?
            .is_none()
    {
        return Err(ApiError::field(
            "device",
            "Choose one of this organisation's devices.",
        ));
    }
    Ok(())
}

/// The spec's cycle filter (section 9): good ones only, bad ones only, or all.
fn cycle_filter(f: Option<&str>) -> ApiResult<Option<bool>> {
    match f.map(str::trim) {
        None | Some("") | Some("all_cycles") => Ok(None),
        Some("good_cycles") => Ok(Some(true)),
        Some("bad_cycles") => Ok(Some(false)),
        Some(_) => Err(ApiError::field(
            "cycle_filter",
            "Choose all_cycles, good_cycles or bad_cycles.",
        )),
    }
}

/// An issue's key ([`IssueKey::key`]), else a 400 on `field`.
fn issue_key(k: &str, field: &str) -> ApiResult<IssueKey> {
    IssueKey::parse(k.trim()).ok_or_else(|| {
        ApiError::field(
            field,
            "Choose an issue: missed_step:N, negative_step:N, wrong_order:N (N a step), \
             too_long or marked_bad.",
        )
    })
}

/// The checked parameters, each bad one named with what to send instead.
fn query_of(p: &CyclesParams) -> ApiResult<CycleQuery> {
    let (start, end) = date_range(p.datetime_start.as_deref(), p.datetime_end.as_deref())?;
    let good = cycle_filter(p.cycle_filter.as_deref())?;
    let (offset, limit) = paging(p.page, p.page_size)?;
    let order = match p.ordering.as_deref().map(str::trim) {
        None | Some("") | Some("-start_ms") => "start_ms DESC",
        Some("start_ms") => "start_ms",
        Some("duration") => "end_ms - start_ms",
        Some("-duration") => "end_ms - start_ms DESC",
        Some(_) => {
            return Err(ApiError::field(
                "ordering",
                "Order by start_ms, -start_ms, duration or -duration.",
            ));
        }
    };
    // An issue's cycles are bad ones (a good cycle keeps the reasons its device gave).
    let (reasons, good) = match p.reason.as_deref().map(str::trim).filter(|r| !r.is_empty()) {
        None => (None, good),
        Some(_) if good == Some(true) => {
            return Err(ApiError::field(
                "cycle_filter",
                "An issue's cycles are bad ones: choose bad_cycles or all_cycles.",
            ));
        }
        Some(r) => (
            Some(issues::reasons_pattern(&issue_key(r, "reason")?)),
            Some(false),
        ),
    };
    let key = p.metadata_key.as_deref().filter(|k| !k.is_empty());
    let value = p.metadata_value.as_deref();
    if key.is_some_and(|k| k.chars().count() > 100) {
        return Err(ApiError::field(
            "metadata_key",
            "A metadata key has at most 100 characters.",
        ));
    }
    if value.is_some_and(|v| v.chars().count() > 1000) {
        return Err(ApiError::field(
            "metadata_value",
            "A metadata value has at most 1000 characters.",
        ));
    }
    if key.is_none() && value.is_some() {
        return Err(ApiError::field(
            "metadata_key",
            "Name the metadata key the value is of.",
        ));
    }
    Ok(CycleQuery {
        task: p.task,
        device: p.device,
        start,
        end,
        good,
        reasons,
        reviewed: p.reviewed,
        metadata: key.map(|k| cycles::metadata_patterns(k, value)),
        min_ms: None,
        order,
        offset,
        limit,
    })
}

/// A 1-based page of 1 to [`MAX_PAGE_SIZE`] rows (default [`PAGE_SIZE`]) as (offset,
/// limit).
fn paging(page: Option<i64>, page_size: Option<i64>) -> ApiResult<(i64, i64)> {
    let limit = page_size.unwrap_or(PAGE_SIZE);
    if !(1..=MAX_PAGE_SIZE).contains(&limit) {
        return Err(ApiError::field(
            "page_size",
            format!("Choose a page size from 1 to {MAX_PAGE_SIZE}."),
        ));
    }
    let offset = match page.unwrap_or(1) {
        n if n >= 1 => (n - 1).checked_mul(limit),
        _ => None,
    }
    .ok_or_else(|| ApiError::field("page", "Invalid page."))?;
    Ok((offset, limit))
}

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

/// An operation's target cycle time (ms): `stepsAvgTime.cycle_time`, in seconds.
fn target_ms(s: &TaskSettings) -> Option<f64> {
    s.steps_avg_time
        .get("cycle_time")
        .and_then(serde_json::Value::as_f64)
        .filter(|v| *v > 0.0)
        .map(|v| v * 1000.0)
}

/// Population standard deviation from a count, a sum and a sum of squares.
fn stddev(n: i64, sum: i64, sum_sq: f64) -> f64 {
    let mean = sum as f64 / n as f64;
    (sum_sq / n as f64 - mean * mean).max(0.0).sqrt()
}

fn figures(s: Option<&Sums>, good: i64) -> CycleFigures {
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

/// A range both of whose ends are given (as `date_range` reads them), else a 400 on the
/// missing one.
fn closed_range(start: Option<&str>, end: Option<&str>) -> ApiResult<(i64, i64)> {
    let (start, end) = date_range(start, end)?;
    let start =
        start.ok_or_else(|| ApiError::field("datetime_start", "Choose where the range starts."))?;
    let end = end.ok_or_else(|| ApiError::field("datetime_end", "Choose where the range ends."))?;
    Ok((start, end))
}

fn stats_query_of(p: &StatsParams) -> ApiResult<StatsQuery> {
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
