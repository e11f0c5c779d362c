//! Telemetry (spec section 7 "Telemetry"): the organisation's cycles as its devices sent
//! them. `GET telemetry/fetch_cycles/v2` lists them with the spec's cycle filter
//! (section 9: all, good or bad cycles), a task, a device, a date range, paging and
//! ordering. Reading needs `ViewCycles`; another organisation's task or device is refused
//! as unknown.

use axum::extract::State;
use gemba_shared::Permission;
use gemba_shared::api::v1::device::RecentCycle;
use gemba_shared::api::v1::{PAGE_SIZE, Page};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::cycles::{self, CycleQuery};
use crate::db::{devices, tasks};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Query};
use crate::http::videos::date_range;
use crate::state::AppState;

/// Most cycles one page holds.
pub const MAX_PAGE_SIZE: i64 = 100;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(fetch_cycles))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
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
    if let Some(t) = q.task
        && tasks::get(&state.db, me.user.id, Some(org), t)
            .await?
            .is_none()
    {
        return Err(ApiError::field(
            "task",
            "Choose one of this organisation's tasks.",
        ));
    }
    if let Some(d) = q.device
        && devices::get(&state.db, me.user.id, Some(org), d)
            .await?
            .is_none()
    {
        return Err(ApiError::field(
            "device",
            "Choose one of this organisation's devices.",
        ));
    }
    let (results, count) = cycles::page(&state.db, org, &q).await?;
    Ok(axum::Json(Page { results, count }))
}

/// The checked parameters, each bad one named with what to send instead.
fn query_of(p: &CyclesParams) -> ApiResult<CycleQuery> {
    let (start, end) = date_range(p.datetime_start.as_deref(), p.datetime_end.as_deref())?;
    let good = match p.cycle_filter.as_deref().map(str::trim) {
        None | Some("") | Some("all_cycles") => None,
        Some("good_cycles") => Some(true),
        Some("bad_cycles") => Some(false),
        Some(_) => {
            return Err(ApiError::field(
                "cycle_filter",
                "Choose all_cycles, good_cycles or bad_cycles.",
            ));
        }
    };
    let limit = p.page_size.unwrap_or(PAGE_SIZE);
    if !(1..=MAX_PAGE_SIZE).contains(&limit) {
        return Err(ApiError::field(
            "page_size",
            format!("Choose a page size from 1 to {MAX_PAGE_SIZE}."),
        ));
    }
    let offset = match p.page.unwrap_or(1) {
        n if n >= 1 => (n - 1).checked_mul(limit),
        _ => None,
    }
    .ok_or_else(|| ApiError::field("page", "Invalid page."))?;
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
    Ok(CycleQuery {
        task: p.task,
        device: p.device,
        start,
        end,
        good,
        order,
        offset,
        limit,
    })
}
