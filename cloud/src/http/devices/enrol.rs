//! Adding and enrolling devices: a one-time enrolment code (with the command the portal
//! shows), the agent's exchange of it for credentials, and revoking them.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use gemba_shared::Permission;
use gemba_shared::api::v1::device::{
    self as d, Credentials, Device, DeviceCreate, EnrolRequest, EnrolmentCode,
};
use gemba_shared::validate::Bounded;

use crate::auth::{enrolment_code, enrolment_code_hash, is_enrolment_code};
use crate::db::devices::{self, DeviceRow};
use crate::db::{now_ms, orgs};
use crate::http::devices::{answer, current, find, for_change, may_change};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path, request_host, without_port};
use crate::state::AppState;

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
        Some(host) if state.settings.public_url.is_none() => {
            let scheme = if state.settings.tls_cert.is_some() {
                "https"
            } else {
                "http"
            };
            format!("{scheme}://{host}")
        }
        _ => state.settings.public_url(),
    }
}

/// Where an agent reaches the broker: the external broker's URL, or the embedded one's
/// port on the host the agent reached the cloud at; `mqtts://` when the embedded broker
/// speaks TLS.
fn mqtt_url(state: &AppState, headers: &HeaderMap) -> String {
    let url = broker_url(state, headers);
    match url.strip_prefix("mqtt://") {
        Some(rest) if state.mqtt.tenants() => format!("mqtts://{rest}"),
        _ => url,
    }
}

fn broker_url(state: &AppState, headers: &HeaderMap) -> String {
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

/// Adds a device to the request's organisation; answers its one-time enrolment code.
#[utoipa::path(post, path = "/device/", tag = "devices", request_body = DeviceCreate,
    responses((status = 201, body = EnrolmentCode), (status = 400), (status = 403)))]
pub async fn create(
    State(state): State<AppState>,
    me: AuthUser,
    headers: HeaderMap,
    Json(req): Json<DeviceCreate>,
) -> ApiResult<(StatusCode, axum::Json<EnrolmentCode>)> {
    req.check_lengths()?;
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
    req.check_lengths()?;
    let bad = || ApiError::field("code", "The enrolment code is wrong or expired.");
    if !is_enrolment_code(&req.code) {
        return Err(bad());
    }
    let mut raw = [0u8; 32];
    rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut raw);
    let key = STANDARD.encode(raw);
    let (org, device, display_name, credential_id) =
        devices::enrol(&state.db, &enrolment_code_hash(&req.code), &key)
            .await?
            .ok_or_else(bad)?;
    state.mqtt.enrolled(org, device, &raw);
    // Under TLS, a client certificate of the device's own tenant (made after the code
    // is spent: a failure here leaves the device to be enrolled again with a new code).
    let tls = state
        .mqtt
        .device_tls(device)
        .transpose()
        .map_err(ApiError::Internal)?;
    tracing::info!(
        org,
        device,
        credential_id,
        tls = tls.is_some(),
        "device enrolled"
    );
    Ok(axum::Json(Credentials {
        organization: org,
        device,
        display_name,
        credential_id,
        key,
        mqtt: mqtt_url(&state, &headers),
        tls,
        release_key: Some(state.release_key.clone()),
    }))
}

/// Revokes a device's credentials: its connection to the broker ends and the cloud
/// refuses it and its messages from now on (other replicas within
/// [`crate::mqtt::KEY_TTL`]).
#[utoipa::path(post, path = "/device/{id}/revoke/", tag = "devices",
    params(("id" = i64, Path)),
    responses((status = 200, body = Device), (status = 403), (status = 404)))]
pub async fn revoke(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Device>> {
    let row = for_change(&state, &me, id, Permission::ManageDevices).await?;
    let connection = state.mqtt.connection_of(&state.db, id).await;
    devices::revoke(&state.db, row.organization_id, id).await?;
    state.mqtt.revoked(id, connection);
    tracing::info!(device = id, "device credentials revoked");
    current(&state, &me, id).await
}
