//! Devices (spec section 7 "Devices"): add and enrol, list, detail, change, archive,
//! delete, settings, what their cameras run (start and stop, sent to the device as
//! commands), status and stats, departments; and `organization/task/task_inference_status`.
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

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use gemba_shared::Permission;
use gemba_shared::api::v1::device::{
    self as d, Archive, Credentials, Device, DeviceCommand, DeviceCreate, DeviceDetails,
    DevicePatch, DeviceSettings, DeviceStats, DeviceStatus, DeviceTask, DeviceTaskAssociation,
    DeviceTaskUpsert, EnrolRequest, EnrolmentCode, StartTask, StopTask, TaskInferenceStatus,
};
use gemba_shared::api::v1::{PAGE_SIZE, Page, page_offset};
use gemba_shared::cycle::EngineConfig;
use gemba_shared::mqtt::v1::Command;
use serde::Deserialize;
use serde_json::Value;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::{enrolment_code, enrolment_code_hash, is_enrolment_code};
use crate::db::devices::{self, Change, DeviceRow, Filter};
use crate::db::{camera_tasks, now_ms, orgs, tasks};
use crate::events::OrgEvent;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path, Query, request_host, without_port};
use crate::state::AppState;
use gemba_shared::api::v1::stream::ServerEvent;

/// The subscription that gates changing devices (spec section 6).
pub const FEATURE: &str = "Devices";
/// Largest settings object, serialised.
const MAX_SETTINGS_BYTES: usize = 16 * 1024;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create))
        .routes(routes!(enroll))
        .routes(routes!(new_code))
        .routes(routes!(revoke))
        .routes(routes!(device_org))
        .routes(routes!(department_less))
        .routes(routes!(assign_department))
        .routes(routes!(admin_list))
        .routes(routes!(patch, delete))
        .routes(routes!(update_device))
        .routes(routes!(archive_device))
        .routes(routes!(device_details))
        .routes(routes!(device_setting))
        .routes(routes!(multi_device_settings))
        .routes(routes!(device_settings))
        .routes(routes!(device_settings_update))
        .routes(routes!(update_organization_devices_settings))
        .routes(routes!(active_devices))
        .routes(routes!(device_status))
        .routes(routes!(devices_stats))
        .routes(routes!(get_device_tasks))
        .routes(routes!(device_tasks_upsert))
        .routes(routes!(start_task))
        .routes(routes!(stop_task))
        .routes(routes!(commands))
        .routes(routes!(task_association))
        .routes(routes!(task_inference_status))
}

// ----- helpers ---------------------------------------------------------------------------

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
    me.require_subscribed(state, org, p, FEATURE).await
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

async fn issue_code(
    state: &AppState,
    headers: &HeaderMap,
    device: DeviceRow,
    code: String,
    expires_at: i64,
) -> ApiResult<axum::Json<EnrolmentCode>> {
    let cloud = cloud_url(state, headers);
    Ok(axum::Json(EnrolmentCode {
        device: answer(state, device).await?.0,
        command: format!("gemba-agent enroll --cloud {cloud} --code {code}"),
        code,
        expires_at,
    }))
}

/// The cloud's address as the caller reached it (for the command the portal shows).
fn cloud_url(state: &AppState, headers: &HeaderMap) -> String {
    match request_host(headers) {
        Some(host) if state.settings.public_url.is_none() => format!("http://{host}"),
        _ => state.settings.public_url(),
    }
}

/// Where an agent reaches the broker: the external broker's URL, or the embedded one's
/// port on the host the agent reached the cloud at.
fn mqtt_url(state: &AppState, headers: &HeaderMap) -> String {
    if let Some(u) = &state.settings.mqtt_public_url {
        return u.clone();
    }
    match state.settings.embedded_mqtt() {
        None => state.settings.mqtt.clone(),
        Some(addr) => {
            let host = if addr.ip().is_unspecified() {
                request_host(headers)
                    .map_or("127.0.0.1", without_port)
                    .to_string()
            } else {
                addr.ip().to_string()
            };
            format!("mqtt://{host}:{}", addr.port())
        }
    }
}

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
    Ok(json)
}

