//! Tampering requests (issue 31; the spec names the admin screen
//! `/admin/tampering-requests`, not its calls): a camera covered or moved, as its device
//! reported it, for a person to review. `GET telemetry/tampering_requests/` lists them
//! (the super admin every organisation's, or one's with `?organization=`; anyone else
//! who may view devices their own organisation's), open ones first, with the screenshot
//! taken when each opened. `PATCH telemetry/tampering_requests/{id}/` decides one:
//! `accept_view` (a moved camera only) sends the device `rebaseline` and waits for its
//! answer, `dismiss` needs a note; both record who, when and why, once.

use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::device::CameraEventKind;
use gemba_shared::api::v1::tampering::{
    TAMPERING_NOTE_MAX, TamperingAction, TamperingRequest, TamperingReview, TamperingState,
};
use gemba_shared::api::v1::{PAGE_SIZE, Page, page_offset};
use gemba_shared::mqtt::v1::Command;
use serde::Deserialize;

use crate::db::tampering::{self, Decision, Filter, Row};
use crate::db::{devices, now_ms};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path, Query};
use crate::media::urls::{Viewer, media_url};
use crate::state::AppState;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct ListQuery {
    /// One organisation's (the super admin; anyone else's own).
    pub organization: Option<i64>,
    /// `open` or `resolved`; both when absent.
    pub state: Option<String>,
    pub page: Option<i64>,
}

fn answer(state: &AppState, me: &AuthUser, r: Row) -> ApiResult<Option<TamperingRequest>> {
    let Some(kind) = CameraEventKind::parse(&r.kind) else {
        return Ok(None);
    };
    let action = r
        .action
        .as_deref()
        .map(|a| TamperingAction::parse(a).unwrap_or(TamperingAction::Dismiss));
    let screenshot = match &r.screenshot_key {
        Some(key) => Some(media_url(
            state,
            Viewer::Session(&me.session),
            r.organization_id,
            key,
        )?),
        None => None,
    };
    Ok(Some(TamperingRequest {
        id: r.id,
        organization: r.organization_id,
        organization_name: r.organization_name,
        device: r.device_id,
        device_name: r.device_name,
        camera: r.camera,
        kind,
        started_at: r.started_at,
        ended_at: r.ended_at,
        detail: r.detail,
        screenshot,
        screenshot_taken_at: r.screenshot_key.and(r.screenshot_taken_at),
        state: if action.is_some() {
            TamperingState::Resolved
        } else {
            TamperingState::Open
        },
        action,
        note: r.note.unwrap_or_default(),
        reviewed_by: r.reviewer_email,
        reviewed_at: r.reviewed_at,
    }))
}

/// The organisation `me` reads and decides requests of: any (`None`) for the super
/// admin, else their own.
fn scope(me: &AuthUser) -> ApiResult<Option<i64>> {
    if me.is_admin() {
        Ok(None)
    } else {
        Ok(Some(me.org()?))
    }
}

/// Cameras covered or moved, open ones first, then newest first, ten a page: the super
/// admin's of every organisation (or of `organization`), anyone else's of their own.
#[utoipa::path(get, path = "/telemetry/tampering_requests/", tag = "telemetry",
    params(ListQuery),
    responses((status = 200, body = Page<TamperingRequest>), (status = 400), (status = 403)))]
pub async fn list(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<ListQuery>,
) -> ApiResult<axum::Json<Page<TamperingRequest>>> {
    me.require(Permission::ViewDevices)?;
    let offset = page_offset(q.page).ok_or_else(|| ApiError::field("page", "Invalid page."))?;
    let open = match q.state.as_deref() {
        None | Some("") => None,
        Some("open") => Some(true),
        Some("resolved") => Some(false),
        Some(_) => {
            return Err(ApiError::field("state", "Choose open or resolved."));
        }
    };
    let org = match (scope(&me)?, q.organization) {
        (None, asked) => asked,
        (Some(own), None) => Some(own),
        (Some(own), Some(asked)) if asked == own => Some(own),
        (Some(_), Some(_)) => return Err(ApiError::Forbidden),
    };
    let (rows, count) =
        tampering::list(&state.db, &Filter { org, open }, offset, PAGE_SIZE).await?;
    let mut results = vec![];
    for r in rows {
        results.extend(answer(&state, &me, r)?);
    }
    Ok(axum::Json(Page { results, count }))
}

