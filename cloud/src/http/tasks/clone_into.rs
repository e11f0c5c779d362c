//! Cloning: `POST generic/clone_task/` copies a task within its organisation, and
//! `PATCH generic/clone_task/` a task of the request's organisation into another
//! organisation the user may act in (a member of it, or the super admin): the operation
//! and settings under a new name, a fresh history. Reading the task needs `ViewTasks`;
//! the target needs `ManageTasks` and its Define Operation subscription. The queue's
//! `cloning_task` (`super::queued`) runs the same [`plan`] and [`copy`].

use super::*;
use gemba_shared::api::v1::task::{CloneTaskInto, NOT_YOUR_ORGANIZATION};
use gemba_shared::validate::Bounded;

/// What a copy of task `task` named `name` into organisation `to` (the task's own when
/// `None`) would be, if `me` may make it: the target organisation and the copy's
/// settings. Nothing is written.
pub(super) async fn plan(
    state: &AppState,
    me: &AuthUser,
    task: i64,
    name: &str,
    to: Option<i64>,
) -> ApiResult<(i64, TaskSettings)> {
    me.require(Permission::ViewTasks)?;
    if to.is_some() {
        me.require(Permission::ManageTasks)?;
    }
    let from = find(state, me, task).await?;
    let to = match to {
        None => from.organization_id,
        Some(to) => {
            if orgs::by_id(&state.db, to).await?.is_none() || !me.can_access_org(state, to).await? {
                return Err(ApiError::field("organization", NOT_YOUR_ORGANIZATION));
            }
            to
        }
    };
    may_change(state, me, to).await?;
    let name = check_name("taskName", "Task name", name)?;
    let mut s = from.settings();
    let mut op = s.operation();
    op.name = name.clone();
    s.task_name = name;
    s.task_detail = operation::print(&op);
    s.is_deleted = false;
    Ok((to, s))
}

/// Makes the copy [`plan`] describes; answers it.
pub(super) async fn copy(
    state: &AppState,
    me: &AuthUser,
    task: i64,
    name: &str,
    to: Option<i64>,
) -> ApiResult<TaskRow> {
    let (to, s) = plan(state, me, task, name, to).await?;
    let id = tasks::insert(&state.db, to, &s, "cloned", author(me))
        .await
        .map_err(rules::name_taken_or)?;
    tasks::get(&state.db, me.user.id, Some(to), id)
        .await?
        .ok_or(ApiError::NotFound)
}

/// Copy a task under a new name: its operation and settings, not its training or
/// history.
#[utoipa::path(post, path = "/generic/clone_task/", tag = "tasks", request_body = CloneTask,
    responses((status = 201, body = Task), (status = 400), (status = 403), (status = 404)))]
pub async fn clone_task(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<CloneTask>,
) -> ApiResult<(StatusCode, axum::Json<Task>)> {
    req.check_lengths()?;
    let row = copy(&state, &me, req.task, &req.task_name, None).await?;
    Ok((StatusCode::CREATED, axum::Json(row.into_task())))
}

/// Copy a task into another organisation under a new name.
#[utoipa::path(patch, path = "/generic/clone_task/", tag = "tasks", request_body = CloneTaskInto,
    responses((status = 201, body = Task), (status = 400), (status = 403), (status = 404)))]
pub async fn clone_task_into(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<CloneTaskInto>,
) -> ApiResult<(StatusCode, axum::Json<Task>)> {
    req.check_lengths()?;
    let row = copy(
        &state,
        &me,
        req.task,
        &req.task_name,
        Some(req.organization),
    )
    .await?;
    Ok((StatusCode::CREATED, axum::Json(row.into_task())))
}
