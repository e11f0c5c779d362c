//! Schedules (`device/get_schedules`, `device/add_schedules`, `device/schedules/{id}`,
//! issue 29): a task of the organisation run on a device's camera on weekdays (0 =
//! Monday … 6 = Sunday) from a time of day to a later one, in the organisation's time
//! zone. The device keeps them (its configuration) and starts and stops the task itself,
//! so a device offline at the hour still starts on time.
//!
//! A missing, empty or inverted time range is refused with the spec's 'Schedule time is
//! not properly selected!'; two schedules of a camera may not share a weekday and a
//! minute. The check and the write are one transaction that first bumps the device's
//! configuration version (locking the device), so two changes at once cannot both pass.

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::cameras::{
    DeviceSchedule, SCHEDULE_TIME_MESSAGE, ScheduleCreate, SchedulePatch,
};
use gemba_shared::mqtt::v1::{self, MAX_SCHEDULES, check_days, schedules_meet, time_range};
use gemba_shared::validate::Bounded;
use serde::Deserialize;

use crate::db::device_config::{self as cfg, ScheduleRow, ScheduleWrite};
use crate::db::devices::DeviceRow;
use crate::db::{orgs, tasks};
use crate::device_config::{build, fits, send};
use crate::http::devices::blur::check_device_camera;
use crate::http::devices::{find, for_change, record_for_change};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path, Query};
use crate::state::AppState;

/// The weekdays' short names, 0 = Monday.
const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/// A time range: both given, `HH:MM`, the end after the start (else the spec's
/// message, on `start`).
pub fn check_times(start: Option<&str>, end: Option<&str>) -> Result<(String, String), ApiError> {
    let (Some(s), Some(e)) = (start.map(str::trim), end.map(str::trim)) else {
        return Err(ApiError::field("start", SCHEDULE_TIME_MESSAGE));
    };
    time_range(s, e)
        .map(|_| (s.to_string(), e.to_string()))
        .ok_or_else(|| ApiError::field("start", SCHEDULE_TIME_MESSAGE))
}

/// The first of `existing` (but `except`) on `camera` that shares a weekday and a
/// minute with `days` from `start` to `end`.
pub fn clash<'a>(
    existing: &'a [ScheduleRow],
    except: Option<i64>,
    camera: &str,
    days: &[u8],
    start: &str,
    end: &str,
) -> Option<&'a ScheduleRow> {
    existing.iter().find(|s| {
        Some(s.id) != except
            && s.camera == camera
            && schedules_meet(&s.days(), (&s.start_time, &s.end_time), days, (start, end))
    })
}

/// How a refusal names schedule `s`: "Mon, Tue 06:00–14:00".
fn said(s: &ScheduleRow) -> String {
    let days: Vec<&str> = s
        .days()
        .iter()
        .filter_map(|&d| DAYS.get(usize::from(d)).copied())
        .collect();
    format!("{} {}–{}", days.join(", "), s.start_time, s.end_time)
}

async fn answer(
    state: &AppState,
    org: i64,
    rows: Vec<ScheduleRow>,
) -> ApiResult<Vec<DeviceSchedule>> {
    let time_zone = orgs::by_id(&state.db, org)
        .await?
        .map_or_else(|| "UTC".into(), |o| o.time_zone);
    let mut out = Vec::with_capacity(rows.len());
    for s in rows {
        let task_name = tasks::get(&state.db, 0, Some(org), s.task_id)
            .await?
            .map(|t| t.settings().task_name)
            .unwrap_or_default();
        out.push(DeviceSchedule {
            id: s.id,
            device: s.device_id,
            days: s.days(),
            camera: s.camera,
            task: s.task_id,
            task_name,
            start: s.start_time,
            end: s.end_time,
            time_zone: time_zone.clone(),
            created_at: s.created_at,
            updated_at: s.updated_at,
        });
    }
    Ok(out)
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct DeviceQuery {
    pub device: i64,
}

/// The schedules of a device.
#[utoipa::path(get, path = "/device/get_schedules", tag = "devices", params(DeviceQuery),
    responses((status = 200, body = Vec<DeviceSchedule>), (status = 400), (status = 403), (status = 404)))]
pub async fn list(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<DeviceQuery>,
) -> ApiResult<axum::Json<Vec<DeviceSchedule>>> {
    me.require(Permission::ViewDevices)?;
    let row = find(&state, &me, q.device).await?;
    let rows = cfg::schedules(&state.db, row.id).await?;
    Ok(axum::Json(answer(&state, row.organization_id, rows).await?))
}