/// Sends `device` a command and records it; answers the command's id.
async fn send_command(state: &AppState, row: &DeviceRow, command: Command) -> ApiResult<String> {
    Ok(state
        .mqtt
        .command(&state.db, row.organization_id, row.id, command)
        .await?)
}

// ----- adding and enrolling --------------------------------------------------------------

/// Adds a device to the request's organisation; answers its one-time enrolment code.
#[utoipa::path(post, path = "/device/", tag = "devices", request_body = DeviceCreate,
    responses((status = 201, body = EnrolmentCode), (status = 400), (status = 403)))]
pub async fn create(
    State(state): State<AppState>,
    me: AuthUser,
    headers: HeaderMap,
    Json(req): Json<DeviceCreate>,
) -> ApiResult<(StatusCode, axum::Json<EnrolmentCode>)> {
    me.require(Permission::ManageDevices)?;
    let org = me.org()?;
    may_change(&state, &me, org, Permission::ManageDevices).await?;
    let name = d::check_text(
        "Device name",
        req.display_name.as_deref().unwrap_or(""),
        true,
    )
    .map_err(|m| ApiError::field("display_name", m))?;
    let serial = d::check_text(
        "Serial number",
        req.serial_number.as_deref().unwrap_or(""),
        false,
    )
    .map_err(|m| ApiError::field("Serial_number", m))?;
    let kind = d::check_text(
        "Type",
        req.device_type.as_deref().unwrap_or(d::WORKSTATION),
        true,
    )
    .map_err(|m| ApiError::field("Type", m))?;
    if let Some(dept) = req.department
        && !orgs::departments(&state.db, org)
            .await?
            .iter()
            .any(|x| x.id == dept)
    {
        return Err(ApiError::field("department", "No such department."));
    }
    let code = enrolment_code();
    let expires_at = now_ms() + d::ENROL_CODE_TTL_SECS * 1000;
    let id = devices::insert(
        &state.db,
        &devices::NewDevice {
            org,
            department: req.department,
            display_name: &name,
            serial_number: &serial,
            device_type: &kind,
            code_hash: &enrolment_code_hash(&code),
            code_expires_at: expires_at,
        },
    )
    .await?;
    let row = find(&state, &me, id).await?;
    Ok((
        StatusCode::CREATED,
        issue_code(&state, &headers, row, code, expires_at).await?,
    ))
}

/// A new enrolment code for a device (to enrol it again, e.g. on a new computer). Its
/// current credentials keep working until the code is used.
#[utoipa::path(post, path = "/device/{id}/enrolment_code/", tag = "devices",
    params(("id" = i64, Path)),
    responses((status = 200, body = EnrolmentCode), (status = 403), (status = 404)))]
pub async fn new_code(
    State(state): State<AppState>,
    me: AuthUser,
    headers: HeaderMap,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<EnrolmentCode>> {
    let row = for_change(&state, &me, id, Permission::ManageDevices).await?;
    if row.archived {
        return Err(ApiError::non_field(
            "An archived device cannot be enrolled.",
        ));
    }
    let code = enrolment_code();
    let expires_at = now_ms() + d::ENROL_CODE_TTL_SECS * 1000;
    devices::set_code(
        &state.db,
        row.organization_id,
        id,
        &enrolment_code_hash(&code),
        expires_at,
    )
    .await?;
    issue_code(&state, &headers, row, code, expires_at).await
}

/// The agent's call (no user): exchanges a one-time code for the device's credentials.
/// Wrong, spent and expired codes get the same answer.
#[utoipa::path(post, path = "/device/enroll/", tag = "devices", security(()),
    request_body = EnrolRequest,
    responses((status = 200, body = Credentials), (status = 400)))]
pub async fn enroll(
    State(state): State<AppState>,
    headers: HeaderMap,
    Json(req): Json<EnrolRequest>,
) -> ApiResult<axum::Json<Credentials>> {
    let bad = || ApiError::field("code", "The enrolment code is wrong or expired.");
    if !is_enrolment_code(&req.code) {
        return Err(bad());
    }
    let mut key = [0u8; 32];
    rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut key);
    let key = STANDARD.encode(key);
    let (org, device, display_name, credential_id) =
        devices::enrol(&state.db, &enrolment_code_hash(&req.code), &key)
            .await?
            .ok_or_else(bad)?;
    state.mqtt.forget(device);
    tracing::info!(org, device, credential_id, "device enrolled");
    Ok(axum::Json(Credentials {
        organization: org,
        device,
        display_name,
        credential_id,
        key,
        mqtt: mqtt_url(&state, &headers),
    }))
}

