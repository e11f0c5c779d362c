//! `PATCH generic/clone_task/`: a task of the request's organisation copied into another
//! organisation the user may act in (a member of it, or the super admin), as
//! `POST generic/clone_task/` copies it within one: the operation and settings under a
//! new name, a fresh history. Reading the task needs `ViewTasks`; the target needs
//! `ManageTasks` and its Define Operation subscription.

use super::*;
use gemba_shared::api::v1::task::{CloneTaskInto, NOT_YOUR_ORGANIZATION};
use gemba_shared::validate::Bounded;

/// Copy a task into another organisation under a new name.
#[utoipa::path(patch, path = "/generic/clone_task/", tag = "tasks", request_body = CloneTaskInto,
    responses((status = 201, body = Task), (status = 400), (status = 403), (status = 404)))]
pub async fn clone_task_into(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<CloneTaskInto>,
) -> ApiResult<(StatusCode, axum::Json<Task>)> {
    req.check_lengths()?;
    me.require(Permission::ViewTasks)?;
    me.require(Permission::ManageTasks)?;
    let from = find(&state, &me, req.task).await?;
    let to = req.organization;
    if orgs::by_id(&state.db, to).await?.is_none() || !me.can_access_org(&state, to).await? {
        return Err(ApiError::field("organization", NOT_YOUR_ORGANIZATION));
    }
    may_change(&state, &me, to).await?;
    let name = check_name("taskName", "Task name", &req.task_name)?;
    let mut s = from.settings();
    let mut op = s.operation();
    op.name = name.clone();
    s.task_name = name;
    s.task_detail = operation::print(&op);
    s.is_deleted = false;
    let id = tasks::insert(&state.db, to, &s, "cloned", author(&me))
        .await
        .map_err(rules::name_taken_or)?;
    let row = tasks::get(&state.db, me.user.id, Some(to), id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok((StatusCode::CREATED, axum::Json(row.into_task())))
}
