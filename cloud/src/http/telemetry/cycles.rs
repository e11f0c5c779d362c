//! The organisation's cycles: `fetch_cycles/v2` (and its first version, a POST) with
//! the spec's cycle filter, a task, a device, dates, an issue, metadata, paging and
//! ordering; traces (each cycle with its clip); the metadata keys cycles carry; and the
//! slowest 5% (`top_five_percentile`).

use std::collections::HashMap;

use axum::extract::State;
use gemba_shared::Permission;
use gemba_shared::api::v1::Page;
use gemba_shared::api::v1::device::RecentCycle;
use gemba_shared::api::v1::telemetry::{TopCycles, Trace};
use serde::Deserialize;

use crate::db::analytics::{self, StatsQuery, Width};
use crate::db::cycles::{self, CycleQuery};
use crate::db::issues;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Query};
use crate::http::telemetry::math::slowest_floor;
use crate::http::telemetry::{cycle_filter, issue_key, known_ids, paging};
use crate::http::videos::list::date_range;
use crate::media::urls::Viewer;
use crate::state::AppState;

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
    let session = me.session.clone();
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
                Some(c) => Some(crate::http::clips::to_api(
                    &state,
                    Viewer::Session(&session),
                    &c,
                )?),
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
