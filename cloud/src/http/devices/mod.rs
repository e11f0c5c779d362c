//! Devices (spec section 7 "Devices"): add and enrol, list, detail, change, archive,
//! delete, settings, what their cameras run (start and stop, sent to the device as
//! commands), status and stats, departments; and `organization/task/task_inference_status`.
//!
//! The handlers by sub-area: [`enrol`] (add, enrolment codes, enrol, revoke), [`lists`]
//! (an organisation's, a department's, the super admin's), [`device`] (one device: its
//! details, changes, archive, delete), [`settings`], [`status`] (online, stats) and
//! [`cameras`] (what a device's cameras run: set, start, stop, commands, associations);
//! what the device keeps as its configuration (issue 29): [`remote_cams`], [`blur`]
//! regions and [`schedules`], and whether it sends its [`analytics`] now;
//! the helpers they share are here.
//!
//! Tenancy: a device belongs to one organisation; another organisation's device ids
//! answer 404. The super admin reaches every organisation's devices. Changing devices
//! needs the organisation's "Devices" subscription (spec section 6); adding, enrolling,
//! revoking, archiving and deleting need `ManageDevices`, running tasks and changing
//! names and settings `OperateDevices`, reading `ViewDevices`.
//!
//! Enrolment: adding a device (or asking for a new code) answers a one-time code; the
//! agent exchanges it at `POST device/enroll/` (no user) for its credentials, a signing
//! key shown only then.

pub mod analytics;
pub mod blur;
pub mod cameras;
pub mod device;
pub mod enrol;
pub mod lists;
pub mod opcua;
pub mod remote_cams;
pub mod schedules;
pub mod settings;
pub mod status;

use gemba_shared::Permission;
use gemba_shared::api::v1::device::{Device, DeviceTask};
use gemba_shared::mqtt::v1::Command;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::devices::{self, DeviceRow};
use crate::db::orgs;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::AuthUser;
use crate::state::AppState;
use gemba_shared::api::v1::feature_control::Gated;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        // adding and enrolling
        .routes(routes!(enrol::create))
        .routes(routes!(enrol::enroll))
        .routes(routes!(enrol::new_code))
        .routes(routes!(enrol::revoke))
        // lists
        .routes(routes!(lists::device_org))
        .routes(routes!(lists::department_less))
        .routes(routes!(lists::assign_department))
        .routes(routes!(lists::admin_list))
        // one device
        .routes(routes!(device::patch, device::delete))
        .routes(routes!(device::update_device))
        .routes(routes!(device::archive_device))
        .routes(routes!(device::device_details))
        .routes(routes!(device::update_channel))
        .routes(routes!(analytics::set_fetch_analytics))
        // settings
        .routes(routes!(settings::device_setting))
        .routes(routes!(settings::multi_device_settings))
        .routes(routes!(settings::device_settings))
        .routes(routes!(settings::device_settings_update))
        .routes(routes!(settings::update_organization_devices_settings))
        // status and stats
        .routes(routes!(status::active_devices))
        .routes(routes!(status::device_status))
        .routes(routes!(status::devices_stats))
        // what the cameras run
        .routes(routes!(cameras::get_device_tasks))
        .routes(routes!(cameras::device_tasks_upsert))
        .routes(routes!(cameras::start_task))
        .routes(routes!(cameras::stop_task))
        .routes(routes!(cameras::commands))
        .routes(routes!(cameras::task_association))
        .routes(routes!(cameras::task_inference_status))
        // remote cameras, blur regions, schedules (the device's configuration)
        .routes(routes!(
            remote_cams::list,
            remote_cams::create,
            remote_cams::patch,
            remote_cams::delete
        ))
        .routes(routes!(blur::list, blur::create, blur::replace))
        .routes(routes!(blur::delete))
        .routes(routes!(schedules::list))
        .routes(routes!(schedules::create))
        .routes(routes!(schedules::patch, schedules::delete))
        // OPC UA node bindings (issue 32)
        .routes(routes!(opcua::list, opcua::create))
        .routes(routes!(opcua::delete))
}