/// A schedule as it will be: checked whole (camera, task, days, times) before the
/// write's transaction checks it against its neighbours.
struct Checked {
    camera: String,
    task: i64,
    days: Vec<u8>,
    start: String,
    end: String,
}

async fn check(
    state: &AppState,
    row: &DeviceRow,
    camera: &str,
    task: i64,
    days: Vec<u8>,
    times: (Option<&str>, Option<&str>),
    id: Option<i64>,
) -> ApiResult<Checked> {
    // The camera a schedule has keeps working while the device does not list it.
    let camera_known = match id {
        Some(id) => cfg::schedule(&state.db, id)
            .await?
            .is_some_and(|s| s.camera == camera),
        None => false,
    };
    if row.archived {
        return Err(ApiError::non_field(
            "An archived device cannot have schedules.",
        ));
    }
    let camera = check_device_camera(state, row, camera, camera_known).await?;
    let settings = match tasks::get(&state.db, 0, Some(row.organization_id), task).await? {
        Some(t) if !t.settings().is_deleted => t.settings(),
        _ => return Err(ApiError::field("task", "No such task.")),
    };
    check_days(&days).map_err(|m| ApiError::field("days", m))?;
    let (start, end) = check_times(times.0, times.1)?;
    let mut days = days;
    days.sort_unstable();
    fits_with(state, row, id, &camera, &settings, (&days, &start, &end)).await?;
    Ok(Checked {
        camera,
        task,
        days,
        start,
        end,
    })
}

/// The device's configuration with schedule `id` (or a new one) as given still fits in
/// one command (a task's cycle rules are what can grow): a 400 on `task` otherwise.
async fn fits_with(
    state: &AppState,
    row: &DeviceRow,
    id: Option<i64>,
    camera: &str,
    task: &gemba_shared::api::v1::task::TaskSettings,
    (days, start, end): (&[u8], &str, &str),
) -> ApiResult<()> {
    let Some(mut config) = build(state, row.organization_id, row.id).await? else {
        return Err(ApiError::NotFound);
    };
    config.schedules.retain(|s| Some(s.id) != id);
    config.schedules.push(v1::Schedule {
        id: id.unwrap_or(i64::MAX),
        camera: camera.to_string(),
        task: i64::MAX,
        engine: gemba_shared::cycle::EngineConfig::from_task(task),
        days: days.to_vec(),
        start: start.to_string(),
        end: end.to_string(),
    });
    if fits(&config) {
        Ok(())
    } else {
        Err(ApiError::field(
            "task",
            "The device's schedules would be too large to send with this task's rules: \
             remove some of its schedules.",
        ))
    }
}

/// Writes `c` for device `row` (a new schedule, or `id`'s change) in one transaction
/// with the device's configuration version, after checking it against the device's
/// other schedules; sends the device its configuration. Answers the schedule's id.
async fn save(state: &AppState, row: &DeviceRow, id: Option<i64>, c: &Checked) -> ApiResult<i64> {
    let w = ScheduleWrite {
        camera: &c.camera,
        task: c.task,
        days: &c.days,
        start: &c.start,
        end: &c.end,
    };
    let mut tx = state.db.begin_write().await?;
    cfg::bump(&mut tx, row.id).await?;
    let existing = cfg::schedules_in(&mut tx, row.id).await?;
    if let Some(other) = clash(&existing, id, &c.camera, &c.days, &c.start, &c.end) {
        return Err(ApiError::field(
            "days",
            format!(
                "This schedule overlaps another of camera {} ({}).",
                c.camera,
                said(other)
            ),
        ));
    }
    let id = match id {
        Some(id) => {
            cfg::update_schedule(&mut tx, id, &w).await?;
            id
        }
        None => {
            if existing.len() >= MAX_SCHEDULES {
                return Err(ApiError::field(
                    "days",
                    format!("A device has at most {MAX_SCHEDULES} schedules."),
                ));
            }
            cfg::insert_schedule(&mut tx, row.id, &w).await?
        }
    };
    tx.commit().await?;
    send(state, row.organization_id, row.id).await?;
    Ok(id)
}

async fn one(state: &AppState, org: i64, id: i64) -> ApiResult<DeviceSchedule> {
    let row = cfg::schedule(&state.db, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(answer(state, org, vec![row]).await?.remove(0))
}

/// Adds a schedule to a device's camera.
#[utoipa::path(post, path = "/device/add_schedules", tag = "devices",
    request_body = ScheduleCreate,
    responses((status = 201, body = DeviceSchedule), (status = 400), (status = 403), (status = 404)))]
