//! Devices' settings: read (one device's, the organisation's), replaced for one device
//! or merged into all of an organisation's, and sent to the devices.

use axum::extract::State;
use gemba_shared::Permission;
use gemba_shared::api::v1::cameras::{
    MAX_SCREENSHOT_INTERVAL_SECS, MIN_SCREENSHOT_INTERVAL_SECS, SCREENSHOT_INTERVAL_SETTING,
};
use gemba_shared::api::v1::device::DeviceSettings;
use gemba_shared::api::v1::stream::ServerEvent;
use gemba_shared::mqtt::v1::Command;
use serde_json::Value;

use crate::db::devices::{self, Change, DeviceRow, Filter};
use crate::events::OrgEvent;
use crate::http::devices::{find, for_change, may_change, own_org, send_command};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path};
use crate::state::AppState;

/// Largest settings object, serialised.
const MAX_SETTINGS_BYTES: usize = 16 * 1024;

/// Checks a settings object; answers it serialised.
fn check_settings(m: &serde_json::Map<String, Value>) -> ApiResult<String> {
    let json = serde_json::to_string(m).expect("settings serialise");
    if json.len() > MAX_SETTINGS_BYTES || m.keys().any(|k| k.is_empty() || k.len() > 100) {
        return Err(ApiError::field(
            "settings",
            format!(
                "Settings must be at most {MAX_SETTINGS_BYTES} bytes, with keys of 1 to 100 characters."
            ),
        ));
    }
    // Screenshots at intervals (issue 29): seconds between two, 0 off.
    if let Some(v) = m.get(SCREENSHOT_INTERVAL_SETTING) {
        let ok = v.as_i64().is_some_and(|s| {
            s == 0 || (MIN_SCREENSHOT_INTERVAL_SECS..=MAX_SCREENSHOT_INTERVAL_SECS).contains(&s)
        });
        if !ok {
            return Err(ApiError::field(
                "settings",
                format!(
                    "{SCREENSHOT_INTERVAL_SETTING} is 0 (off) or {MIN_SCREENSHOT_INTERVAL_SECS} \
                     to {MAX_SCREENSHOT_INTERVAL_SECS} seconds."
                ),
            ));
        }
    }
    Ok(json)
}

fn settings_of(rows: Vec<DeviceRow>) -> Vec<DeviceSettings> {
    rows.into_iter()
        .map(|r| DeviceSettings {
            id: r.id,
            display_name: r.display_name,
            settings: serde_json::from_str(&r.settings).unwrap_or_else(|_| serde_json::json!({})),
        })
        .collect()
}

async fn org_settings(
    state: &AppState,
    me: &AuthUser,
) -> ApiResult<axum::Json<Vec<DeviceSettings>>> {
    me.require(Permission::ViewDevices)?;
    let f = Filter {
        org: Some(me.org()?),
        ..Filter::default()
    };
    let (rows, _) = devices::list(&state.db, me.user.id, &f, None).await?;
    Ok(axum::Json(settings_of(rows)))
}

/// The settings of the organisation's devices.
#[utoipa::path(get, path = "/device/device_setting/", tag = "devices",
    responses((status = 200, body = Vec<DeviceSettings>), (status = 403)))]
pub async fn device_setting(
    State(state): State<AppState>,
    me: AuthUser,
) -> ApiResult<axum::Json<Vec<DeviceSettings>>> {
    org_settings(&state, &me).await
}

/// The same as `device/device_setting/`.
#[utoipa::path(get, path = "/device/multi_device_settings/", tag = "devices",
    responses((status = 200, body = Vec<DeviceSettings>), (status = 403)))]
pub async fn multi_device_settings(
    State(state): State<AppState>,
    me: AuthUser,
) -> ApiResult<axum::Json<Vec<DeviceSettings>>> {
    org_settings(&state, &me).await
}

/// Device `id`'s settings, of organisation `org`.
#[utoipa::path(get, path = "/device/{org}/device_settings/{id}/", tag = "devices",
    params(("org" = i64, Path), ("id" = i64, Path)),
    responses((status = 200, body = DeviceSettings), (status = 403), (status = 404)))]
