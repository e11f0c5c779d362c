//! The labeler area (spec section 2 "Labeler area"): an organisation requests labeling of
//! a task from a labeler (`organization/task/{id}/labelers/`, `ManageTasks`); the labeler
//! (`LabelRequested`, the role `labeler`, usually of no organisation) lists the tasks
//! requested of them (`labeler/tasks/`), a task's videos (`labeler/videos/{taskId}`) and
//! reads and saves their step labels (`labeler/task_record/{id}/labels/`), through the
//! same checks as Label Training Set. Anything not requested of them answers 404.

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::labeler::{LabelRequest, LabelRequestCreate, RequestedTask};
use gemba_shared::api::v1::task::TaskSettings;
use gemba_shared::api::v1::video::{LabelsPut, TaskVideos, Video, VideoLabels};
use gemba_shared::api::v1::{Msg, Page};
use gemba_shared::roles::Role;
use gemba_shared::validate::Bounded;
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::videos::{self, Filter, VideoRow};
use crate::db::{labelers, users};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path, Query};
use crate::media::urls::Viewer;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_requests, request))
        .routes(routes!(withdraw))
        .routes(routes!(requested_tasks))
        .routes(routes!(task_videos))
        .routes(routes!(get_labels, put_labels))
        .routes(routes!(mark_propagations_as_reviewed))
}

// ----- the organisation's side -----------------------------------------------------------

/// The request's organisation, when task `id` is one of its tasks (404 otherwise).
async fn org_task(state: &AppState, me: &AuthUser, id: i64) -> ApiResult<i64> {
    let org = me.org()?;
    crate::http::videos::task_of(state, me, org, id).await?;
    Ok(org)
}

async fn requests(state: &AppState, org: i64, task: i64) -> ApiResult<Vec<LabelRequest>> {
    Ok(labelers::of_task(&state.db, org, task)
        .await?
        .into_iter()
        .map(|r| LabelRequest {
            labeler: r.labeler_id,
            email: r.email,
            name: r.name,
            requested_at: r.created_at,
        })
        .collect())
}

/// The labelers a task is requested of.
#[utoipa::path(get, path = "/organization/task/{id}/labelers/", tag = "labeler", params(("id" = i64, Path)),
    responses((status = 200, body = Vec<LabelRequest>), (status = 403), (status = 404)))]
pub async fn list_requests(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Vec<LabelRequest>>> {
    me.require(Permission::ViewTasks)?;
    let org = org_task(&state, &me, id).await?;
    Ok(axum::Json(requests(&state, org, id).await?))
}

/// Request labeling of the task from the labeler with this e-mail address; answers the
/// task's labelers.
#[utoipa::path(post, path = "/organization/task/{id}/labelers/", tag = "labeler", params(("id" = i64, Path)),
    request_body = LabelRequestCreate,
    responses((status = 201, body = Vec<LabelRequest>), (status = 400), (status = 403), (status = 404)))]
pub async fn request(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<LabelRequestCreate>,
) -> ApiResult<(StatusCode, axum::Json<Vec<LabelRequest>>)> {
    req.check_lengths()?;
    me.require(Permission::ManageTasks)?;
    let org = org_task(&state, &me, id).await?;
    let email = req.email.trim();
    if email.is_empty() {
        return Err(ApiError::field("email", "This field may not be blank."));
    }
    let labeler = users::by_email(&state.db, email)
        .await?
        .filter(|u| u.role() == Some(Role::Labeler) && u.is_active)
        .ok_or_else(|| ApiError::field("email", "No labeler has this e-mail address."))?;
    if !labelers::request(&state.db, org, id, labeler.id, me.user.id).await? {
        return Err(ApiError::field(
            "email",
            "Labeling of this task is already requested of this labeler.",
        ));
    }
    Ok((
        StatusCode::CREATED,
        axum::Json(requests(&state, org, id).await?),
    ))
}

/// Withdraw the request: the labeler no longer reaches the task.
#[utoipa::path(delete, path = "/organization/task/{id}/labelers/{labeler}/", tag = "labeler",
    params(("id" = i64, Path), ("labeler" = i64, Path)),
    responses((status = 204), (status = 403), (status = 404)))]
pub async fn withdraw(
    State(state): State<AppState>,
    me: AuthUser,
    Path((id, labeler)): Path<(i64, i64)>,
) -> ApiResult<StatusCode> {
    me.require(Permission::ManageTasks)?;
    let org = org_task(&state, &me, id).await?;
    if !labelers::withdraw(&state.db, org, id, labeler).await? {
        return Err(ApiError::NotFound);
    }
    Ok(StatusCode::NO_CONTENT)
}

// ----- the labeler's side ----------------------------------------------------------------