/// Revokes a device's credentials: the cloud refuses its messages from now on (other
/// replicas within [`crate::mqtt::KEY_TTL`]).
#[utoipa::path(post, path = "/device/{id}/revoke/", tag = "devices",
    params(("id" = i64, Path)),
    responses((status = 200, body = Device), (status = 403), (status = 404)))]
pub async fn revoke(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Device>> {
    let row = for_change(&state, &me, id, Permission::ManageDevices).await?;
    devices::revoke(&state.db, row.organization_id, id).await?;
    state.mqtt.forget(id);
    tracing::info!(device = id, "device credentials revoked");
    current(&state, &me, id).await
}

// ----- lists -----------------------------------------------------------------------------

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct DeviceQuery {
    /// Archived devices instead of the others.
    #[serde(default)]
    pub archived: Option<bool>,
    #[serde(default)]
    pub search: Option<String>,
}

async fn list_of(state: &AppState, me: &AuthUser, f: Filter) -> ApiResult<axum::Json<Vec<Device>>> {
    let (rows, _) = devices::list(&state.db, me.user.id, &f, None).await?;
    Ok(axum::Json(devices::with_tasks(&state.db, rows).await?))
}

/// The devices of organisation `id` (departmental devices hidden), starred first.
#[utoipa::path(get, path = "/device/device_org/{id}/", tag = "devices",
    params(("id" = i64, Path), DeviceQuery),
    responses((status = 200, body = Vec<Device>), (status = 403), (status = 404)))]
pub async fn device_org(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Query(q): Query<DeviceQuery>,
) -> ApiResult<axum::Json<Vec<Device>>> {
    me.require(Permission::ViewDevices)?;
    let org = own_org(&state, &me, id).await?;
    let f = Filter {
        org: Some(org),
        archived: q.archived.unwrap_or(false),
        hide_departmental: true,
        search: q.search.unwrap_or_default(),
        ..Filter::default()
    };
    list_of(&state, &me, f).await
}

/// Devices of organisation `id` in no department.
#[utoipa::path(get, path = "/device/{id}/get_department_less_devices/", tag = "devices",
    params(("id" = i64, Path)),
    responses((status = 200, body = Vec<Device>), (status = 403), (status = 404)))]
pub async fn department_less(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Vec<Device>>> {
    me.require(Permission::ViewDevices)?;
    let f = Filter {
        org: Some(own_org(&state, &me, id).await?),
        without_department: true,
        ..Filter::default()
    };
    list_of(&state, &me, f).await
}

/// Puts device `id` in department `dept` of its organisation.
#[utoipa::path(patch, path = "/device/{id}/assign_device_to_department/{dept}/", tag = "devices",
    params(("id" = i64, Path), ("dept" = i64, Path)),
    responses((status = 200, body = Device), (status = 403), (status = 404)))]
pub async fn assign_department(
    State(state): State<AppState>,
    me: AuthUser,
    Path((id, dept)): Path<(i64, i64)>,
) -> ApiResult<axum::Json<Device>> {
    let row = for_change(&state, &me, id, Permission::ManageDevices).await?;
    if !orgs::departments(&state.db, row.organization_id)
        .await?
        .iter()
        .any(|x| x.id == dept)
    {
        return Err(ApiError::NotFound);
    }
    let c = Change {
        department: Some(Some(dept)),
        ..Change::default()
    };
    devices::update(&state.db, row.organization_id, id, &c).await?;
    current(&state, &me, id).await
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct AdminQuery {
    #[serde(default)]
    pub page: Option<i64>,
    #[serde(default)]
    pub query: Option<String>,
    #[serde(default)]
    pub archived: Option<bool>,
}

/// Every organisation's devices, 10 a page (the super admin's All Devices).
#[utoipa::path(get, path = "/device/devicelistadminview", tag = "devices", params(AdminQuery),
    responses((status = 200, body = Page<Device>), (status = 400), (status = 403)))]
