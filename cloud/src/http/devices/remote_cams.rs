//! Remote cameras (`device/remote_cam/{id}/`, issue 29): network cameras (RTSP, HTTP)
//! a device reads as cameras of its own. `GET` and `POST` take the device's id (its
//! cameras; attach one), `PATCH` and `DELETE` the camera's. The password is
//! write-only: kept beside the URL, put into it only in the device's configuration,
//! never answered. Every change bumps the device's configuration and sends it.

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::cameras::{CameraDevice, RemoteCam, RemoteCamCreate, RemoteCamPatch};
use gemba_shared::api::v1::device::check_camera;
use gemba_shared::mqtt::v1::{MAX_REMOTE_CAMERAS, check_camera_url};
use gemba_shared::validate::Bounded;

use crate::db::device_config::{self as cfg, CamWrite, RemoteCamRow};
use crate::db::devices::DeviceRow;
use crate::device_config::{send, split_login, with_login};
use crate::http::devices::{find, for_change, record_for_change};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path};
use crate::state::AppState;

fn device_of(row: &DeviceRow) -> CameraDevice {
    CameraDevice {
        id: row.id,
        display_name: row.display_name.clone(),
        serial_number: row.serial_number.clone(),
        device_type: row.device_type.clone(),
        online: row.online,
    }
}

fn answer(row: &DeviceRow, c: RemoteCamRow) -> RemoteCam {
    RemoteCam {
        id: c.id,
        device: device_of(row),
        url: with_login(&c.url, &c.username, ""),
        has_password: !c.password.is_empty(),
        name: c.name,
        username: c.username,
        created_at: c.created_at,
        updated_at: c.updated_at,
    }
}

/// The cameras device `row` has of its own: its status's, less its remote cameras
/// (which an agent applying them lists too).
fn own_cameras(row: &DeviceRow, remote: &[RemoteCamRow]) -> Vec<String> {
    row.cameras()
        .into_iter()
        .filter(|c| !remote.iter().any(|r| &r.name == c))
        .collect()
}

/// A name for a remote camera of `row`: a camera name, not one of its cameras (`me`:
/// the camera being renamed, if any).
fn check_name(
    row: &DeviceRow,
    remote: &[RemoteCamRow],
    name: &str,
    me: Option<i64>,
) -> ApiResult<String> {
    let name = check_camera(name.trim()).map_err(|m| ApiError::field("name", m))?;
    if own_cameras(row, remote).iter().any(|c| c == name) {
        return Err(ApiError::field(
            "name",
            format!("{} already has a camera {name}.", row.display_name),
        ));
    }
    if remote.iter().any(|r| r.name == name && Some(r.id) != me) {
        return Err(ApiError::field(
            "name",
            format!("{} already has a remote camera {name}.", row.display_name),
        ));
    }
    Ok(name.to_string())
}

/// A URL and its login: the URL checked, the login taken out of it or given beside it
/// (not both). Answers (URL without login, user, password) with `None` for what was
/// not given.
fn check_url(
    url: &str,
    username: Option<&str>,
    password: Option<&str>,
) -> ApiResult<(String, Option<String>, Option<String>)> {
    let url = url.trim();
    check_camera_url(url).map_err(|m| ApiError::field("url", m))?;
    let (bare, u, p) = split_login(url);
    if (u.is_some() || p.is_some()) && (username.is_some() || password.is_some()) {
        return Err(ApiError::field(
            "url",
            "Give the login either in the URL or as username and password, not both.",
        ));
    }
    let text_ok = |s: &str| !s.chars().any(char::is_control);
    let username = u.or(username.map(|s| s.trim().to_string()));
    let password = p.or(password.map(str::to_string));
    if !username.as_deref().is_none_or(text_ok) {
        return Err(ApiError::field(
            "username",
            "The username must not contain control characters.",
        ));
    }
    if !password.as_deref().is_none_or(text_ok) {
        return Err(ApiError::field(
            "password",
            "The password must not contain control characters.",
        ));
    }
    Ok((bare, username, password))
}

/// The remote cameras of device `id`, with the device.
#[utoipa::path(get, path = "/device/remote_cam/{id}/", tag = "devices",
    params(("id" = i64, Path, description = "The device")),
    responses((status = 200, body = Vec<RemoteCam>), (status = 403), (status = 404)))]
pub async fn list(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Vec<RemoteCam>>> {
    me.require(Permission::ViewDevices)?;
    let row = find(&state, &me, id).await?;
    let cams = cfg::remote_cams(&state.db, id).await?;
    Ok(axum::Json(
        cams.into_iter().map(|c| answer(&row, c)).collect(),
    ))
}

/// Attaches a remote camera to device `id` and sends the device its configuration.
#[utoipa::path(post, path = "/device/remote_cam/{id}/", tag = "devices",
    params(("id" = i64, Path, description = "The device")), request_body = RemoteCamCreate,
    responses((status = 201, body = RemoteCam), (status = 400), (status = 403), (status = 404)))]
