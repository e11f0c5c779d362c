//! Validation groups: list (each with its runs), create, delete.

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::validation::{GROUP_DELETED, ValidationGroup, ValidationGroupCreate};

use super::{name_of, path_id};
use crate::db::tasks;
use crate::db::validation as db;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path};
use crate::state::AppState;

/// The organisation's validation groups, newest first, each with its runs.
#[utoipa::path(get, path = "/organization/validation-groups/", tag = "validation",
    responses((status = 200, body = Vec<ValidationGroup>), (status = 403)))]
pub async fn groups(
    State(state): State<AppState>,
    me: AuthUser,
) -> ApiResult<axum::Json<Vec<ValidationGroup>>> {
    me.require(Permission::ViewTasks)?;
    let org = me.org()?;
    let runs = db::runs(&state.db, org).await?;
    let groups = db::groups(&state.db, org).await?;
    Ok(axum::Json(
        groups.into_iter().map(|g| with_runs(g, &runs)).collect(),
    ))
}

/// A new validation group of one of the organisation's tasks.
#[utoipa::path(post, path = "/organization/validation-groups/", tag = "validation",
    request_body = ValidationGroupCreate,
    responses((status = 201, body = ValidationGroup), (status = 400), (status = 403)))]
pub async fn create_group(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<ValidationGroupCreate>,
) -> ApiResult<(StatusCode, axum::Json<ValidationGroup>)> {
    me.require(Permission::ManageTasks)?;
    let org = me.org()?;
    let name = name_of("name", &req.name)?;
    let task = tasks::get(&state.db, me.user.id, Some(org), req.task)
        .await?
        .filter(|t| !t.settings().is_deleted)
        .ok_or_else(|| ApiError::field("task", "Choose one of this organisation's tasks."))?;
    let id = db::insert_group(&state.db, org, task.id, &name)
        .await
        .map_err(|e| {
            ApiError::unique_as(
                e,
                "name",
                "This organization already has a group of this name.",
            )
        })?;
    let g = db::group(&state.db, org, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok((
        StatusCode::CREATED,
        axum::Json(group_api(&state, org, g).await?),
    ))
}

/// Deletes validation group `{id}` and its runs; its videos stay, in no group.
#[utoipa::path(delete, path = "/organization/validation-groups/{id}/", tag = "validation",
    params(("id" = i64, Path, description = "the group's id")),
    responses((status = 200, body = Msg), (status = 403), (status = 404)))]
pub async fn delete_group(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<Msg>> {
    me.require(Permission::ManageTasks)?;
    let org = me.org()?;
    if !db::delete_group(&state.db, org, path_id(&id)?).await? {
        return Err(ApiError::NotFound);
    }
    Ok(axum::Json(Msg::new(GROUP_DELETED)))
}

pub(super) fn with_runs(g: db::GroupRow, runs: &[db::RunRow]) -> ValidationGroup {
    ValidationGroup {
        runs: runs
            .iter()
            .filter(|r| r.group_id == g.id)
            .map(db::RunRow::summary)
            .collect(),
        id: g.id,
        name: g.name,
        task: g.task_id,
        task_name: g.task_name,
        videos: g.videos,
        checked_videos: g.checked_videos,
        created_at: g.created_at,
    }
}

pub(super) async fn group_api(
    state: &AppState,
    org: i64,
    g: db::GroupRow,
) -> ApiResult<ValidationGroup> {
    let runs = db::runs(&state.db, org).await?;
    Ok(with_runs(g, &runs))
}