/// The tasks requested of the signed-in labeler, newest request first.
#[utoipa::path(get, path = "/labeler/tasks/", tag = "labeler",
    responses((status = 200, body = Vec<RequestedTask>), (status = 403)))]
pub async fn requested_tasks(
    State(state): State<AppState>,
    me: AuthUser,
) -> ApiResult<axum::Json<Vec<RequestedTask>>> {
    me.require(Permission::LabelRequested)?;
    let rows = labelers::requested(&state.db, me.user.id).await?;
    Ok(axum::Json(
        rows.into_iter()
            .map(|r| {
                let s: TaskSettings = serde_json::from_str(&r.settings).unwrap_or_default();
                RequestedTask {
                    id: r.task_id,
                    steps: s.operation().step_names(),
                    task_name: s.task_name,
                    organization: r.organization_id,
                    org_name_to_display: r.org_name_to_display,
                    ready_videos: r.ready_videos,
                    labelled_videos: r.labelled_videos,
                    requested_at: r.created_at,
                }
            })
            .collect(),
    ))
}

/// The organisation of `task` when it is requested of the labeler (404 otherwise).
async fn requested_org(state: &AppState, me: &AuthUser, task: i64) -> ApiResult<i64> {
    me.require(Permission::LabelRequested)?;
    labelers::org_of_requested(&state.db, me.user.id, task)
        .await?
        .ok_or(ApiError::NotFound)
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct PageQuery {
    #[serde(default)]
    pub page: Option<i64>,
}

/// A requested task's ready videos, newest first, a page at a time.
#[utoipa::path(get, path = "/labeler/videos/{taskId}", tag = "labeler",
    params(("taskId" = i64, Path), PageQuery),
    responses((status = 200, body = Page<Video>), (status = 400), (status = 403), (status = 404)))]
pub async fn task_videos(
    State(state): State<AppState>,
    me: AuthUser,
    Path(task): Path<i64>,
    Query(q): Query<PageQuery>,
) -> ApiResult<axum::Json<Page<Video>>> {
    let org = requested_org(&state, &me, task).await?;
    let ready = Filter {
        ready_only: true,
        ..Filter::default()
    };
    Ok(axum::Json(
        crate::http::videos::list::page_of(
            &state,
            Viewer::Session(&me.session),
            org,
            task,
            &ready,
            q.page,
        )
        .await?,
    ))
}

/// Video `id` when its task is requested of the labeler (404 otherwise).
async fn requested_video(state: &AppState, me: &AuthUser, id: i64) -> ApiResult<VideoRow> {
    me.require(Permission::LabelRequested)?;
    let v = videos::by_id(&state.db, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    let org = requested_org(state, me, v.task_id).await?;
    if org != v.organization_id {
        return Err(ApiError::NotFound);
    }
    Ok(v)
}

/// A requested video's step labels.
#[utoipa::path(get, path = "/labeler/task_record/{id}/labels/", tag = "labeler", params(("id" = i64, Path)),
    responses((status = 200, body = VideoLabels), (status = 403), (status = 404)))]
pub async fn get_labels(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<VideoLabels>> {
    let v = requested_video(&state, &me, id).await?;
    Ok(axum::Json(
        crate::http::videos::labels::labels_of(&state, &me, v).await?,
    ))
}

/// Saves a requested video's step labels, checked as on Label Training Set.
#[utoipa::path(put, path = "/labeler/task_record/{id}/labels/", tag = "labeler", params(("id" = i64, Path)),
    request_body = LabelsPut,
    responses((status = 200, body = VideoLabels), (status = 400), (status = 403), (status = 404),
        (status = 409, description = "The video is still uploading")))]
pub async fn put_labels(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(body): Json<LabelsPut>,
) -> ApiResult<axum::Json<VideoLabels>> {
    let v = requested_video(&state, &me, id).await?;
    Ok(axum::Json(
        crate::http::videos::labels::save_labels(&state, &me, v, body).await?,
    ))
}

/// Marks propagated labels of a requested task reviewed, as on Label Training Set.
#[utoipa::path(patch, path = "/labeler/task/mark_propagations_as_reviewed", tag = "labeler",
    request_body = TaskVideos,
    responses((status = 200, body = Msg), (status = 400), (status = 403)))]
pub async fn mark_propagations_as_reviewed(
    State(state): State<AppState>,
    me: AuthUser,
    Json(body): Json<TaskVideos>,
) -> ApiResult<axum::Json<Msg>> {
    let org = requested_org(&state, &me, body.task)
        .await
        .map_err(|e| match e {
            ApiError::NotFound => {
                ApiError::field("task", "Choose one of the tasks requested of you.")
            }
            e => e,
        })?;
    Ok(axum::Json(
        crate::http::videos::labels::mark_reviewed(&state, &me, org, body).await?,
    ))
}
