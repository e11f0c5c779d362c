//! The issue center (spec section 2 `issue-center`; the spec names the screen, not its
//! calls): `GET telemetry/issues` groups a range's bad cycles by operation and reason
//! (a missed step, a step out of order, a step not to do, over time, or marked bad by a
//! person) with counts, how many nobody reviewed, and a trend; `fetch_cycles/v2?reason=`
//! lists an issue's cycles; `POST telemetry/issues/review` marks an issue's open cycles
//! of a range reviewed, with a note kept in their history. `GET telemetry/device_events`
//! lists the organisation's device health events of a range (issue 30).

use std::collections::BTreeMap;

use axum::extract::State;
use gemba_shared::Permission;
use gemba_shared::api::v1::telemetry::{
    Issue, IssueCenter, IssueKey, REASON_MAX, ReviewIssue, Reviewed,
};
use gemba_shared::cycle::BadReason;
use gemba_shared::validate::Bounded;

use gemba_shared::api::v1::device::DeviceEvent;

use crate::db::analytics::{bucket_start, next_bucket};
use crate::db::camera_events;
use crate::db::issues::{self, Review};
use crate::db::tasks;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Query};
use crate::http::telemetry::stats::{StatsParams, stats_query_of};
use crate::http::telemetry::{closed_range, issue_key, known_ids};
use crate::state::AppState;

/// The bad cycles started in a range (both ends required; `task`, `device`, `bucket` and
/// `utc_offset_minutes` as `cycle_stats` takes them; no `cycle_filter`: issues are bad
/// cycles), grouped by operation and reason, most cycles first.
#[utoipa::path(get, path = "/telemetry/issues", tag = "telemetry", params(StatsParams),
    responses((status = 200, body = IssueCenter), (status = 400), (status = 403)))]
pub async fn issues(
    State(state): State<AppState>,
    me: AuthUser,
    Query(p): Query<StatsParams>,
) -> ApiResult<axum::Json<IssueCenter>> {
    me.require(Permission::ViewCycles)?;
    let org = me.org()?;
    if p.cycle_filter
        .as_deref()
        .is_some_and(|f| !f.trim().is_empty())
    {
        return Err(ApiError::field(
            "cycle_filter",
            "Issues are bad cycles; send no cycle filter.",
        ));
    }
    let q = stats_query_of(&p)?;
    known_ids(&state, &me, org, q.task, q.device).await?;
    let rows = issues::bad_cycles(&state.db, org, q.task, q.device, q.start, q.end).await?;

    let mut buckets = vec![];
    let mut b = bucket_start(q.start, q.width, q.offset_ms);
    while b < q.end {
        buckets.push(b);
        b = next_bucket(b, q.width, q.offset_ms);
    }
    // Per (task, issue): cycles, open, and cycles per bucket.
    let mut groups: BTreeMap<(i64, IssueKey), (i64, i64, Vec<i64>)> = BTreeMap::new();
    let mut open = 0;
    for (task, start_ms, reasons, reviewed) in &rows {
        // Written by ingestion from checked messages.
        let reasons: Vec<BadReason> = serde_json::from_str(reasons).unwrap_or_default();
        let at = bucket_start(*start_ms, q.width, q.offset_ms);
        let slot = buckets.partition_point(|&s| s < at);
        if reviewed.is_none() {
            open += 1;
        }
        for key in IssueKey::of(&reasons) {
            let g = groups
                .entry((*task, key))
                .or_insert_with(|| (0, 0, vec![0; buckets.len()]));
            g.0 += 1;
            if reviewed.is_none() {
                g.1 += 1;
            }
            if let Some(n) = g.2.get_mut(slot) {
                *n += 1;
            }
        }
    }
    // The operations' names and steps.
    let mut names: BTreeMap<i64, Option<(String, Vec<String>)>> = BTreeMap::new();
    for &(task, _) in groups.keys() {
        if let std::collections::btree_map::Entry::Vacant(e) = names.entry(task) {
            let t = tasks::get(&state.db, me.user.id, Some(org), task).await?;
            e.insert(t.map(|t| {
                let s = t.settings();
                (s.task_name.clone(), s.operation().step_names())
            }));
        }
    }
    let mut list: Vec<Issue> = groups
        .into_iter()
        .map(|((task, key), (cycles, open, trend))| {
            let (reason, step) = key.parts();
            let named = names.get(&task).and_then(Option::as_ref);
            Issue {
                task,
                task_name: named.map(|n| n.0.clone()),
                key: key.key(),
                reason: reason.to_string(),
                step,
                step_name: step.and_then(|s| named?.1.get(s as usize).cloned()),
                cycles,
                open,
                trend,
            }
        })
        .collect();
    list.sort_by(|a, b| b.cycles.cmp(&a.cycles).then(a.task.cmp(&b.task)));
    let bucket = p.bucket.as_deref().map(str::trim).filter(|b| !b.is_empty());
    Ok(axum::Json(IssueCenter {
        start_ms: q.start,
        end_ms: q.end,
        bucket: bucket.unwrap_or("day").to_string(),
        buckets,
        bad: rows.len() as i64,
        open,
        issues: list,
    }))
}

