//! One device: its details (with recent cycles and camera events), changes to its
//! names, type and flags, archiving and deleting it.

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::device::{self as d, Archive, Device, DeviceDetails, DevicePatch};
use gemba_shared::validate::Bounded;

use crate::db::devices::{self, Change};
use crate::http::devices::{answer, current, find, for_change, may_change};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path};
use crate::state::AppState;

#[utoipa::path(get, path = "/device/{id}/device_details/", tag = "devices",
    params(("id" = i64, Path)),
    responses((status = 200, body = DeviceDetails), (status = 403), (status = 404)))]
pub async fn device_details(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<DeviceDetails>> {
    me.require(Permission::ViewDevices)?;
    let row = find(&state, &me, id).await?;
    let org = row.organization_id;
    let recent_cycles = devices::recent_cycles(&state.db, id, 10).await?;
    let mut task_steps = std::collections::BTreeMap::new();
    for c in &recent_cycles {
        if task_steps.contains_key(&c.task) {
            continue;
        }
        if let Some(t) = crate::db::tasks::get(&state.db, me.user.id, Some(org), c.task).await? {
            let names = t.settings().operation().step_names();
            task_steps.insert(c.task, names);
        }
    }
    Ok(axum::Json(DeviceDetails {
        device: answer(&state, row).await?.0,
        commands: devices::commands(&state.db, id, 20).await?,
        recent_cycles,
        task_steps,
        notice: crate::demo::notice(&state, id),
        camera_events: crate::db::camera_events::of_device(
            &state.db,
            id,
            crate::db::camera_events::LISTED,
        )
        .await?,
    }))
}

async fn change(
    state: &AppState,
    me: &AuthUser,
    id: i64,
    req: DevicePatch,
) -> ApiResult<axum::Json<Device>> {
    // Archiving is managing; the rest (names, active, the caller's star) is operating.
    let needs = if req.is_archived.is_some() || req.device_type.is_some() {
        Permission::ManageDevices
    } else {
        Permission::OperateDevices
    };
    me.require(needs)?;
    let row = find(state, me, id).await?;
    let text = |label: &str, field: &str, v: &Option<String>, required| {
        v.as_deref()
            .map(|v| d::check_text(label, v, required).map_err(|m| ApiError::field(field, m)))
            .transpose()
    };
    let c = Change {
        display_name: text("Device name", "display_name", &req.display_name, true)?,
        serial_number: text("Serial number", "Serial_number", &req.serial_number, false)?,
        device_type: text("Type", "Type", &req.device_type, true)?,
        active: req.active,
        archived: req.is_archived,
        ..Change::default()
    };
    if !c.is_empty() {
        may_change(state, me, row.organization_id, needs).await?;
        let connection = match c.archived {
            Some(true) => state.mqtt.connection_of(&state.db, id).await,
            _ => None,
        };
        devices::update(&state.db, row.organization_id, id, &c).await?;
        if c.archived == Some(true) {
            state.mqtt.revoked(id, connection);
        }
    }
    if let Some(on) = req.starred {
        devices::set_star(&state.db, me.user.id, id, on).await?;
    }
    current(state, me, id).await
}

/// Changes a device's names, type, active flag or archived flag, or the caller's star.
#[utoipa::path(patch, path = "/device/{id}/", tag = "devices", params(("id" = i64, Path)),
    request_body = DevicePatch,
    responses((status = 200, body = Device), (status = 400), (status = 403), (status = 404)))]
pub async fn patch(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<DevicePatch>,
) -> ApiResult<axum::Json<Device>> {
    req.check_lengths()?;
    change(&state, &me, id, req).await
}

/// The same as `PATCH device/{id}/`.
#[utoipa::path(patch, path = "/device/update_device/{id}/", tag = "devices",
    params(("id" = i64, Path)), request_body = DevicePatch,
    responses((status = 200, body = Device), (status = 400), (status = 403), (status = 404)))]
pub async fn update_device(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<DevicePatch>,
) -> ApiResult<axum::Json<Device>> {
    req.check_lengths()?;
    change(&state, &me, id, req).await
}

/// Archives a device (hidden from lists, its credentials revoked) or brings it back
/// (`{"is_archived": false}`; it must be enrolled again).
#[utoipa::path(patch, path = "/device/archive_device/{id}/", tag = "devices",
    params(("id" = i64, Path)), request_body = Archive,
    responses((status = 200, body = Device), (status = 403), (status = 404)))]
pub async fn archive_device(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<Archive>,
) -> ApiResult<axum::Json<Device>> {
    let row = for_change(&state, &me, id, Permission::ManageDevices).await?;
    let archived = req.is_archived.unwrap_or(true);
    let c = Change {
        archived: Some(archived),
        ..Change::default()
    };
    let connection = match archived {
        true => state.mqtt.connection_of(&state.db, id).await,
        false => None,
    };
    devices::update(&state.db, row.organization_id, id, &c).await?;
    if archived {
        state.mqtt.revoked(id, connection);
    }
    current(&state, &me, id).await
}

/// Deletes a device; its cycles stay (without the device).
#[utoipa::path(delete, path = "/device/{id}/", tag = "devices", params(("id" = i64, Path)),
    responses((status = 204), (status = 403), (status = 404)))]
pub async fn delete(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    let row = for_change(&state, &me, id, Permission::ManageDevices).await?;
    let connection = state.mqtt.connection_of(&state.db, id).await;
    devices::delete(&state.db, row.organization_id, id).await?;
    state.mqtt.revoked(id, connection);
    Ok(StatusCode::NO_CONTENT)
}

/// The release environment the device's agent follows (`dev` or `prod`, issue 30): it
/// is brought to that environment's newest release for its target from its next
/// status, and leaves a roll-out of the other environment it was not done with.
#[utoipa::path(patch, path = "/device/{id}/update_channel/", tag = "devices",
    params(("id" = i64, Path)), request_body = d::UpdateChannel,
    responses((status = 200, body = Device), (status = 400), (status = 403), (status = 404)))]
pub async fn update_channel(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<d::UpdateChannel>,
) -> ApiResult<axum::Json<Device>> {
    let row = for_change(&state, &me, id, Permission::ManageDevices).await?;
    let channel = req.update_channel.trim();
    if !gemba_shared::release::ENVIRONMENTS.contains(&channel) {
        return Err(ApiError::field(
            "update_channel",
            format!(
                "Choose one of {}.",
                gemba_shared::release::ENVIRONMENTS.join(", ")
            ),
        ));
    }
    let org = row.organization_id;
    if !crate::db::releases::set_channel(&state.db, org, id, channel).await? {
        return Err(ApiError::NotFound);
    }
    crate::releases::on_channel(&state, org, id).await?;
    current(&state, &me, id).await
}
