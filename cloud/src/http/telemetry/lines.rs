//! Lines (spec section 7 `telemetry/trace/line/{id}`, `trace/line_traceability/`; the
//! list, the create and `line_stats` are ours): an organisation's production lines, each
//! an ordered set of stations (a task on a device) with a takt time; a line's figures
//! over a range (each station's from the roll-ups, the bottleneck, output, balance); and
//! a part traced along a line by time. Reading needs `ViewCycles`, changing
//! `ManageLines`; another organisation's line is unknown (404).

use std::collections::HashSet;

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::line::{
    LINE_NAME_MAX, Line, LineBody, LineStation, LineStationFigures, LineStats, LineTrace,
    STATIONS_MAX, Station, TAKT_MAX_S, TracedStation,
};
use gemba_shared::validate::Bounded;
use serde::Deserialize;

use crate::db::analytics::{self, StatsQuery, Width};
use crate::db::lines::{self, LineRow};
use crate::db::rollups::Sums;
use crate::db::{cycles, devices, tasks};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path, Query};
use crate::http::telemetry::math::figures;
use crate::http::telemetry::{closed_range, known_ids};
use crate::state::AppState;

/// A line's stations with their names.
async fn named(state: &AppState, me: &AuthUser, l: &LineRow) -> ApiResult<Vec<LineStation>> {
    let mut out = Vec::with_capacity(l.stations.len());
    for s in &l.stations {
        let task = tasks::get(&state.db, me.user.id, Some(l.org), s.task).await?;
        let device = devices::get(&state.db, me.user.id, Some(l.org), s.device).await?;
        out.push(LineStation {
            task: s.task,
            task_name: task.map(|t| t.settings().task_name),
            device: s.device,
            device_name: device.map(|d| d.display_name),
        });
    }
    Ok(out)
}

async fn to_api(state: &AppState, me: &AuthUser, l: &LineRow) -> ApiResult<Line> {
    Ok(Line {
        id: l.id,
        name: l.name.clone(),
        takt_time_s: l.takt_ms.map(|ms| ms as f64 / 1000.0),
        stations: named(state, me, l).await?,
        created_at_ms: l.created_at,
        updated_at_ms: l.updated_at,
    })
}

async fn find(state: &AppState, org: i64, id: i64) -> ApiResult<LineRow> {
    lines::get(&state.db, org, id)
        .await?
        .ok_or(ApiError::NotFound)
}

fn name_of(n: &str) -> ApiResult<String> {
    let n = n.trim();
    if n.is_empty() || n.chars().count() > LINE_NAME_MAX {
        return Err(ApiError::field(
            "name",
            format!("Name the line in 1 to {LINE_NAME_MAX} characters."),
        ));
    }
    Ok(n.to_string())
}

/// A takt time in seconds as stored (ms); 0 or none is none.
fn takt_of(t: Option<f64>) -> ApiResult<Option<i64>> {
    match t {
        None => Ok(None),
        Some(0.0) => Ok(None),
        Some(t) if t.is_finite() && t > 0.0 && t <= TAKT_MAX_S => {
            Ok(Some((t * 1000.0).round() as i64))
        }
        Some(_) => Err(ApiError::field(
            "takt_time_s",
            "The takt time is in seconds, from 0 (none) to 86400.",
        )),
    }
}

/// Checks a line's stations: 1 to [`STATIONS_MAX`], each once, each task and device the
/// organisation's.
async fn check_stations(
    state: &AppState,
    me: &AuthUser,
    org: i64,
    stations: &[Station],
) -> ApiResult<()> {
    if stations.is_empty() || stations.len() > STATIONS_MAX {
        return Err(ApiError::field(
            "stations",
            format!("A line has 1 to {STATIONS_MAX} stations."),
        ));
    }
    let mut seen = HashSet::new();
    for (i, s) in stations.iter().enumerate() {
        if !seen.insert(*s) {
            return Err(ApiError::field(
                "stations",
                format!("Station {} is on the line twice.", i + 1),
            ));
        }
        known_ids(state, me, org, Some(s.task), Some(s.device))
            .await
            .map_err(|_| {
                ApiError::field(
                    "stations",
                    format!(
                        "Station {}: choose one of the organisation's operations and devices.",
                        i + 1
                    ),
                )
            })?;
    }
    Ok(())
}

/// The organisation's lines, by name.
#[utoipa::path(get, path = "/telemetry/trace/line/", tag = "telemetry",
    responses((status = 200, body = Vec<Line>), (status = 403)))]
pub async fn list(State(state): State<AppState>, me: AuthUser) -> ApiResult<axum::Json<Vec<Line>>> {
    me.require(Permission::ViewCycles)?;
    let org = me.org()?;
    let mut out = vec![];
    for l in lines::list(&state.db, org).await? {
        out.push(to_api(&state, &me, &l).await?);
    }
    Ok(axum::Json(out))
}

/// A new line: its name, takt time and stations in the order a part passes them.
#[utoipa::path(post, path = "/telemetry/trace/line/", tag = "telemetry",
    request_body = LineBody,
    responses((status = 201, body = Line), (status = 400), (status = 403)))]
