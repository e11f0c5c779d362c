//! The task work of the cloud's job queue (`crate::queue`; docs/decisions.md
//! "send_message_to_sqs"): `update_task` and `cloning_task` messages, checked when sent
//! ([`check_update`], [`check_clone`]: the task, the sender's rights, the changes or
//! the copy's name, nothing written) and run by a worker as the user who sent them
//! ([`update`], [`clone`]) through the same code as `PATCH organization/task/{id}/`
//! (its history entry, its 'Task Update' e-mail and push of removed and added steps,
//! the devices told of new cycle rules) and `generic/clone_task/`.

use super::*;
use gemba_shared::validate::Bounded;

/// Whether `me` may make `changes` to task `id` as it is now (a queued change is a
/// change: `ManageTasks` and the subscription even for a star alone). Answers the
/// task's organisation.
pub(crate) async fn check_update(
    state: &AppState,
    me: &AuthUser,
    id: i64,
    changes: &TaskPatch,
) -> ApiResult<i64> {
    changes.check_lengths()?;
    me.require(Permission::ViewTasks)?;
    let row = find(state, me, id).await?;
    may_change(state, me, row.organization_id).await?;
    if let Some(choice) = &changes.model_choice {
        edit::check_model_choice(state, choice).await?;
    }
    let c = TaskPatch {
        starred: None,
        ..changes.clone()
    };
    rules::apply(&row.settings(), c)?;
    Ok(row.organization_id)
}

/// Makes `changes` to task `id` as `PATCH organization/task/{id}/` does; answers the
/// task's id.
pub(crate) async fn update(
    state: &AppState,
    me: &AuthUser,
    id: i64,
    changes: TaskPatch,
) -> ApiResult<i64> {
    check_update(state, me, id, &changes).await?;
    let axum::Json(t) =
        edit::patch(State(state.clone()), me.clone(), Path(id), Json(changes)).await?;
    Ok(t.id)
}

/// Whether `me` may copy task `id` as `name` into `to` (its own organisation when
/// `None`). Answers the task's organisation.
pub(crate) async fn check_clone(
    state: &AppState,
    me: &AuthUser,
    id: i64,
    name: &str,
    to: Option<i64>,
) -> ApiResult<i64> {
    if name.chars().count() > MAX_NAME {
        return Err(ApiError::field(
            "task_name",
            format!("Ensure this field has no more than {MAX_NAME} characters."),
        ));
    }
    clone_into::plan(state, me, id, name, to).await?;
    Ok(find(state, me, id).await?.organization_id)
}

/// Copies task `id` as `name` into `to`, as `generic/clone_task/` does; answers the
/// copy's id.
pub(crate) async fn clone(
    state: &AppState,
    me: &AuthUser,
    id: i64,
    name: &str,
    to: Option<i64>,
) -> ApiResult<i64> {
    check_clone(state, me, id, name, to).await?;
    Ok(clone_into::copy(state, me, id, name, to).await?.id)
}