// ----- helpers shared by the handlers ----------------------------------------------------

/// Device `id` as `me` may reach it (404 otherwise).
async fn find(state: &AppState, me: &AuthUser, id: i64) -> ApiResult<DeviceRow> {
    let org = if me.is_admin() { None } else { Some(me.org()?) };
    devices::get(&state.db, me.user.id, org, id)
        .await?
        .ok_or(ApiError::NotFound)
}

/// Device `id` of `org`, not archived, enrolled and online: one that can be sent work
/// now. Otherwise a clear error on `field`.
pub(crate) async fn online_device(
    state: &AppState,
    me: &AuthUser,
    org: i64,
    id: i64,
    field: &str,
) -> ApiResult<DeviceRow> {
    let row = devices::get(&state.db, me.user.id, Some(org), id)
        .await?
        .filter(|r| !r.archived)
        .ok_or_else(|| {
            ApiError::field(
                field,
                format!("Device {id} is not one of the organisation's devices."),
            )
        })?;
    if !row.enrolled || !row.online {
        return Err(ApiError::field(
            field,
            format!(
                "{} is offline: try again once it is online.",
                row.display_name
            ),
        ));
    }
    Ok(row)
}

/// The organisation `id` names, if it exists and `me` may reach it (404 otherwise).
async fn own_org(state: &AppState, me: &AuthUser, id: i64) -> ApiResult<i64> {
    let reachable = if me.is_admin() {
        orgs::by_id(&state.db, id).await?.is_some()
    } else {
        me.org()? == id
    };
    if reachable {
        Ok(id)
    } else {
        Err(ApiError::NotFound)
    }
}

/// May `me` change devices of `org` with `p`: the permission and the subscription.
async fn may_change(state: &AppState, me: &AuthUser, org: i64, p: Permission) -> ApiResult<()> {
    me.require_subscribed(state, org, p, Gated::Devices).await
}

/// Device `id`, for a change that needs `p`: the permission first (so a caller without
/// it gets 403 whatever the id), then the device (404), then the subscription.
async fn for_change(
    state: &AppState,
    me: &AuthUser,
    id: i64,
    p: Permission,
) -> ApiResult<DeviceRow> {
    me.require(p)?;
    let row = find(state, me, id).await?;
    may_change(state, me, row.organization_id, p).await?;
    Ok(row)
}

/// A device's record (`found`, a remote camera or a schedule: `device_of` says whose)
/// and its device, for a change by `me`: 403 without `OperateDevices` whatever the
/// record, 404 when there is none or it is another organisation's.
async fn record_for_change<T>(
    state: &AppState,
    me: &AuthUser,
    found: Option<T>,
    device_of: impl Fn(&T) -> i64,
) -> ApiResult<(T, DeviceRow)> {
    me.require(Permission::OperateDevices)?;
    let record = found.ok_or(ApiError::NotFound)?;
    let row = for_change(state, me, device_of(&record), Permission::OperateDevices).await?;
    Ok((record, row))
}

async fn answer(state: &AppState, row: DeviceRow) -> ApiResult<axum::Json<Device>> {
    let mut v = devices::with_tasks(&state.db, vec![row]).await?;
    Ok(axum::Json(v.remove(0)))
}

/// What the cameras of device `id` are set to run.
async fn camera_tasks(state: &AppState, id: i64) -> ApiResult<Vec<DeviceTask>> {
    Ok(devices::tasks_of(&state.db, &[id])
        .await?
        .into_iter()
        .map(|(_, t)| t)
        .collect())
}

/// Device `id` as it is now (after a change).
async fn current(state: &AppState, me: &AuthUser, id: i64) -> ApiResult<axum::Json<Device>> {
    answer(state, find(state, me, id).await?).await
}

/// Sends `device` a command and records it; answers the command's id.
async fn send_command(state: &AppState, row: &DeviceRow, command: Command) -> ApiResult<String> {
    Ok(state
        .mqtt
        .command(&state.db, row.organization_id, row.id, command)
        .await?)
}
