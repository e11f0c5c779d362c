//! Privacy blur regions (`device/blur_regions`, `device/delete_blur_regions`, issue
//! 29): rectangles of a device camera's frame (fractions 0–1, top-left origin) that
//! the device blurs before any pixel leaves it. `POST` adds to a camera's regions,
//! `PUT` replaces them; a region outside the frame or empty is refused whole, nothing
//! written. Every change bumps the device's configuration and sends it.

use std::collections::BTreeSet;

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::cameras::{BlurRegionsWrite, DeviceBlurRegion};
use gemba_shared::api::v1::device::check_camera;
use gemba_shared::mqtt::v1::{self, MAX_BLUR_REGIONS};
use gemba_shared::validate::Bounded;
use serde::Deserialize;

use crate::db::device_config::{self as cfg, BlurRow};
use crate::db::devices::DeviceRow;
use crate::device_config::send;
use crate::http::devices::{find, for_change};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Query};
use crate::state::AppState;

fn answer(b: BlurRow) -> DeviceBlurRegion {
    DeviceBlurRegion {
        id: b.id,
        device: b.device_id,
        camera: b.camera,
        x: b.x as f32,
        y: b.y as f32,
        width: b.width as f32,
        height: b.height as f32,
        created_at: b.created_at,
    }
}

/// The cameras of device `row`: its status's and its remote ones.
pub(crate) async fn cameras_of(state: &AppState, row: &DeviceRow) -> ApiResult<Vec<String>> {
    let mut all = row.cameras();
    for r in cfg::remote_cams(&state.db, row.id).await? {
        if !all.contains(&r.name) {
            all.push(r.name);
        }
    }
    Ok(all)
}

/// `camera` is one of device `row`'s cameras (or, with `known`, one it had regions
/// for): a 400 on `camera` otherwise.
pub(crate) async fn check_device_camera(
    state: &AppState,
    row: &DeviceRow,
    camera: &str,
    known: bool,
) -> ApiResult<String> {
    let camera = check_camera(camera.trim()).map_err(|m| ApiError::field("camera", m))?;
    if !known && !cameras_of(state, row).await?.iter().any(|c| c == camera) {
        return Err(ApiError::field(
            "camera",
            format!("{} has no camera {camera}.", row.display_name),
        ));
    }
    Ok(camera.to_string())
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct BlurQuery {
    pub device: i64,
    /// Only this camera's.
    pub camera: Option<String>,
}

/// The blur regions of a device (of one of its cameras).
#[utoipa::path(get, path = "/device/blur_regions", tag = "devices", params(BlurQuery),
    responses((status = 200, body = Vec<DeviceBlurRegion>), (status = 400), (status = 403), (status = 404)))]
pub async fn list(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<BlurQuery>,
) -> ApiResult<axum::Json<Vec<DeviceBlurRegion>>> {
    me.require(Permission::ViewDevices)?;
    let row = find(&state, &me, q.device).await?;
    let rows = cfg::blur_regions(&state.db, row.id, q.camera.as_deref()).await?;
    Ok(axum::Json(rows.into_iter().map(answer).collect()))
}

/// Checks a write: the camera, each rectangle, the device's total; answers the camera
/// and the rectangles as kept.
async fn check_write(
    state: &AppState,
    row: &DeviceRow,
    req: &BlurRegionsWrite,
    replace: bool,
) -> ApiResult<(String, Vec<[f64; 4]>)> {
    let existing = cfg::blur_regions(&state.db, row.id, None).await?;
    let has_regions = existing.iter().any(|b| b.camera == req.camera.trim());
    // Replacing a camera's regions (with none) works for a camera the device lost.
    let camera = check_device_camera(state, row, &req.camera, replace && has_regions).await?;
    if !replace && req.regions.is_empty() {
        return Err(ApiError::field("regions", "Draw at least one region."));
    }
    let mut rects = Vec::with_capacity(req.regions.len());
    for (i, r) in req.regions.iter().enumerate() {
        let region = v1::BlurRegion {
            camera: camera.clone(),
            x: r.x,
            y: r.y,
            width: r.width,
            height: r.height,
        };
        region
            .check()
            .map_err(|m| ApiError::field("regions", format!("Region {}: {m}", i + 1)))?;
        rects.push([r.x, r.y, r.width, r.height].map(f64::from));
    }
    let kept = existing
        .iter()
        .filter(|b| !(replace && b.camera == camera))
        .count();
    if kept + rects.len() > MAX_BLUR_REGIONS {
        return Err(ApiError::field(
            "regions",
            format!("A device has at most {MAX_BLUR_REGIONS} blur regions."),
        ));
    }
    Ok((camera, rects))
}

