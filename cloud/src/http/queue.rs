//! The cloud's own job queue over HTTP (docs/decisions.md "send_message_to_sqs"):
//! - `POST generic/send_message_to_sqs/`: a message onto a queue of the spec's, checked
//!   when sent as the call it stands for would check it (the job checks again when it
//!   runs, as the sender): `trim_video` makes a video, so it needs `ManageVideos` and
//!   the subscription, like an upload, and a ready video of the caller's organisation
//!   whose length the span starts in; `update_task` and `cloning_task` what the task's
//!   PATCH and `generic/clone_task/` need (`ManageTasks`, Define Operation, the changes
//!   or the copy's name good for the task now); `sample_images_for_detector` what
//!   taking an annotation image needs (`LabelVideos`, the organisation's task).
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
use crate::http::annotations::sample;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path};
use crate::http::tasks::queued as tasks;
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
    check(&req).map_err(|(f, m)| ApiError::field(f, m))?;
    let task = req.task_id.unwrap_or_default();
    let org = match req.queue.as_str() {
        "trim_video" => check_trim(&state, &me, &req).await?,
        "update_task" => {
            let changes = req.changes.as_ref().expect("checked");
            tasks::check_update(&state, &me, task, changes).await?
        }
        "cloning_task" => {
            let name = req.task_name.as_deref().expect("checked");
            tasks::check_clone(&state, &me, task, name, req.organization).await?
        }
        _ => sample::check(&state, &me, task).await?,
    };
    let sender = db::Sender {
        user: me.user.id,
        role: me.role.as_str(),
    };
    let row = db::create(&state.db, org, Some(sender), &req).await?;
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

/// A `trim_video` message's checks: the right to add videos, and a ready video of the
/// organisation whose length the span starts in. Answers the organisation.
async fn check_trim(state: &AppState, me: &AuthUser, req: &QueueMessageCreate) -> ApiResult<i64> {
    let org = crate::http::videos::org_to_change(state, me).await?;
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
    Ok(org)
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