pub async fn admin_list(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<AdminQuery>,
) -> ApiResult<axum::Json<Page<Device>>> {
    me.require(Permission::AdminArea)?;
    let offset = page_offset(q.page).ok_or_else(|| ApiError::field("page", "Invalid page."))?;
    let f = Filter {
        archived: q.archived.unwrap_or(false),
        search: q.query.unwrap_or_default(),
        ..Filter::default()
    };
    let (rows, count) = devices::list(&state.db, me.user.id, &f, Some((offset, PAGE_SIZE))).await?;
    Ok(axum::Json(Page {
        results: devices::with_tasks(&state.db, rows).await?,
        count,
    }))
}

// ----- one device ------------------------------------------------------------------------

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
        devices::update(&state.db, row.organization_id, id, &c).await?;
        if c.archived == Some(true) {
            state.mqtt.forget(id);
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
    devices::update(&state.db, row.organization_id, id, &c).await?;
    if archived {
        state.mqtt.forget(id);
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
    devices::delete(&state.db, row.organization_id, id).await?;
    state.mqtt.forget(id);
    Ok(StatusCode::NO_CONTENT)
}

// ----- settings --------------------------------------------------------------------------

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

// ----- status and stats ------------------------------------------------------------------

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

// ----- tasks on devices ------------------------------------------------------------------

/// What the cameras of device `id` are set to run.
#[utoipa::path(get, path = "/device/get_device_tasks/{id}", tag = "devices",
    params(("id" = i64, Path)),
    responses((status = 200, body = Vec<DeviceTask>), (status = 403), (status = 404)))]
pub async fn get_device_tasks(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Vec<DeviceTask>>> {
    me.require(Permission::ViewDevices)?;
    find(&state, &me, id).await?;
    Ok(axum::Json(camera_tasks(&state, id).await?))
}

/// A task of the device's organisation, live (404 otherwise).
async fn task_of(
    state: &AppState,
    me: &AuthUser,
    org: i64,
    task: i64,
) -> ApiResult<tasks::TaskRow> {
    match tasks::get(&state.db, me.user.id, Some(org), task).await? {
        Some(t) if !t.settings().is_deleted => Ok(t),
        _ => Err(ApiError::field("task", "No such task.")),
    }
}

/// Sets (and starts) the task of one of a device's cameras.
#[utoipa::path(post, path = "/device/device_tasks_upsert/", tag = "devices",
    request_body = DeviceTaskUpsert,
    responses((status = 200, body = Vec<DeviceTask>), (status = 400), (status = 403), (status = 404)))]
pub async fn device_tasks_upsert(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<DeviceTaskUpsert>,
) -> ApiResult<axum::Json<Vec<DeviceTask>>> {
    me.require(Permission::OperateDevices)?;
    let row = find(&state, &me, req.device).await?;
    run_task(&state, &me, row, &req.camera, req.task).await?;
    Ok(axum::Json(camera_tasks(&state, req.device).await?))
}

async fn run_task(
    state: &AppState,
    me: &AuthUser,
    row: DeviceRow,
    camera: &str,
    task: i64,
) -> ApiResult<()> {
    may_change(state, me, row.organization_id, Permission::OperateDevices).await?;
    let camera = d::check_camera(camera).map_err(|m| ApiError::field("camera", m))?;
    let task = task_of(state, me, row.organization_id, task).await?;
    if row.archived {
        return Err(ApiError::non_field("An archived device cannot run tasks."));
    }
    devices::set_camera_task(&state.db, row.id, camera, Some(task.id)).await?;
    let generation = camera_tasks::generation(&state.db, row.id, camera).await?;
    send_command(
        state,
        &row,
        Command::StartTask {
            camera: camera.to_string(),
            task: task.id,
            engine: EngineConfig::from_task(&task.settings()),
            generation: generation.unwrap_or(0),
        },
    )
    .await?;
    Ok(())
}

