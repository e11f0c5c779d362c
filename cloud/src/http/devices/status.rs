//! Whether the organisation's devices are online, when they were last heard, and counts
//! of them and of the cycles they sent today.

use axum::extract::State;
use gemba_shared::Permission;
use gemba_shared::api::v1::device::{Device, DeviceStats, DeviceStatus};

use crate::db::devices::{self, Filter};
use crate::db::now_ms;
use crate::http::devices::lists::list_of;
use crate::http::error::ApiResult;
use crate::http::extract::AuthUser;
use crate::state::AppState;

/// The organisation's active devices that are online now.
#[utoipa::path(get, path = "/device/get_active_devices/", tag = "devices",
    responses((status = 200, body = Vec<Device>), (status = 403)))]
pub async fn active_devices(
    State(state): State<AppState>,
    me: AuthUser,
) -> ApiResult<axum::Json<Vec<Device>>> {
    me.require(Permission::ViewDevices)?;
    let f = Filter {
        org: Some(me.org()?),
        active_only: true,
        online_only: true,
        hide_departmental: true,
        ..Filter::default()
    };
    list_of(&state, &me, f).await
}

/// Online or offline, and when last heard, for each of the organisation's devices.
#[utoipa::path(get, path = "/device/device_status/", tag = "devices",
    responses((status = 200, body = Vec<DeviceStatus>), (status = 403)))]
pub async fn device_status(
    State(state): State<AppState>,
    me: AuthUser,
) -> ApiResult<axum::Json<Vec<DeviceStatus>>> {
    me.require(Permission::ViewDevices)?;
    let f = Filter {
        org: Some(me.org()?),
        ..Filter::default()
    };
    let (rows, _) = devices::list(&state.db, me.user.id, &f, None).await?;
    Ok(axum::Json(
        rows.into_iter()
            .map(|r| DeviceStatus {
                id: r.id,
                display_name: r.display_name,
                online: r.online,
                last_seen: r.last_seen,
            })
            .collect(),
    ))
}

/// Counts of the organisation's devices and of the cycles they sent today.
#[utoipa::path(get, path = "/device/devices_stats/", tag = "devices",
    responses((status = 200, body = DeviceStats), (status = 403)))]
pub async fn devices_stats(
    State(state): State<AppState>,
    me: AuthUser,
) -> ApiResult<axum::Json<DeviceStats>> {
    me.require(Permission::ViewDevices)?;
    let since = now_ms() - 24 * 3600 * 1000;
    Ok(axum::Json(
        devices::stats(&state.db, me.org()?, since).await?,
    ))
}
