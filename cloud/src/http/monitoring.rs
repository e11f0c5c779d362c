//! `/api/monitoring/{org}/…` (spec section 7 "Devices": "Two GETs to an external
//! monitoring service for device status and monitoring, keyed by organisation"): the
//! cloud is its own monitoring service, so both read what the devices told it
//! (their statuses and the health events `db::camera_events` keeps).
//!
//! Tenancy: the organisation is in the path; a user other than the super admin may
//! name only the organisation the request acts in, another one (or an unknown one)
//! answers 404.

use std::collections::HashMap;

use axum::extract::{Path, State};
use gemba_shared::Permission;
use gemba_shared::api::v1::device::CameraEvent;
use gemba_shared::api::v1::monitoring::{
    DeviceHealth, DeviceMonitoring, MonitoredDevice, MonitoringStatus,
};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::devices::{self, DeviceRow, Filter};
use crate::db::{camera_events, orgs};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::AuthUser;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(device_status))
        .routes(routes!(device_monitoring))
}

/// The organisation of the path, if `me` may watch its devices.
async fn watched(state: &AppState, me: &AuthUser, raw: &str) -> ApiResult<i64> {
    me.require(Permission::ViewDevices)?;
    let org: i64 = raw.parse().map_err(|_| ApiError::NotFound)?;
    if me.is_admin() {
        orgs::by_id(&state.db, org)
            .await?
            .ok_or(ApiError::NotFound)?;
    } else if me.org != Some(org) {
        return Err(ApiError::NotFound);
    }
    Ok(org)
}

/// The organisation's devices, not archived, by name.
async fn devices_of(state: &AppState, me: &AuthUser, org: i64) -> ApiResult<Vec<DeviceRow>> {
    let f = Filter {
        org: Some(org),
        ..Filter::default()
    };
    Ok(devices::list(&state.db, me.user.id, &f, None).await?.0)
}

fn device(r: &DeviceRow) -> MonitoredDevice {
    MonitoredDevice {
        id: r.id,
        display_name: r.display_name.clone(),
        online: r.online,
        last_seen: r.last_seen,
    }
}

/// The status figures of `rows`.
pub fn status_of(org: i64, rows: &[DeviceRow]) -> MonitoringStatus {
    let devices: Vec<MonitoredDevice> = rows.iter().map(device).collect();
    let online = devices.iter().filter(|d| d.online).count() as i64;
    MonitoringStatus {
        organization: org,
        total: devices.len() as i64,
        online,
        offline: devices.len() as i64 - online,
        devices,
    }
}

/// Each device of `devices` with its open `events` (device, event), the unhealthy
/// first (then as `devices` were ordered); each device's events newest first.
pub fn monitoring_of(
    org: i64,
    devices: Vec<MonitoredDevice>,
    events: Vec<(i64, CameraEvent)>,
) -> DeviceMonitoring {
    let mut by_device: HashMap<i64, Vec<CameraEvent>> = HashMap::new();
    for (d, e) in events {
        by_device.entry(d).or_default().push(e);
    }
    let mut out: Vec<DeviceHealth> = devices
        .into_iter()
        .map(|d| {
            let mut open_events = by_device.remove(&d.id).unwrap_or_default();
            open_events.sort_by_key(|e| std::cmp::Reverse((e.started_at, e.id)));
            DeviceHealth {
                healthy: d.online && open_events.is_empty(),
                id: d.id,
                display_name: d.display_name,
                online: d.online,
                last_seen: d.last_seen,
                open_events,
            }
        })
        .collect();
    // A stable sort keeps the list's order within each group.
    out.sort_by_key(|d| d.healthy);
    DeviceMonitoring {
        organization: org,
        unhealthy: out.iter().filter(|d| !d.healthy).count() as i64,
        devices: out,
    }
}

/// Device status for monitoring: each device of the organisation online or not, when
/// last heard, and the counts.
#[utoipa::path(get, path = "/monitoring/{org}/device_status/", tag = "devices",
    params(("org" = i64, Path, description = "the organisation's id")),
    responses((status = 200, body = MonitoringStatus), (status = 403), (status = 404)))]
pub async fn device_status(
    State(state): State<AppState>,
    me: AuthUser,
    Path(org): Path<String>,
) -> ApiResult<axum::Json<MonitoringStatus>> {
    let org = watched(&state, &me, &org).await?;
    let rows = devices_of(&state, &me, org).await?;
    Ok(axum::Json(status_of(org, &rows)))
}

/// Device monitoring: each device of the organisation with its health events still
/// open (a camera offline, a disk low, a model unsure…), offline or troubled first.
#[utoipa::path(get, path = "/monitoring/{org}/device_monitoring/", tag = "devices",
    params(("org" = i64, Path, description = "the organisation's id")),
    responses((status = 200, body = DeviceMonitoring), (status = 403), (status = 404)))]
pub async fn device_monitoring(
    State(state): State<AppState>,
    me: AuthUser,
    Path(org): Path<String>,
) -> ApiResult<axum::Json<DeviceMonitoring>> {
    let org = watched(&state, &me, &org).await?;
    let rows = devices_of(&state, &me, org).await?;
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let events = camera_events::open_of(&state.db, &ids).await?;
    Ok(axum::Json(monitoring_of(
        org,
        rows.iter().map(device).collect(),
        events,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gemba_shared::api::v1::device::CameraEventKind;

    fn dev(id: i64, online: bool) -> MonitoredDevice {
        MonitoredDevice {
            id,
            display_name: format!("d{id}"),
            online,
            last_seen: Some(id),
        }
    }

    fn event(id: i64, started_at: i64) -> CameraEvent {
        CameraEvent {
            id,
            camera: "cam0".into(),
            kind: CameraEventKind::Offline,
            started_at,
            ended_at: None,
            unsure_share: None,
            brightness: None,
            sure_share: None,
            sure_brightness: None,
            detail: None,
        }
    }

    #[test]
    fn offline_devices_and_open_events_come_first_each_event_newest_first() {
        let m = monitoring_of(
            7,
            vec![dev(1, true), dev(2, true), dev(3, false), dev(4, true)],
            vec![(2, event(10, 100)), (2, event(11, 200)), (9, event(12, 5))],
        );
        assert_eq!(m.organization, 7);
        assert_eq!(m.unhealthy, 2);
        let order: Vec<i64> = m.devices.iter().map(|d| d.id).collect();
        assert_eq!(order, vec![2, 3, 1, 4]);
        let two = &m.devices[0];
        assert!(!two.healthy && two.online);
        let ids: Vec<i64> = two.open_events.iter().map(|e| e.id).collect();
        assert_eq!(ids, vec![11, 10]);
        assert!(m.devices[1].open_events.is_empty() && !m.devices[1].healthy);
        assert!(m.devices[2].healthy);
    }

    #[test]
    fn no_devices_is_healthy_and_empty() {
        let m = monitoring_of(1, vec![], vec![]);
        assert_eq!(m.unhealthy, 0);
        assert!(m.devices.is_empty());
    }
}