pub async fn create(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<LineBody>,
) -> ApiResult<(StatusCode, axum::Json<Line>)> {
    req.check_lengths()?;
    me.require(Permission::ManageLines)?;
    let org = me.org()?;
    let name = name_of(req.name.as_deref().unwrap_or_default())?;
    let takt = takt_of(req.takt_time_s)?;
    let stations = req.stations.unwrap_or_default();
    check_stations(&state, &me, org, &stations).await?;
    let id = lines::create(&state.db, org, &name, takt, &stations)
        .await
        .map_err(|e| ApiError::unique_as(e, "name", "A line with this name exists already."))?;
    let l = find(&state, org, id).await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(to_api(&state, &me, &l).await?),
    ))
}

/// Line `id`.
#[utoipa::path(get, path = "/telemetry/trace/line/{id}", tag = "telemetry",
    params(("id" = i64, Path)),
    responses((status = 200, body = Line), (status = 403), (status = 404)))]
pub async fn get(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Line>> {
    me.require(Permission::ViewCycles)?;
    let l = find(&state, me.org()?, id).await?;
    Ok(axum::Json(to_api(&state, &me, &l).await?))
}

/// Change line `id`: what the body names (`takt_time_s: 0` removes the takt time).
#[utoipa::path(patch, path = "/telemetry/trace/line/{id}", tag = "telemetry",
    params(("id" = i64, Path)), request_body = LineBody,
    responses((status = 200, body = Line), (status = 400), (status = 403), (status = 404)))]
pub async fn patch(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<LineBody>,
) -> ApiResult<axum::Json<Line>> {
    req.check_lengths()?;
    me.require(Permission::ManageLines)?;
    let org = me.org()?;
    let mut l = find(&state, org, id).await?;
    if let Some(n) = req.name.as_deref() {
        l.name = name_of(n)?;
    }
    if req.takt_time_s.is_some() {
        l.takt_ms = takt_of(req.takt_time_s)?;
    }
    if let Some(s) = req.stations {
        check_stations(&state, &me, org, &s).await?;
        l.stations = s;
    }
    lines::update(&state.db, &l)
        .await
        .map_err(|e| ApiError::unique_as(e, "name", "A line with this name exists already."))?;
    let l = find(&state, org, id).await?;
    Ok(axum::Json(to_api(&state, &me, &l).await?))
}

/// Delete line `id` (its stations' cycles stay).
#[utoipa::path(delete, path = "/telemetry/trace/line/{id}", tag = "telemetry",
    params(("id" = i64, Path)),
    responses((status = 204), (status = 403), (status = 404)))]
pub async fn delete(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    me.require(Permission::ManageLines)?;
    if !lines::delete(&state.db, me.org()?, id).await? {
        return Err(ApiError::NotFound);
    }
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LineStatsParams {
    /// The line.
    pub line: Option<i64>,
    /// Started at or after (required): a date (`YYYY-MM-DD`, UTC) or an RFC 3339
    /// date-time.
    pub datetime_start: Option<String>,
    /// Started before (required): a date (the whole day counts) or an RFC 3339 date-time.
    pub datetime_end: Option<String>,
}

fn line_param(line: Option<i64>) -> ApiResult<i64> {
    line.ok_or_else(|| ApiError::field("line", "Choose a line."))
}

/// A line's stations over a range: each one's figures (from the roll-ups), the
/// bottleneck, the parts finished and the balance.
#[utoipa::path(get, path = "/telemetry/line_stats", tag = "telemetry", params(LineStatsParams),
    responses((status = 200, body = LineStats), (status = 400), (status = 403), (status = 404)))]
pub async fn line_stats(
    State(state): State<AppState>,
    me: AuthUser,
    Query(p): Query<LineStatsParams>,
) -> ApiResult<axum::Json<LineStats>> {
    me.require(Permission::ViewCycles)?;
    let org = me.org()?;
    let id = line_param(p.line)?;
    let (start, end) = closed_range(p.datetime_start.as_deref(), p.datetime_end.as_deref())?;
    let l = find(&state, org, id).await?;
    let names = named(&state, &me, &l).await?;
    // One read of every station's figures (the roll-ups grouped by task and device),
    // then the line's: 20 reads, one a station, took a year 1.8 s on PostgreSQL.
    let q = StatsQuery {
        task: None,
        device: None,
        good: None,
        start,
        end,
        // One bucket: the trend is not read.
        width: Width::Month,
        offset_ms: 0,
    };
    let st = analytics::stats(&state.db, org, &q).await?;
    let mut stations = Vec::with_capacity(names.len());
    for (position, (s, station)) in l.stations.iter().zip(names).enumerate() {
        let mut all: Option<Sums> = None;
        let mut good = 0;
        for (&(task, device, is_good), sums) in &st.stations {
            if task == s.task && device == s.device {
                Sums::add_to(&mut all, sums);
                if is_good {
                    good += sums.n;
                }
            }
        }
        stations.push(LineStationFigures {
            position,
            station,
            figures: figures(all.as_ref(), good),
        });
    }
    let avg = |s: &LineStationFigures| s.figures.avg_ms;
    // The slowest station; on a tie, the first of them.
    let bottleneck = stations
        .iter()
        .filter_map(|s| Some((s.position, avg(s)?)))
        .fold(None, |best: Option<(usize, f64)>, (p, a)| match best {
            Some((_, b)) if b >= a => best,
            _ => Some((p, a)),
        })
        .map(|(p, _)| p);
    let output = stations.last().map_or(0, |s| s.figures.good);
    let balance = match (
        bottleneck,
        stations.iter().map(avg).collect::<Option<Vec<f64>>>(),
    ) {
        (Some(b), Some(avgs)) => {
            let most = avgs[b];
            (most > 0.0).then(|| avgs.iter().sum::<f64>() / (avgs.len() as f64 * most))
        }
        _ => None,
    };
    let capacity_per_hour = bottleneck
        .and_then(|b| avg(&stations[b]))
        .filter(|a| *a > 0.0)
        .map(|a| 3_600_000.0 / a);
    Ok(axum::Json(LineStats {
        line: l.id,
        start_ms: start,
        end_ms: end,
        takt_time_s: l.takt_ms.map(|ms| ms as f64 / 1000.0),
        stations,
        bottleneck,
        output,
        capacity_per_hour,
        balance,
    }))
}

