//! `GET organization/task/virtual_tasks/{id}/`: a task's processes, each as an
//! operation of its own (`api::v1::virtual_task`), derived from the task as it is;
//! nothing stored. Reading needs `ViewTasks`, as reading the task does.

use gemba_shared::api::v1::virtual_task::{self, VirtualTask};

use super::*;

/// The task's virtual tasks: one per process, with its steps and the rules that
/// concern them.
#[utoipa::path(get, path = "/organization/task/virtual_tasks/{id}/", tag = "tasks",
    params(("id" = i64, Path, description = "The task")),
    responses((status = 200, body = Vec<VirtualTask>), (status = 403), (status = 404)))]
pub async fn virtual_tasks(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Vec<VirtualTask>>> {
    me.require(Permission::ViewTasks)?;
    let row = find(&state, &me, id).await?;
    Ok(axum::Json(virtual_task::virtual_tasks(
        row.id,
        &row.settings(),
    )))
}
