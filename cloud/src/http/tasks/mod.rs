//! Tasks (operations), spec section 7 "Tasks": define, list, change, clone, star,
//! history and revert, training stop.
//!
//! Tenancy: a task belongs to one organisation. Every call reaches only tasks of the
//! organisation the request acts in ([`AuthUser::org`]); another organisation's task ids
//! answer 404, as unknown ones do. The super admin reaches every organisation's tasks.
//!
//! Changing a task (create, patch, clone, revert) needs `ManageTasks` and the
//! organisation's "Define Operation" subscription (spec section 6); reading needs
//! `ViewTasks`. A task in training refuses every change with the spec's message.

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::Page;
use gemba_shared::api::v1::task::{
    CloneTask, LastUpdate, ModelChoice, RevertResult, RevertTask, StepsByProcess, StopTraining,
    Task, TaskCreate, TaskHistoryEntry, TaskPatch, TaskSettings, TrainStatus,
    being_performed_message, being_trained_message, revert_message,
};
use gemba_shared::api::v1::{PAGE_SIZE, page_offset};
use gemba_shared::operation::{self, Operation, Process};
use serde::Deserialize;
use serde_json::Value;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::tasks::{self, Author, Filter, TaskRow};
use crate::db::{features, orgs};
use crate::http::error::{ApiError, ApiResult, is_unique_violation};
use crate::http::extract::{AuthUser, Json, Path, Query};
use crate::state::AppState;
use gemba_shared::api::v1::feature_control::Gated;

/// Longest task, model and language names.
const MAX_NAME: usize = gemba_shared::validate::MAX_NAME_CHARS;
/// The event whose recipients hear of changed steps.
pub const TASK_UPDATE_EVENT: &str = "Task Update";

mod clone_into;
mod edit;
mod from_doc;
mod history;
mod lists;
mod objects;
pub(crate) mod queued;
mod rectification;
mod rules;
mod stored_objects;
pub(crate) use rules::check_name;
mod training;
mod virtual_tasks;

pub fn router() -> OpenApiRouter<AppState> {
    use edit::*;
    use from_doc::*;
    use history::*;
    use lists::*;
    use objects::*;
    use rectification::*;
    use stored_objects::*;
    use training::*;
    use virtual_tasks::*;
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(taskpage))
        .routes(routes!(admin_list))
        .routes(routes!(get, patch))
        .routes(routes!(clone_into::clone_task, clone_into::clone_task_into))
        .routes(routes!(extract_task_from_doc))
        .routes(routes!(virtual_tasks))
        .routes(routes!(s3_objects))
        .routes(routes!(
            list_rectification_steps,
            add_rectification_step,
            delete_rectification_step
        ))
        .routes(routes!(trained_tasks))
        .routes(routes!(history))
        .routes(routes!(task_history))
        .routes(routes!(revert))
        .routes(routes!(stop_training))
        .routes(routes!(get_trained_task, start_training))
        .routes(routes!(last_update))
        .routes(routes!(model_choices))
        .routes(routes!(list_task_objects))
        .routes(routes!(create_task_object))
        .routes(routes!(patch_task_object, delete_task_object))
        .routes(routes!(list_plane_objects))
        .routes(routes!(create_plane_object))
        .routes(routes!(put_plane_object, delete_plane_object))
        .routes(routes!(list_rules, create_rule, patch_rule))
        .routes(routes!(delete_rule))
        .routes(routes!(bulk_delete_rules))
        .routes(routes!(get_regions, set_regions))
}

// ----- helpers ---------------------------------------------------------------------------

async fn find(state: &AppState, me: &AuthUser, id: i64) -> ApiResult<TaskRow> {
    let org = if me.is_admin() { None } else { Some(me.org()?) };
    tasks::get(&state.db, me.user.id, org, id)
        .await?
        .ok_or(ApiError::NotFound)
}

/// May `me` change tasks of `org`: the permission and the subscription.
async fn may_change(state: &AppState, me: &AuthUser, org: i64) -> ApiResult<()> {
    me.require_subscribed(state, org, Permission::ManageTasks, Gated::DefineOperation)
        .await
}

/// The first condition that blocks editing a task (spec section 4): it trains.
fn training_block(row: &TaskRow) -> ApiResult<()> {
    if row.train_status() == TrainStatus::Training {
        return Err(ApiError::non_field(being_trained_message(
            &row.settings().task_name,
        )));
    }
    Ok(())
}

/// The second: a device performs it (set running on a camera from the portal).
async fn device_block(state: &AppState, row: &TaskRow) -> ApiResult<()> {
    if crate::db::devices::running_task(&state.db, row.id)
        .await?
        .is_empty()
    {
        return Ok(());
    }
    Err(ApiError::non_field(being_performed_message(
        &row.settings().task_name,
    )))
}

fn author(me: &AuthUser) -> Author<'_> {
    Author {
        id: me.user.id,
        name: &me.user.name,
    }
}