pub async fn device_settings(
    State(state): State<AppState>,
    me: AuthUser,
    Path((org, id)): Path<(i64, i64)>,
) -> ApiResult<axum::Json<DeviceSettings>> {
    me.require(Permission::ViewDevices)?;
    let row = find(&state, &me, id).await?;
    if row.organization_id != own_org(&state, &me, org).await? {
        return Err(ApiError::NotFound);
    }
    Ok(axum::Json(settings_of(vec![row]).remove(0)))
}

/// Replaces device `id`'s settings (a JSON object) and sends them to the device.
#[utoipa::path(patch, path = "/device/{org}/device_settings_update/{id}/", tag = "devices",
    params(("org" = i64, Path), ("id" = i64, Path)), request_body = Object,
    responses((status = 200, body = DeviceSettings), (status = 400), (status = 403), (status = 404)))]
pub async fn device_settings_update(
    State(state): State<AppState>,
    me: AuthUser,
    Path((org, id)): Path<(i64, i64)>,
    Json(settings): Json<serde_json::Map<String, Value>>,
) -> ApiResult<axum::Json<DeviceSettings>> {
    let row = for_change(&state, &me, id, Permission::OperateDevices).await?;
    if row.organization_id != own_org(&state, &me, org).await? {
        return Err(ApiError::NotFound);
    }
    let json = check_settings(&settings)?;
    let c = Change {
        settings: Some(json),
        ..Change::default()
    };
    devices::update(&state.db, row.organization_id, id, &c).await?;
    if row.enrolled {
        let settings = Value::Object(settings);
        send_command(&state, &row, Command::Settings { settings }).await?;
    }
    let row = find(&state, &me, id).await?;
    let org = row.organization_id;
    let answer = settings_of(vec![row]);
    settings_changed(&state, org, &answer);
    Ok(axum::Json(answer.into_iter().next().expect("one device")))
}

/// Tells the device stream's watchers of devices `changed` of `org` their new settings.
fn settings_changed(state: &AppState, org: i64, changed: &[DeviceSettings]) {
    for s in changed {
        let event = ServerEvent::DeviceSettings(s.clone());
        let e = OrgEvent {
            org,
            device: s.id,
            event,
        };
        state.events.raise(&state.mqtt, e);
    }
}

/// Merges the given settings into every device of organisation `org` and sends each
/// enrolled device its new settings.
#[utoipa::path(patch, path = "/device/{org}/update_organization_devices_settings/", tag = "devices",
    params(("org" = i64, Path)), request_body = Object,
    responses((status = 200, body = Vec<DeviceSettings>), (status = 400), (status = 403), (status = 404)))]
pub async fn update_organization_devices_settings(
    State(state): State<AppState>,
    me: AuthUser,
    Path(org): Path<i64>,
    Json(new): Json<serde_json::Map<String, Value>>,
) -> ApiResult<axum::Json<Vec<DeviceSettings>>> {
    me.require(Permission::OperateDevices)?;
    let org = own_org(&state, &me, org).await?;
    may_change(&state, &me, org, Permission::OperateDevices).await?;
    check_settings(&new)?;
    let f = Filter {
        org: Some(org),
        ..Filter::default()
    };
    let (rows, _) = devices::list(&state.db, me.user.id, &f, None).await?;
    // Every merged object is checked before any is written.
    let mut merged = Vec::with_capacity(rows.len());
    for r in &rows {
        let mut m: serde_json::Map<String, Value> =
            serde_json::from_str(&r.settings).unwrap_or_default();
        m.extend(new.clone());
        let json = check_settings(&m)?;
        merged.push((json, m));
    }
    for (r, (json, m)) in rows.iter().zip(merged) {
        let c = Change {
            settings: Some(json),
            ..Change::default()
        };
        devices::update(&state.db, org, r.id, &c).await?;
        if r.enrolled {
            let settings = Value::Object(m);
            send_command(&state, r, Command::Settings { settings }).await?;
        }
    }
    let (rows, _) = devices::list(&state.db, me.user.id, &f, None).await?;
    let answer = settings_of(rows);
    settings_changed(&state, org, &answer);
    Ok(axum::Json(answer))
}
