//! The cloud's own job queue over HTTP (docs/decisions.md "send_message_to_sqs"):
//! - `POST generic/send_message_to_sqs/`: a message onto a queue of the spec's
//!   (`trim_video` is run; the others answer 400, not supported yet). Trimming makes a
//!   video, so it needs `ManageVideos` and the subscription, like an upload; the video
//!   must be a ready video of the caller's organisation and the span start inside it.
//!   Answers 201 with the message, `queued`.
//! - `GET generic/queue_message/{id}/` (ours): the message as its job went, `started`
//!   then `finished` (with the new video) or `failed` (with why); `ViewVideos`.

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::queue::{QueueMessage, QueueMessageCreate, check};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::{queue as db, videos};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path};
use crate::jobs::MessageJob;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(send_message))
        .routes(routes!(message))
}

/// Puts a message onto one of the cloud's queues, for a worker to run.
#[utoipa::path(post, path = "/generic/send_message_to_sqs/", tag = "queue",
    request_body = QueueMessageCreate,
    responses((status = 201, body = QueueMessage), (status = 400), (status = 403), (status = 404)))]
pub async fn send_message(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<QueueMessageCreate>,
) -> ApiResult<(StatusCode, axum::Json<QueueMessage>)> {
    let org = crate::http::videos::org_to_change(&state, &me).await?;
    check(&req).map_err(|(f, m)| ApiError::field(f, m))?;
    let vid = req.video_id.unwrap_or_default();
    let v = videos::get(&state.db, org, vid)
        .await?
        .ok_or(ApiError::NotFound)?;
    if v.status != videos::READY {
        return Err(ApiError::field("video_id", "The video is not ready yet."));
    }
    if req.start_ms.unwrap_or_default() >= v.duration_ms.unwrap_or_default() {
        return Err(ApiError::field(
            "start_ms",
            format!(
                "The start is past the video's end ({} ms).",
                v.duration_ms.unwrap_or_default()
            ),
        ));
    }
    let row = db::create(&state.db, org, Some(me.user.id), &req).await?;
    if let Err(e) = state
        .jobs
        .push_message(MessageJob { message: row.id })
        .await
    {
        db::delete(&state.db, row.id).await?;
        return Err(e.into());
    }
    Ok((StatusCode::CREATED, axum::Json(row.to_api())))
}

/// A message and how its job went.
#[utoipa::path(get, path = "/generic/queue_message/{id}/", tag = "queue",
    params(("id" = i64, Path, description = "the message's id")),
    responses((status = 200, body = QueueMessage), (status = 403), (status = 404)))]
pub async fn message(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<QueueMessage>> {
    me.require(Permission::ViewVideos)?;
    let org = me.org()?;
    let id: i64 = id.parse().map_err(|_| ApiError::NotFound)?;
    let m = db::get(&state.db, org, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(axum::Json(m.to_api()))
}