async fn write(
    state: &AppState,
    me: &AuthUser,
    req: BlurRegionsWrite,
    replace: bool,
) -> ApiResult<Vec<DeviceBlurRegion>> {
    req.check_lengths()?;
    let row = for_change(state, me, req.device, Permission::OperateDevices).await?;
    let (camera, rects) = check_write(state, &row, &req, replace).await?;
    let mut tx = state.db.begin_write().await?;
    if replace {
        cfg::clear_blur(&mut tx, row.id, &camera).await?;
    }
    for r in rects {
        cfg::insert_blur(&mut tx, row.id, &camera, r).await?;
    }
    cfg::bump(&mut tx, row.id).await?;
    tx.commit().await?;
    send(state, row.organization_id, row.id).await?;
    let rows = cfg::blur_regions(&state.db, row.id, Some(&camera)).await?;
    Ok(rows.into_iter().map(answer).collect())
}

/// Adds blur regions to a device's camera; answers the camera's regions.
#[utoipa::path(post, path = "/device/blur_regions", tag = "devices",
    request_body = BlurRegionsWrite,
    responses((status = 201, body = Vec<DeviceBlurRegion>), (status = 400), (status = 403), (status = 404)))]
pub async fn create(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<BlurRegionsWrite>,
) -> ApiResult<(StatusCode, axum::Json<Vec<DeviceBlurRegion>>)> {
    let v = write(&state, &me, req, false).await?;
    Ok((StatusCode::CREATED, axum::Json(v)))
}

/// Replaces a device camera's blur regions (none: removes them); answers them.
#[utoipa::path(put, path = "/device/blur_regions", tag = "devices",
    request_body = BlurRegionsWrite,
    responses((status = 200, body = Vec<DeviceBlurRegion>), (status = 400), (status = 403), (status = 404)))]
pub async fn replace(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<BlurRegionsWrite>,
) -> ApiResult<axum::Json<Vec<DeviceBlurRegion>>> {
    Ok(axum::Json(write(&state, &me, req, true).await?))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct IdsQuery {
    /// Comma-separated ids.
    pub ids: Option<String>,
}

/// Comma-separated ids: at least one, at most 1,000, each a positive number.
pub fn parse_ids(text: Option<&str>) -> Result<Vec<i64>, &'static str> {
    const BAD: &str = "Give the ids to delete, comma-separated.";
    let text = text.map(str::trim).filter(|t| !t.is_empty()).ok_or(BAD)?;
    let ids: BTreeSet<i64> = text
        .split(',')
        .map(|s| s.trim().parse::<i64>().ok().filter(|&n| n > 0))
        .collect::<Option<_>>()
        .ok_or(BAD)?;
    if ids.len() > 1000 {
        return Err("At most 1000 ids at once.");
    }
    Ok(ids.into_iter().collect())
}

/// Deletes blur regions by id (all of the caller's organisation, else none: 404);
/// sends each device concerned its configuration.
#[utoipa::path(delete, path = "/device/delete_blur_regions", tag = "devices", params(IdsQuery),
    responses((status = 200, body = Msg), (status = 400), (status = 403), (status = 404)))]
pub async fn delete(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<IdsQuery>,
) -> ApiResult<axum::Json<Msg>> {
    me.require(Permission::OperateDevices)?;
    let ids = parse_ids(q.ids.as_deref()).map_err(|m| ApiError::field("ids", m))?;
    let rows = cfg::blur_regions_by_id(&state.db, &ids).await?;
    if rows.len() != ids.len() {
        return Err(ApiError::NotFound);
    }
    let devices: BTreeSet<i64> = rows.iter().map(|r| r.device_id).collect();
    let mut reached = Vec::with_capacity(devices.len());
    for &d in &devices {
        reached.push(for_change(&state, &me, d, Permission::OperateDevices).await?);
    }
    let mut tx = state.db.begin_write().await?;
    cfg::delete_blur(&mut tx, &ids).await?;
    for d in &devices {
        cfg::bump(&mut tx, *d).await?;
    }
    tx.commit().await?;
    for r in reached {
        send(&state, r.organization_id, r.id).await?;
    }
    Ok(axum::Json(Msg::new("Data deleted successfully!")))
}

#[cfg(test)]
mod tests {
    use super::parse_ids;

    #[test]
    fn ids_are_comma_separated_positive_numbers() {
        assert_eq!(parse_ids(Some("3, 1,3")), Ok(vec![1, 3]));
        for bad in [
            None,
            Some(""),
            Some(" "),
            Some("1,,2"),
            Some("a"),
            Some("0"),
            Some("-1"),
        ] {
            assert!(parse_ids(bad).is_err(), "{bad:?}");
        }
        let many = (1..=1001)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",");
        assert!(parse_ids(Some(&many)).is_err());
    }
}