/// The metadata key a barcode read at a station is sent under.
pub const BARCODE: &str = "barcode";

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TraceParams {
    /// The line.
    pub line: Option<i64>,
    /// A cycle of one of the line's stations.
    pub cycle_id: Option<String>,
    /// `time` (the default) or `barcode` (the cycle's barcode, at every station).
    pub by: Option<String>,
}

/// Where the part a cycle worked on was at each station of a line, by time: each later
/// station's first cycle starting once the previous one ended, each earlier station's
/// last cycle ending before the next one started.
#[utoipa::path(get, path = "/telemetry/trace/line_traceability/", tag = "telemetry",
    params(TraceParams),
    responses((status = 200, body = LineTrace), (status = 400), (status = 403), (status = 404)))]
pub async fn traceability(
    State(state): State<AppState>,
    me: AuthUser,
    Query(p): Query<TraceParams>,
) -> ApiResult<axum::Json<LineTrace>> {
    me.require(Permission::ViewCycles)?;
    let org = me.org()?;
    let l = find(&state, org, line_param(p.line)?).await?;
    let id = p
        .cycle_id
        .filter(|c| !c.trim().is_empty())
        .ok_or_else(|| ApiError::field("cycle_id", "Choose a cycle."))?;
    let by_barcode = match p.by.as_deref().map(str::trim) {
        None | Some("") | Some("time") => false,
        Some("barcode") => true,
        Some(_) => return Err(ApiError::field("by", "Trace by time or by barcode.")),
    };
    let details = crate::db::cycle_changes::details(&state.db, Some(org), &id)
        .await?
        .filter(|d| d.archived_at_ms.is_none())
        .ok_or(ApiError::NotFound)?;
    let barcode = match (by_barcode, details.metadata.get(BARCODE)) {
        (false, _) => None,
        (true, Some(b)) => Some(b.clone()),
        (true, None) => {
            return Err(ApiError::field(
                "by",
                "The cycle carries no barcode: trace it by time.",
            ));
        }
    };
    let cycle = details.cycle;
    let position = l
        .stations
        .iter()
        .position(|s| Some(s.device) == cycle.device && s.task == cycle.task)
        .ok_or_else(|| {
            ApiError::field(
                "cycle_id",
                "The cycle is not of one of the line's stations.",
            )
        })?;
    let mut found: Vec<Option<gemba_shared::api::v1::device::RecentCycle>> =
        vec![None; l.stations.len()];
    let cycle_start = cycle.start_ms;
    found[position] = Some(cycle);
    if let Some(code) = &barcode {
        let patterns = cycles::metadata_patterns(BARCODE, Some(code));
        for (i, s) in l.stations.iter().enumerate() {
            if i != position {
                found[i] = lines::nearest_with(&state.db, org, *s, &patterns, cycle_start)
                    .await?
                    .map(cycles::to_api);
            }
        }
    }
    for i in (position + 1..l.stations.len()).filter(|_| barcode.is_none()) {
        let Some(prev) = &found[i - 1] else { break };
        found[i] = lines::neighbour(&state.db, org, l.stations[i], prev.end_ms, true)
            .await?
            .map(cycles::to_api);
    }
    for i in (0..position).rev().filter(|_| barcode.is_none()) {
        let Some(next) = &found[i + 1] else { break };
        found[i] = lines::neighbour(&state.db, org, l.stations[i], next.start_ms, false)
            .await?
            .map(cycles::to_api);
    }
    let names = named(&state, &me, &l).await?;
    Ok(axum::Json(LineTrace {
        line: l.id,
        cycle_id: id,
        by: if barcode.is_some() { "barcode" } else { "time" }.into(),
        barcode,
        position,
        stations: names
            .into_iter()
            .zip(found)
            .enumerate()
            .map(|(position, (station, cycle))| TracedStation {
                position,
                station,
                cycle,
            })
            .collect(),
    }))
}
