//! Telemetry (spec section 7 "Telemetry"): the organisation's cycles as its devices sent
//! them. `GET telemetry/fetch_cycles/v2` lists them with the spec's cycle filter
//! (section 9: all, good or bad cycles), a task, a device, a date range, paging and
//! ordering; `GET telemetry/cycle_stats` answers their figures over a date range (the
//! dashboard's and Analytics'; ours, as the spec names no such call) from the roll-ups.
//! Reading needs `ViewCycles`; another organisation's task or device is refused as
//! unknown.
//!
//! The handlers by sub-area: `cycles` (lists, traces with clips, metadata keys, the
//! slowest 5%), `stats` (a range's figures), `changes` (people's changes to cycles),
//! `issue_center` (bad cycles by reason), `lines` (lines of stations), `tampering`
//! (cameras covered or moved, reviewed); the figures'
//! arithmetic is plain functions in `math`. The parameter checks they share are here.

mod changes;
mod cycles;
pub(crate) mod issue_center;
pub(crate) mod lines;
mod math;
pub(crate) mod stats;
mod tampering;

use gemba_shared::api::v1::PAGE_SIZE;
use gemba_shared::api::v1::telemetry::IssueKey;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::{devices, tasks};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::AuthUser;
use crate::http::videos::list::date_range;
use crate::state::AppState;

/// Most cycles one page holds.
pub const MAX_PAGE_SIZE: i64 = 100;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(changes::patch_cycle))
        .routes(routes!(changes::delete_cycle))
        .routes(routes!(changes::cycle_details))
        .routes(routes!(changes::archive, changes::archived))
        .routes(routes!(changes::restore))
        .routes(routes!(issue_center::issues))
        .routes(routes!(issue_center::review))
        .routes(routes!(issue_center::device_events))
        .routes(routes!(lines::list, lines::create))
        .routes(routes!(lines::get, lines::patch, lines::delete))
        .routes(routes!(lines::line_stats))
        .routes(routes!(lines::traceability))
        .routes(routes!(cycles::fetch_cycles))
        .routes(routes!(cycles::fetch_cycles_post))
        .routes(routes!(cycles::traces))
        .routes(routes!(cycles::traces_v1))
        .routes(routes!(cycles::unique_metadata_keys))
        .routes(routes!(stats::cycle_stats))
        .routes(routes!(cycles::top_five_percentile))
        .routes(routes!(tampering::list))
        .routes(routes!(tampering::review))
}

// ----- parameter checks shared by the handlers ------------------------------------------

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

/// A range both of whose ends are given (as `date_range` reads them), else a 400 on the
/// missing one.
fn closed_range(start: Option<&str>, end: Option<&str>) -> ApiResult<(i64, i64)> {
    let (start, end) = date_range(start, end)?;
    let start =
        start.ok_or_else(|| ApiError::field("datetime_start", "Choose where the range starts."))?;
    let end = end.ok_or_else(|| ApiError::field("datetime_end", "Choose where the range ends."))?;
    Ok((start, end))
}
