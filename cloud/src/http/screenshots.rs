//! Screenshots (spec section 7 "Devices": `organization/get_screenshot` and
//! `get_screenshot_intervals`, issue 29): a JPEG of a device's camera, blur applied on
//! the device, asked for now or taken at the device's interval (`crate::screenshots`),
//! kept in the object store (`org/{id}/screenshots/…`) with a row each, answered with
//! a signed media URL. The device uploads each with one `PUT` to the link its
//! `screenshot` command carried (`device/screenshot/{token}`).

use std::time::Duration;

use axum::body::Body;
use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::cameras::{Screenshot, ScreenshotKind};
use gemba_shared::api::v1::{PAGE_SIZE, Page, page_offset};
use object_store::ObjectStoreExt;
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::token_hash;
use crate::db::screenshots::{self, ScreenshotRow};
use crate::db::upload_tokens::{self, Refusal};
use crate::db::{Db, now_ms};
use crate::http::clips::link_refused;
use crate::http::devices::blur::check_device_camera;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Path, Query};
use crate::media::urls::{Viewer, media_url};
use crate::objects;
use crate::state::AppState;

/// Largest screenshot a device may upload.
pub const MAX_SCREENSHOT_BYTES: usize = 16 * 1024 * 1024;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_screenshot))
        .routes(routes!(get_screenshot_intervals))
        .routes(routes!(upload))
}

fn answer(state: &AppState, viewer: Viewer<'_>, r: ScreenshotRow) -> ApiResult<Screenshot> {
    let key = r.object_key.clone().unwrap_or_default();
    Ok(Screenshot {
        id: r.id,
        device: r.device_id,
        camera: r.camera,
        kind: if r.kind == screenshots::INTERVAL {
            ScreenshotKind::Interval
        } else {
            ScreenshotKind::OnDemand
        },
        taken_at: r.taken_at.unwrap_or(r.requested_at),
        size_bytes: r.size_bytes,
        url: media_url(state, viewer, r.organization_id, &key)?,
    })
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct ShotQuery {
    pub device: i64,
    pub camera: String,
}

/// The device's answer to a command, once it came: (ok, message).
async fn answer_of(db: &Db, device: i64, command: &str) -> sqlx::Result<Option<(bool, String)>> {
    let row: Option<(Option<i64>, Option<String>)> = sqlx::query_as(
        "SELECT ok, message FROM device_commands WHERE device_id = $1 AND id = $2 \
         AND acked_at IS NOT NULL",
    )
    .bind(device)
    .bind(command)
    .fetch_optional(&db.pool)
    .await?;
    Ok(row.map(|(ok, m)| (ok == Some(1), m.unwrap_or_default())))
}

/// Takes a screenshot of a device's camera now: asks the device (online), waits for
/// its JPEG (`screenshot_wait_ms`, 10 s by default) and answers it. A device that
/// refuses says why (502); one that does not answer in time gets 504.
#[utoipa::path(get, path = "/organization/get_screenshot", tag = "devices", params(ShotQuery),
    responses((status = 200, body = Screenshot), (status = 400), (status = 403), (status = 404),
        (status = 502, description = "The device could not take it, and why"),
        (status = 504, description = "The device did not send it in time")))]
