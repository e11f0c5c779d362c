//! `organization/rectification_steps/` (spec section 7 "Tasks"): a task's rectification
//! steps (`api::v1::rectification`), each for one of its steps. Reading needs
//! `ViewTasks`; adding and deleting need what changing the task needs (`ManageTasks`
//! and the "Define Operation" subscription), but not a task at rest: they are what
//! people do, not what the model or the device runs, so a task in training or on a
//! device still takes them. Another organisation's task or step answers 404.

use gemba_shared::api::v1::rectification::{
    DESCRIPTION_REQUIRED, MAX_PER_STEP, RectificationStep, RectificationStepCreate, UNKNOWN_STEP,
    too_many_message,
};
use gemba_shared::validate::Bounded;

use super::*;
use crate::db::rectification::{self as db, Row};

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TaskQuery {
    /// The task.
    pub task: i64,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct IdQuery {
    /// The rectification step.
    pub id: i64,
}

fn answer(r: Row, steps: &[String]) -> RectificationStep {
    let step = u32::try_from(r.step_index).unwrap_or(u32::MAX);
    RectificationStep {
        id: r.id,
        task: r.task_id,
        step,
        step_name: steps.get(step as usize).cloned(),
        description: r.description,
        order: u32::try_from(r.position).unwrap_or(u32::MAX),
        created_at: r.created_at,
    }
}

fn step_names(row: &TaskRow) -> Vec<String> {
    row.settings()
        .operation()
        .steps()
        .map(|s| s.name.clone())
        .collect()
}

/// A task's rectification steps, by step, each step's in the order they were added.
#[utoipa::path(get, path = "/organization/rectification_steps/", tag = "tasks",
    params(TaskQuery),
    responses((status = 200, body = Vec<RectificationStep>), (status = 403), (status = 404)))]
pub async fn list_rectification_steps(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<TaskQuery>,
) -> ApiResult<axum::Json<Vec<RectificationStep>>> {
    me.require(Permission::ViewTasks)?;
    let task = find(&state, &me, q.task).await?;
    let steps = step_names(&task);
    let rows = db::list(&state.db, task.id).await?;
    Ok(axum::Json(
        rows.into_iter().map(|r| answer(r, &steps)).collect(),
    ))
}

/// Adds a rectification step after the step's others.
#[utoipa::path(post, path = "/organization/rectification_steps/", tag = "tasks",
    request_body = RectificationStepCreate,
    responses((status = 201, body = RectificationStep), (status = 400), (status = 403),
        (status = 404)))]
pub async fn add_rectification_step(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<RectificationStepCreate>,
) -> ApiResult<(StatusCode, axum::Json<RectificationStep>)> {
    req.check_lengths()?;
    me.require(Permission::ManageTasks)?;
    let task = find(&state, &me, req.task).await?;
    may_change(&state, &me, task.organization_id).await?;
    let description = req.description.trim();
    if description.is_empty() {
        return Err(ApiError::field("description", DESCRIPTION_REQUIRED));
    }
    let steps = step_names(&task);
    if req.step as usize >= steps.len() {
        return Err(ApiError::field("step", UNKNOWN_STEP));
    }
    let id = db::add(
        &state.db,
        task.id,
        req.step,
        description,
        me.user.id,
        MAX_PER_STEP,
    )
    .await?
    .ok_or_else(|| ApiError::field("step", too_many_message()))?;
    let row = db::get(&state.db, Some(task.organization_id), id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok((StatusCode::CREATED, axum::Json(answer(row, &steps))))
}

/// Deletes a rectification step; the step's later ones move up.
#[utoipa::path(delete, path = "/organization/rectification_steps/", tag = "tasks",
    params(IdQuery),
    responses((status = 204), (status = 403), (status = 404)))]
pub async fn delete_rectification_step(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<IdQuery>,
) -> ApiResult<StatusCode> {
    me.require(Permission::ManageTasks)?;
    let org = if me.is_admin() { None } else { Some(me.org()?) };
    let r = db::get(&state.db, org, q.id)
        .await?
        .ok_or(ApiError::NotFound)?;
    let task = find(&state, &me, r.task_id).await?;
    may_change(&state, &me, task.organization_id).await?;
    if !db::delete(&state.db, r.id).await? {
        return Err(ApiError::NotFound);
    }
    Ok(StatusCode::NO_CONTENT)
}