pub async fn create(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<RemoteCamCreate>,
) -> ApiResult<(StatusCode, axum::Json<RemoteCam>)> {
    req.check_lengths()?;
    let row = for_change(&state, &me, id, Permission::OperateDevices).await?;
    if row.archived {
        return Err(ApiError::non_field(
            "An archived device cannot have remote cameras added.",
        ));
    }
    let remote = cfg::remote_cams(&state.db, id).await?;
    let name = check_name(&row, &remote, &req.name, None)?;
    let (url, username, password) =
        check_url(&req.url, req.username.as_deref(), req.password.as_deref())?;
    if remote.len() >= MAX_REMOTE_CAMERAS {
        return Err(ApiError::field(
            "name",
            format!("A device has at most {MAX_REMOTE_CAMERAS} remote cameras."),
        ));
    }
    let write = CamWrite {
        name: &name,
        url: &url,
        username: username.as_deref().unwrap_or(""),
        password: password.as_deref().unwrap_or(""),
    };
    let taken = || format!("{} already has a remote camera {name}.", row.display_name);
    let mut tx = state.db.begin_write().await?;
    let cam = cfg::insert_remote_cam(&mut tx, id, &write)
        .await
        .map_err(|e| ApiError::unique_as(e, "name", taken()))?;
    cfg::bump(&mut tx, id).await?;
    tx.commit().await?;
    send(&state, row.organization_id, id).await?;
    let c = cfg::remote_cam(&state.db, cam)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok((StatusCode::CREATED, axum::Json(answer(&row, c))))
}

/// Remote camera `id` and its device, for a change by `me` (403 without the
/// permission, 404 for another organisation's).
async fn cam_for_change(
    state: &AppState,
    me: &AuthUser,
    id: i64,
) -> ApiResult<(RemoteCamRow, DeviceRow)> {
    let found = cfg::remote_cam(&state.db, id).await?;
    record_for_change(state, me, found, |c| c.device_id).await
}

/// Changes remote camera `id` (name, URL, login) and sends its device the
/// configuration.
#[utoipa::path(patch, path = "/device/remote_cam/{id}/", tag = "devices",
    params(("id" = i64, Path, description = "The remote camera")), request_body = RemoteCamPatch,
    responses((status = 200, body = RemoteCam), (status = 400), (status = 403), (status = 404)))]
pub async fn patch(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<RemoteCamPatch>,
) -> ApiResult<axum::Json<RemoteCam>> {
    req.check_lengths()?;
    let (cam, row) = cam_for_change(&state, &me, id).await?;
    let remote = cfg::remote_cams(&state.db, row.id).await?;
    let name = match &req.name {
        Some(n) => check_name(&row, &remote, n, Some(id))?,
        None => cam.name.clone(),
    };
    let (url, username, password) = match &req.url {
        Some(u) => check_url(u, req.username.as_deref(), req.password.as_deref())?,
        None => {
            // The kept URL has no login in it: only the given one is checked.
            let (_, u, p) = check_url(&cam.url, req.username.as_deref(), req.password.as_deref())?;
            (cam.url.clone(), u, p)
        }
    };
    let username = username.unwrap_or_else(|| cam.username.clone());
    let password = password.unwrap_or_else(|| cam.password.clone());
    let write = CamWrite {
        name: &name,
        url: &url,
        username: &username,
        password: &password,
    };
    let taken = || format!("{} already has a remote camera {name}.", row.display_name);
    let mut tx = state.db.begin_write().await?;
    cfg::update_remote_cam(&mut tx, id, &write)
        .await
        .map_err(|e| ApiError::unique_as(e, "name", taken()))?;
    cfg::bump(&mut tx, row.id).await?;
    tx.commit().await?;
    send(&state, row.organization_id, row.id).await?;
    let c = cfg::remote_cam(&state.db, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(axum::Json(answer(&row, c)))
}

/// Detaches remote camera `id` and sends its device the configuration.
#[utoipa::path(delete, path = "/device/remote_cam/{id}/", tag = "devices",
    params(("id" = i64, Path, description = "The remote camera")),
    responses((status = 200, body = Msg), (status = 403), (status = 404)))]
pub async fn delete(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Msg>> {
    let (_, row) = cam_for_change(&state, &me, id).await?;
    let mut tx = state.db.begin_write().await?;
    cfg::delete_remote_cam(&mut tx, id).await?;
    cfg::bump(&mut tx, row.id).await?;
    tx.commit().await?;
    send(&state, row.organization_id, row.id).await?;
    Ok(axum::Json(Msg::new("Data deleted successfully!")))
}