pub async fn create(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<ScheduleCreate>,
) -> ApiResult<(StatusCode, axum::Json<DeviceSchedule>)> {
    req.check_lengths()?;
    let row = for_change(&state, &me, req.device, Permission::OperateDevices).await?;
    let c = check(
        &state,
        &row,
        &req.camera,
        req.task,
        req.days,
        (req.start.as_deref(), req.end.as_deref()),
        None,
    )
    .await?;
    let id = save(&state, &row, None, &c).await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(one(&state, row.organization_id, id).await?),
    ))
}

/// Schedule `id` and its device, for a change by `me` (403 without the permission, 404
/// for another organisation's).
async fn for_schedule(
    state: &AppState,
    me: &AuthUser,
    id: i64,
) -> ApiResult<(ScheduleRow, DeviceRow)> {
    let found = cfg::schedule(&state.db, id).await?;
    record_for_change(state, me, found, |s| s.device_id).await
}

/// Changes schedule `id` (camera, task, weekdays, times).
#[utoipa::path(patch, path = "/device/schedules/{id}", tag = "devices",
    params(("id" = i64, Path)), request_body = SchedulePatch,
    responses((status = 200, body = DeviceSchedule), (status = 400), (status = 403), (status = 404)))]
pub async fn patch(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<SchedulePatch>,
) -> ApiResult<axum::Json<DeviceSchedule>> {
    req.check_lengths()?;
    let (s, row) = for_schedule(&state, &me, id).await?;
    let camera = req.camera.clone().unwrap_or_else(|| s.camera.clone());
    let c = check(
        &state,
        &row,
        &camera,
        req.task.unwrap_or(s.task_id),
        req.days.clone().unwrap_or_else(|| s.days()),
        (
            Some(req.start.as_deref().unwrap_or(&s.start_time)),
            Some(req.end.as_deref().unwrap_or(&s.end_time)),
        ),
        Some(id),
    )
    .await?;
    save(&state, &row, Some(id), &c).await?;
    Ok(axum::Json(one(&state, row.organization_id, id).await?))
}

/// Deletes schedule `id`; the device stops following it.
#[utoipa::path(delete, path = "/device/schedules/{id}", tag = "devices",
    params(("id" = i64, Path)),
    responses((status = 200, body = Msg), (status = 403), (status = 404)))]
pub async fn delete(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Msg>> {
    let (_, row) = for_schedule(&state, &me, id).await?;
    let mut tx = state.db.begin_write().await?;
    cfg::bump(&mut tx, row.id).await?;
    cfg::delete_schedule(&mut tx, id).await?;
    tx.commit().await?;
    send(&state, row.organization_id, row.id).await?;
    Ok(axum::Json(Msg::new("Data deleted successfully!")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: i64, camera: &str, days: &str, start: &str, end: &str) -> ScheduleRow {
        ScheduleRow {
            id,
            device_id: 1,
            camera: camera.into(),
            task_id: 1,
            days: days.into(),
            start_time: start.into(),
            end_time: end.into(),
            created_at: 0,
            updated_at: 0,
        }
    }

    #[test]
    fn a_time_range_needs_both_ends_in_order() {
        assert_eq!(
            check_times(Some(" 06:00"), Some("14:00")).unwrap(),
            ("06:00".into(), "14:00".into())
        );
        for (s, e) in [
            (None, Some("14:00")),
            (Some("06:00"), None),
            (Some(""), Some("14:00")),
            (Some("14:00"), Some("06:00")),
            (Some("06:00"), Some("06:00")),
            (Some("6"), Some("14:00")),
        ] {
            match check_times(s, e) {
                Err(ApiError::Field { field, message }) => {
                    assert_eq!(
                        (field.as_str(), message.as_str()),
                        ("start", SCHEDULE_TIME_MESSAGE)
                    )
                }
                other => panic!("{s:?} {e:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_clash_is_the_same_camera_a_shared_day_and_minute() {
        let existing = vec![
            row(1, "cam0", "[0,1,2]", "06:00", "14:00"),
            row(2, "cam1", "[0]", "00:00", "24:00"),
        ];
        let c = |cam, days: &[u8], s, e, except| {
            clash(&existing, except, cam, days, s, e).map(|r| r.id)
        };
        assert_eq!(c("cam0", &[2], "13:59", "15:00", None), Some(1));
        assert_eq!(c("cam0", &[2], "14:00", "15:00", None), None);
        assert_eq!(c("cam0", &[3], "07:00", "08:00", None), None);
        assert_eq!(c("cam0", &[0], "07:00", "08:00", Some(1)), None);
        assert_eq!(c("cam1", &[0, 6], "12:00", "12:01", None), Some(2));
        assert_eq!(said(&existing[0]), "Mon, Tue, Wed 06:00–14:00");
    }
}