/// Decides a request: `accept_view` (a moved camera, its device online) sends the
/// device `rebaseline` and waits for its answer (`screenshot_wait_ms`): refused, it says
/// why (502), silent, 504, and the request stays open; `dismiss` needs a note. A
/// request decided already is 409.
#[utoipa::path(patch, path = "/telemetry/tampering_requests/{id}/", tag = "telemetry",
    params(("id" = i64, Path)), request_body = TamperingReview,
    responses((status = 200, body = TamperingRequest), (status = 400), (status = 403),
        (status = 404), (status = 409, description = "Decided already"),
        (status = 502, description = "The device could not take the new view, and why"),
        (status = 504, description = "The device did not answer in time")))]
pub async fn review(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(body): Json<TamperingReview>,
) -> ApiResult<axum::Json<TamperingRequest>> {
    me.require(Permission::ManageDevices)?;
    let org = scope(&me)?;
    let row = tampering::get(&state.db, org, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    let action = TamperingAction::parse(&body.action)
        .ok_or_else(|| ApiError::field("action", "Choose accept_view or dismiss."))?;
    let note = body.note.as_deref().unwrap_or("").trim().to_string();
    if note.chars().count() > TAMPERING_NOTE_MAX {
        return Err(ApiError::field(
            "note",
            format!("Ensure this field has no more than {TAMPERING_NOTE_MAX} characters."),
        ));
    }
    if row.action.is_some() {
        return Err(decided());
    }
    let mut command = None;
    match action {
        TamperingAction::Dismiss if note.is_empty() => {
            return Err(ApiError::field("note", "Say why the request is dismissed."));
        }
        TamperingAction::Dismiss => {}
        TamperingAction::AcceptView => {
            if row.kind != CameraEventKind::Moved.as_str() {
                return Err(ApiError::field(
                    "action",
                    "Only a moved camera's view can be accepted: dismiss this request once \
                     the camera is uncovered.",
                ));
            }
            command = Some(rebaseline(&state, &row).await?);
        }
    }
    let d = Decision {
        action: action.as_str(),
        note: &note,
        user: me.user.id,
        email: &me.user.email,
        at: now_ms(),
        command: command.as_deref(),
    };
    if !tampering::decide(&state.db, id, &d).await? {
        return Err(decided());
    }
    let row = tampering::get(&state.db, org, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    answer(&state, &me, row)?
        .map(axum::Json)
        .ok_or(ApiError::NotFound)
}

fn decided() -> ApiError {
    ApiError::Status(
        StatusCode::CONFLICT,
        "This request was reviewed already.".into(),
    )
}

/// Sends the request's device `rebaseline` for its camera and waits for its answer:
/// the command's id once the device took the new view.
async fn rebaseline(state: &AppState, r: &Row) -> ApiResult<String> {
    let device = devices::get(&state.db, 0, Some(r.organization_id), r.device_id)
        .await?
        .ok_or(ApiError::NotFound)?;
    if !device.enrolled || !device.online || device.archived {
        return Err(ApiError::field(
            "device",
            format!(
                "{} is offline: try again once it is online.",
                device.display_name
            ),
        ));
    }
    let command = state
        .mqtt
        .command(
            &state.db,
            r.organization_id,
            r.device_id,
            Command::Rebaseline {
                camera: r.camera.clone(),
            },
        )
        .await?;
    let wait = Duration::from_millis(state.settings.screenshot_wait_ms);
    let until = tokio::time::Instant::now() + wait;
    loop {
        match tampering::answer_of(&state.db, r.device_id, &command).await? {
            Some((true, _)) => return Ok(command),
            Some((false, why)) => {
                return Err(ApiError::Status(
                    StatusCode::BAD_GATEWAY,
                    format!("{} could not take the new view: {why}", device.display_name),
                ));
            }
            None => {}
        }
        if tokio::time::Instant::now() >= until {
            return Err(ApiError::Status(
                StatusCode::GATEWAY_TIMEOUT,
                format!(
                    "{} did not answer within {} s: the request stays open.",
                    device.display_name,
                    wait.as_secs_f32()
                ),
            ));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
