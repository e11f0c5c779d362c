//! Validation runs: started (the runner, `crate::validation`), read, and per video.

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::validation::{ValidationRun, ValidationRunCreate, ValidationRunVideo};

use super::{group_in, path_id};
use crate::db::training;
use crate::db::validation as db;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path};
use crate::state::AppState;

/// A run of model version `model_version` (of the group's task) over validation group
/// `group_id`'s checked videos, through `gemba-agent eval`; it runs in the background.
#[utoipa::path(post, path = "/organization/validation-runs/", tag = "validation",
    request_body = ValidationRunCreate,
    responses((status = 201, body = ValidationRun), (status = 400), (status = 403)))]
pub async fn start_run(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<ValidationRunCreate>,
) -> ApiResult<(StatusCode, axum::Json<ValidationRun>)> {
    me.require(Permission::ManageTasks)?;
    let org = me.org()?;
    let g = group_in(&state, org, req.group_id, "group_id").await?;
    let model = training::model(&state.db, org, req.model_version)
        .await?
        .filter(|m| !m.is_deleted)
        .ok_or_else(|| {
            ApiError::field(
                "model_version",
                "Choose one of this organisation's model versions.",
            )
        })?;
    if model.task_id != Some(g.task_id) {
        return Err(ApiError::field(
            "model_version",
            "That model version is of another task than this group.",
        ));
    }
    let checked: Vec<(i64, String)> = db::videos(&state.db, org, Some(g.id))
        .await?
        .into_iter()
        .filter(|v| v.reviewed)
        .map(|v| (v.id, v.name))
        .collect();
    if checked.is_empty() {
        return Err(ApiError::field(
            "group_id",
            "This group has no video with checked labels to run on.",
        ));
    }
    let id = db::insert_run(&state.db, org, g.id, model.id, &checked).await?;
    crate::validation::spawn(state.clone(), id);
    Ok((
        StatusCode::CREATED,
        axum::Json(run_api(&state, org, id).await?),
    ))
}

async fn run_api(state: &AppState, org: i64, id: i64) -> ApiResult<ValidationRun> {
    let r = db::run(&state.db, Some(org), id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(ValidationRun {
        status: r.status(),
        report: r.report(),
        id: r.id,
        group: r.group_id,
        group_name: r.group_name,
        model_version: r.model_version_id,
        model_version_name: r.model_version_name,
        error: r.error,
        done: r.done,
        of: r.of,
        created_at: r.created_at,
        finished_at: r.finished_at,
    })
}

/// Validation run `{id}`: its progress, and its report over its videos once done.
#[utoipa::path(get, path = "/organization/validation-runs/{id}/", tag = "validation",
    params(("id" = i64, Path, description = "the run's id")),
    responses((status = 200, body = ValidationRun), (status = 403), (status = 404)))]
pub async fn get_run(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<ValidationRun>> {
    me.require(Permission::ViewTasks)?;
    let org = me.org()?;
    Ok(axum::Json(run_api(&state, org, path_id(&id)?).await?))
}

/// Validation run `{id}`'s videos, each with its evaluation or why it has none.
#[utoipa::path(get, path = "/organization/validation-runs-videos/{id}/", tag = "validation",
    params(("id" = i64, Path, description = "the run's id")),
    responses((status = 200, body = Vec<ValidationRunVideo>), (status = 403), (status = 404)))]
pub async fn run_videos(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<Vec<ValidationRunVideo>>> {
    me.require(Permission::ViewTasks)?;
    let org = me.org()?;
    let r = db::run(&state.db, Some(org), path_id(&id)?)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(axum::Json(
        db::run_videos(&state.db, r.id)
            .await?
            .into_iter()
            .map(|v| ValidationRunVideo {
                report: v.eval(),
                id: v.id,
                video: v.validation_video_id,
                name: v.name,
                error: v.error,
            })
            .collect(),
    ))
}