/// Mark an issue's open bad cycles of a range reviewed (of one device, when given),
/// with an optional note kept in each one's history; answers how many.
#[utoipa::path(post, path = "/telemetry/issues/review", tag = "telemetry",
    request_body = ReviewIssue,
    responses((status = 200, body = Reviewed), (status = 400), (status = 403)))]
pub async fn review(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<ReviewIssue>,
) -> ApiResult<axum::Json<Reviewed>> {
    req.check_lengths()?;
    me.require(Permission::ManageCycles)?;
    let org = me.org()?;
    let task = req
        .task
        .ok_or_else(|| ApiError::field("task", "Choose an operation."))?;
    let key = issue_key(req.key.as_deref().unwrap_or_default(), "key")?;
    let (start, end) = closed_range(req.datetime_start.as_deref(), req.datetime_end.as_deref())?;
    let note = req.note.as_deref().map(str::trim).unwrap_or_default();
    if note.chars().count() > REASON_MAX {
        return Err(ApiError::field(
            "note",
            format!("Keep the note to {REASON_MAX} characters."),
        ));
    }
    known_ids(&state, &me, org, Some(task), req.device).await?;
    let reviewed = issues::review(
        &state.db,
        &Review {
            org,
            task,
            key,
            device: req.device,
            start,
            end,
            user: me.user.id,
            note,
        },
    )
    .await?;
    Ok(axum::Json(Reviewed { reviewed }))
}

/// `GET telemetry/device_events`'s parameters.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
pub struct DeviceEventsParams {
    /// One device's events.
    pub device: Option<i64>,
    /// Events lasting at or after (required): a date (`YYYY-MM-DD`, UTC) or an RFC 3339
    /// date-time.
    pub datetime_start: Option<String>,
    /// Events started before (required): a date (the whole day counts) or an RFC 3339
    /// date-time.
    pub datetime_end: Option<String>,
}

/// The organisation's device health events (a camera offline, frozen frames, a frame rate
/// under its floor, a model error or unsure, the outbox filling, the disk low) that
/// overlap a range, open ones first, then newest first; at most 500.
#[utoipa::path(get, path = "/telemetry/device_events", tag = "telemetry",
    params(DeviceEventsParams),
    responses((status = 200, body = Vec<DeviceEvent>), (status = 400), (status = 403)))]
pub async fn device_events(
    State(state): State<AppState>,
    me: AuthUser,
    Query(p): Query<DeviceEventsParams>,
) -> ApiResult<axum::Json<Vec<DeviceEvent>>> {
    me.require(Permission::ViewCycles)?;
    let org = me.org()?;
    let (start, end) = closed_range(p.datetime_start.as_deref(), p.datetime_end.as_deref())?;
    known_ids(&state, &me, org, None, p.device).await?;
    Ok(axum::Json(
        camera_events::of_org(&state.db, org, start, end, p.device).await?,
    ))
}