/// Starts a task on one of the device's cameras (a command to the device).
#[utoipa::path(post, path = "/device/{id}/start_task/", tag = "devices",
    params(("id" = i64, Path)), request_body = StartTask,
    responses((status = 200, body = Device), (status = 400), (status = 403), (status = 404)))]
pub async fn start_task(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<StartTask>,
) -> ApiResult<axum::Json<Device>> {
    me.require(Permission::OperateDevices)?;
    let row = find(&state, &me, id).await?;
    run_task(&state, &me, row, &req.camera, req.task).await?;
    current(&state, &me, id).await
}

/// Stops what one of the device's cameras runs.
#[utoipa::path(post, path = "/device/{id}/stop_task/", tag = "devices",
    params(("id" = i64, Path)), request_body = StopTask,
    responses((status = 200, body = Device), (status = 400), (status = 403), (status = 404)))]
pub async fn stop_task(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<StopTask>,
) -> ApiResult<axum::Json<Device>> {
    let row = for_change(&state, &me, id, Permission::OperateDevices).await?;
    let camera = d::check_camera(&req.camera).map_err(|m| ApiError::field("camera", m))?;
    if !devices::set_camera_task(&state.db, id, camera, None).await? {
        return Err(ApiError::field("camera", "This camera runs no task."));
    }
    let set = camera_tasks::of_device(&state.db, id).await?;
    let set = set.iter().find(|t| t.camera == camera);
    send_command(
        &state,
        &row,
        Command::StopTask {
            camera: camera.to_string(),
            task: set.map(|t| t.task),
            generation: set.map_or(0, |t| t.generation),
        },
    )
    .await?;
    current(&state, &me, id).await
}

/// The commands last sent to a device, newest first, with their acknowledgements.
#[utoipa::path(get, path = "/device/{id}/commands/", tag = "devices",
    params(("id" = i64, Path)),
    responses((status = 200, body = Vec<DeviceCommand>), (status = 403), (status = 404)))]
pub async fn commands(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Vec<DeviceCommand>>> {
    me.require(Permission::ViewDevices)?;
    find(&state, &me, id).await?;
    Ok(axum::Json(devices::commands(&state.db, id, 50).await?))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct AssociationQuery {
    pub task: i64,
    pub device: i64,
}

/// Whether a device's cameras are set to run a task, and which.
#[utoipa::path(get, path = "/device/get_device_tasks_association/", tag = "devices",
    params(AssociationQuery),
    responses((status = 200, body = DeviceTaskAssociation), (status = 400), (status = 403), (status = 404)))]
pub async fn task_association(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<AssociationQuery>,
) -> ApiResult<axum::Json<DeviceTaskAssociation>> {
    me.require(Permission::ViewDevices)?;
    let row = find(&state, &me, q.device).await?;
    if tasks::get(&state.db, me.user.id, Some(row.organization_id), q.task)
        .await?
        .is_none()
    {
        return Err(ApiError::NotFound);
    }
    let mine: Vec<DeviceTask> = camera_tasks(&state, row.id)
        .await?
        .into_iter()
        .filter(|t| t.task == q.task)
        .collect();
    Ok(axum::Json(DeviceTaskAssociation {
        task: q.task,
        device: q.device,
        associated: !mine.is_empty(),
        running: mine.iter().any(|t| t.running),
        cameras: mine.into_iter().map(|t| t.camera).collect(),
    }))
}

/// Which of the organisation's tasks run on which device and camera now.
#[utoipa::path(get, path = "/organization/task/task_inference_status", tag = "tasks",
    responses((status = 200, body = Vec<TaskInferenceStatus>), (status = 403)))]
pub async fn task_inference_status(
    State(state): State<AppState>,
    me: AuthUser,
) -> ApiResult<axum::Json<Vec<TaskInferenceStatus>>> {
    me.require(Permission::ViewTasks)?;
    let org = me.org()?;
    Ok(axum::Json(
        devices::running_in_org(&state.db, org)
            .await?
            .into_iter()
            .map(|r| TaskInferenceStatus {
                task: r.0,
                task_name: r.1,
                device: r.2,
                device_name: r.3,
                camera: r.4,
                online: r.5,
            })
            .collect(),
    ))
}