pub async fn get_screenshot(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<ShotQuery>,
) -> ApiResult<axum::Json<Screenshot>> {
    me.require(Permission::ViewDevices)?;
    let org = if me.is_admin() { None } else { Some(me.org()?) };
    let row = crate::db::devices::get(&state.db, me.user.id, org, q.device)
        .await?
        .ok_or(ApiError::NotFound)?;
    if !row.enrolled || !row.online || row.archived {
        return Err(ApiError::field(
            "device",
            format!(
                "{} is offline: try again once it is online.",
                row.display_name
            ),
        ));
    }
    let camera = check_device_camera(&state, &row, &q.camera, false).await?;
    let (id, command) = crate::screenshots::request(&state, &row, &camera, screenshots::ON_DEMAND)
        .await
        .map_err(ApiError::Internal)?;
    let wait = Duration::from_millis(state.settings.screenshot_wait_ms);
    let until = tokio::time::Instant::now() + wait;
    loop {
        let shot = screenshots::get(&state.db, row.organization_id, id)
            .await?
            .filter(|s| s.taken_at.is_some());
        if let Some(s) = shot {
            return Ok(axum::Json(answer(&state, Viewer::Session(&me.session), s)?));
        }
        if let Some((false, why)) = answer_of(&state.db, row.id, &command).await? {
            return Err(ApiError::Status(
                StatusCode::BAD_GATEWAY,
                format!("{} could not take the screenshot: {why}", row.display_name),
            ));
        }
        if tokio::time::Instant::now() >= until {
            return Err(ApiError::Status(
                StatusCode::GATEWAY_TIMEOUT,
                format!(
                    "{} did not send the screenshot within {} s.",
                    row.display_name,
                    wait.as_secs_f32()
                ),
            ));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct IntervalsQuery {
    pub device: i64,
    /// Only this camera's.
    pub camera: Option<String>,
    /// From (unix ms, inclusive).
    pub datetime_start: Option<i64>,
    /// To (unix ms, inclusive).
    pub datetime_end: Option<i64>,
    pub page: Option<i64>,
}

/// The screenshots a device's cameras took at its interval over a time range, newest
/// first, a page of ten, each with a signed URL.
#[utoipa::path(get, path = "/organization/get_screenshot_intervals", tag = "devices",
    params(IntervalsQuery),
    responses((status = 200, body = Page<Screenshot>), (status = 400), (status = 403), (status = 404)))]
pub async fn get_screenshot_intervals(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<IntervalsQuery>,
) -> ApiResult<axum::Json<Page<Screenshot>>> {
    me.require(Permission::ViewDevices)?;
    let org = if me.is_admin() { None } else { Some(me.org()?) };
    let row = crate::db::devices::get(&state.db, me.user.id, org, q.device)
        .await?
        .ok_or(ApiError::NotFound)?;
    let offset = page_offset(q.page).ok_or_else(|| ApiError::field("page", "Invalid page."))?;
    if let (Some(a), Some(b)) = (q.datetime_start, q.datetime_end)
        && b < a
    {
        return Err(ApiError::field(
            "datetime_end",
            "The end of the range is before its start.",
        ));
    }
    let which = screenshots::Taken {
        device: row.id,
        camera: q.camera.as_deref(),
        kind: screenshots::INTERVAL,
        from: q.datetime_start,
        to: q.datetime_end,
    };
    let (rows, count) = screenshots::taken(&state.db, &which, offset, PAGE_SIZE).await?;
    let results = rows
        .into_iter()
        .map(|r| answer(&state, Viewer::Session(&me.session), r))
        .collect::<ApiResult<_>>()?;
    Ok(axum::Json(Page { results, count }))
}

/// A device's screenshot (a JPEG), the whole file in one request, to the link its
/// `screenshot` command carried, once.
#[utoipa::path(put, path = "/device/screenshot/{token}", tag = "devices", security(()),
    params(("token" = String, Path)),
    request_body(content = Vec<u8>, content_type = "image/jpeg"),
    responses((status = 200, body = Screenshot), (status = 400), (status = 404),
        (status = 409, description = "The link was used"),
        (status = 410, description = "The link has expired"), (status = 413)))]
pub async fn upload(
    State(state): State<AppState>,
    Path(token): Path<String>,
    body: Body,
) -> ApiResult<axum::Json<Screenshot>> {
    let hash = token_hash(&token);
    let link = upload_tokens::get(&state.db, &hash).await?;
    let subject: String = link
        .as_ref()
        .and_then(|l| serde_json::from_str::<Vec<String>>(&l.subjects).ok())
        .and_then(|v| v.into_iter().next())
        .unwrap_or_default();
    let refused = |r| link_refused(r, "screenshot", "screenshot");
    let (org, device) =
        upload_tokens::check(link.as_ref(), upload_tokens::SCREENSHOT, &subject, now_ms())
            .map_err(refused)?;
    let id: i64 = subject.parse().map_err(|_| ApiError::NotFound)?;
    let bytes = axum::body::to_bytes(body, MAX_SCREENSHOT_BYTES)
        .await
        .map_err(|_| {
            ApiError::Status(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "A screenshot may be at most {} MiB.",
                    MAX_SCREENSHOT_BYTES / (1024 * 1024)
                ),
            )
        })?;
    if !bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return Err(ApiError::field("file", "The screenshot is not a JPEG."));
    }
    // Once: of two uploads at once, one.
    if !upload_tokens::use_once(&state.db, &hash, now_ms()).await? {
        return Err(refused(Refusal::Used));
    }
    let name = format!("screenshots/{device}/{id}.jpg");
    let size = bytes.len() as i64;
    state
        .objects
        .put(&objects::key(org, &name), bytes.into())
        .await
        .map_err(|e| ApiError::Internal(anyhow::Error::new(e).context("keeping a screenshot")))?;
    if !screenshots::arrived(&state.db, id, &name, size).await? {
        return Err(refused(Refusal::Used));
    }
    let row = screenshots::get(&state.db, org, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(axum::Json(answer(&state, Viewer::Device, row)?))
}
