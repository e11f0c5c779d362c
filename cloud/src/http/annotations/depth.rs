//! The depth and projector calls (docs/decisions.md "Depth and projector calls"). They
//! name what a depth camera (a depth frame per image, the planes' equations in space,
//! the overlay of a plane on a frame) or a projector (its region, the media it shows)
//! adds to a task. No device reports a depth camera or a projector today, so:
//! `is_3d` answers `false`; the projector's image list is empty; every other call
//! checks what it names (the task, the plane) as any call does, then answers 409 with
//! [`NO_DEPTH_CAMERA`] or [`NO_PROJECTOR`].

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::annotation::{
    AnnotationImage, AnnotationTask, Is3d, NO_DEPTH_CAMERA, NO_PROJECTOR,
};
use gemba_shared::api::v1::{Page, page_offset};
use serde::Deserialize;

use super::{org_for, task_in};
use crate::db::task_objects;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path, Query};
use crate::state::AppState;

fn no_depth() -> ApiError {
    ApiError::Status(StatusCode::CONFLICT, NO_DEPTH_CAMERA.into())
}

fn no_projector() -> ApiError {
    ApiError::Status(StatusCode::CONFLICT, NO_PROJECTOR.into())
}

/// Task `id` of the organisation, for a call needing `p`.
async fn task(state: &AppState, me: &AuthUser, p: Permission, id: i64) -> ApiResult<i64> {
    let org = org_for(me, p)?;
    Ok(task_in(state, me, org, id).await?.id)
}

/// Plane object `id` of task `task` (404 otherwise).
async fn plane_of(state: &AppState, task: i64, id: i64) -> ApiResult<()> {
    match task_objects::plane(&state.db, id).await? {
        Some(p) if p.task == task => Ok(()),
        _ => Err(ApiError::NotFound),
    }
}

/// Whether the task's images have depth: none has (no depth camera is attached).
#[utoipa::path(get, path = "/organization/task/is_3d/{id}/", tag = "annotations",
    params(("id" = i64, Path, description = "the task's id")),
    responses((status = 200, body = Is3d), (status = 403), (status = 404)))]
pub async fn is_3d(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Is3d>> {
    task(&state, &me, Permission::ViewTasks, id).await?;
    Ok(axum::Json(Is3d { is_3d: false }))
}

/// The task's depth frame: 409, no depth camera is attached.
#[utoipa::path(get, path = "/organization/task/depth_frame/{id}/", tag = "annotations",
    params(("id" = i64, Path, description = "the task's id")),
    responses((status = 403), (status = 404), (status = 409, description = "No depth camera")))]
pub async fn get_depth_frame(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    task(&state, &me, Permission::ViewTasks, id).await?;
    Err(no_depth())
}

/// Takes a depth frame for the task: 409, no depth camera is attached.
#[utoipa::path(post, path = "/organization/task/depth_frame/{id}/", tag = "annotations",
    params(("id" = i64, Path, description = "the task's id")),
    responses((status = 403), (status = 404), (status = 409, description = "No depth camera")))]
pub async fn post_depth_frame(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    task(&state, &me, Permission::ManageTasks, id).await?;
    Err(no_depth())
}

/// The pixels without depth of the task's depth frame: 409, no depth camera.
#[utoipa::path(get, path = "/organization/task/zero_depth_pixel/{id}/", tag = "annotations",
    params(("id" = i64, Path, description = "the task's id")),
    responses((status = 403), (status = 404), (status = 409, description = "No depth camera")))]
pub async fn zero_depth_pixel(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    task(&state, &me, Permission::ViewTasks, id).await?;
    Err(no_depth())
}

/// A plane object's equation in space, from depth: 409, no depth camera.
#[utoipa::path(put, path = "/organization/task/calculate_plane_object_equation/{id}/", tag = "annotations",
    params(("id" = i64, Path, description = "the plane object's id")),
    responses((status = 403), (status = 404), (status = 409, description = "No depth camera")))]
pub async fn calculate_plane_object_equation(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    let org = org_for(&me, Permission::ManageTasks)?;
    let p = task_objects::plane(&state.db, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    task_in(&state, &me, org, p.task).await?;
    Err(no_depth())
}

/// Resets the task's plane objects' equations: 409, no depth camera (none was made).
#[utoipa::path(put, path = "/organization/task/reset_plane_objects/{id}/", tag = "annotations",
    params(("id" = i64, Path, description = "the task's id")),
    responses((status = 403), (status = 404), (status = 409, description = "No depth camera")))]
pub async fn reset_plane_objects(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    task(&state, &me, Permission::ManageTasks, id).await?;
    Err(no_depth())
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct OverlayQuery {
    /// The plane object to overlay.
    #[serde(default)]
    pub plane_id: Option<i64>,
}

/// A frame with a plane object overlaid by depth: 409, no depth camera.
#[utoipa::path(get, path = "/organization/task/get_overlay_frame/{id}/", tag = "annotations",
    params(("id" = i64, Path, description = "the task's id"), OverlayQuery),
    responses((status = 400), (status = 403), (status = 404), (status = 409, description = "No depth camera")))]
pub async fn get_overlay_frame(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Query(q): Query<OverlayQuery>,
) -> ApiResult<StatusCode> {
    let t = task(&state, &me, Permission::ViewTasks, id).await?;
    let plane = q
        .plane_id
        .ok_or_else(|| ApiError::field("plane_id", "This field is required."))?;
    plane_of(&state, t, plane).await?;
    Err(no_depth())
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct ProjectorQuery {
    /// The page, from 1.
    #[serde(default)]
    pub page: Option<i64>,
}

/// The images a projector shows for the task: none, no projector is attached.
#[utoipa::path(get, path = "/organization/task/projector_annotation_image_list/{task}/", tag = "annotations",
    params(("task" = i64, Path), ProjectorQuery),
    responses((status = 200, body = Page<AnnotationImage>), (status = 400), (status = 403), (status = 404)))]
pub async fn projector_image_list(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Query(q): Query<ProjectorQuery>,
) -> ApiResult<axum::Json<Page<AnnotationImage>>> {
    let org = org_for(&me, Permission::ViewVideos)?;
    page_offset(q.page).ok_or_else(|| ApiError::field("page", "Invalid page."))?;
    task_in(&state, &me, org, id).await?;
    Ok(axum::Json(Page {
        results: vec![],
        count: 0,
    }))
}

/// The region a projector lights for the task: 409, no projector is attached.
#[utoipa::path(put, path = "/generic/update_projector_region/", tag = "annotations",
    request_body = AnnotationTask,
    responses((status = 403), (status = 404), (status = 409, description = "No projector")))]
pub async fn update_projector_region(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<AnnotationTask>,
) -> ApiResult<StatusCode> {
    task(&state, &me, Permission::ManageTasks, req.task).await?;
    Err(no_projector())
}

/// Copies the media a projector shows to the task: 409, no projector is attached.
#[utoipa::path(patch, path = "/generic/copy_projector_media/", tag = "annotations",
    request_body = AnnotationTask,
    responses((status = 403), (status = 404), (status = 409, description = "No projector")))]
pub async fn copy_projector_media(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<AnnotationTask>,
) -> ApiResult<StatusCode> {
    task(&state, &me, Permission::ManageTasks, req.task).await?;
    Err(no_projector())
}
