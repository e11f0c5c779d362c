//! Validation groups, videos and runs (spec section 7 "Organisations and validation",
//! and the `websocket_inference/validation_record…` calls of "Tasks"; docs/decisions.md
//! "Validation"). All in the caller's organisation; reading needs
//! `Permission::ViewTasks`, changing `Permission::ManageTasks`.
//!
//! - `GET` / `POST organization/validation-groups/`, `DELETE …/{id}/`: the groups (each
//!   with its runs), a new group of a task, and deleting one (its runs go, its videos
//!   stay, in no group);
//! - `GET organization/validation-videos/retrieve/?group_id=` (a group's) and
//!   `GET organization/validation-videos/retrieve` (all); `PATCH …/{id}/` renames one or
//!   moves it into another group of its task; `PUT …/add-video-to-group/` copies task
//!   videos with labels (footage and labels) into a group;
//! - `POST organization/validation-runs/` starts a run of a model version of the group's
//!   task over its checked videos; `GET …/validation-runs/{id}/` is the run and its
//!   report, `GET organization/validation-runs-videos/{id}/` its report per video;
//! - `GET websocket_inference/validation_record/group/{id}/`: a group's records (its
//!   videos); `POST …/validation_records_from_trace/`: cycles' clips become records
//!   labelled with the steps the station recognised, unchecked; `POST …/validation_record/
//!   {id}/` saves a record's labels as a person checked them; `DELETE` deletes it.

mod groups;
mod records;
mod runs;
mod videos;

pub use records::record_segments;

use object_store::ObjectStoreExt;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use gemba_shared::api::v1::validation::{MAX_ADD, MAX_GROUP_VIDEOS, MAX_NAME_CHARS};

use crate::db::validation::{self as db, NewVideo};
use crate::http::error::{ApiError, ApiResult};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(groups::groups, groups::create_group))
        .routes(routes!(groups::delete_group))
        .routes(routes!(videos::retrieve_group))
        .routes(routes!(videos::retrieve_all))
        .routes(routes!(videos::patch_video))
        .routes(routes!(videos::add_to_group))
        .routes(routes!(runs::start_run))
        .routes(routes!(runs::get_run))
        .routes(routes!(runs::run_videos))
        .routes(routes!(records::group_records))
        .routes(routes!(records::records_from_trace))
        .routes(routes!(records::check_record, records::delete_record))
}

pub const RECORD_DELETED: &str = "Data deleted successfully!";

/// An id in the path: anything that is not one is simply not found.
pub(super) fn path_id(raw: &str) -> ApiResult<i64> {
    raw.parse().map_err(|_| ApiError::NotFound)
}

pub(super) fn name_of(field: &str, raw: &str) -> ApiResult<String> {
    let name = raw.trim();
    if name.is_empty() {
        return Err(ApiError::field(field, "Give it a name."));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(ApiError::field(
            field,
            format!("A name has at most {MAX_NAME_CHARS} characters."),
        ));
    }
    Ok(name.to_string())
}

/// Group `id` of the caller's organisation, or a 400 on `field` (a body's id).
pub(super) async fn group_in(
    state: &AppState,
    org: i64,
    id: i64,
    field: &str,
) -> ApiResult<db::GroupRow> {
    db::group(&state.db, org, id).await?.ok_or_else(|| {
        ApiError::field(
            field,
            "Choose one of this organisation's validation groups.",
        )
    })
}

/// Copies objects of `org` (stored keys) to new keys of the validation videos, all
/// or none: when one copy fails, the copies made are deleted. Answers the new keys.
pub(super) async fn copy_objects(
    state: &AppState,
    org: i64,
    from: &[&str],
) -> ApiResult<Vec<String>> {
    let mut made = vec![];
    for key in from {
        let ext = key.rsplit('.').next().unwrap_or("mp4");
        let name = format!("validation/{}.{ext}", uuid::Uuid::new_v4().simple());
        let copied = state
            .objects
            .copy(
                &crate::objects::key(org, key),
                &crate::objects::key(org, &name),
            )
            .await;
        if let Err(e) = copied {
            delete_objects(state, org, &made).await;
            return Err(ApiError::Internal(
                anyhow::Error::new(e).context("copying a video"),
            ));
        }
        made.push(name);
    }
    Ok(made)
}

/// Deletes objects of `org` this module made, best effort (a leftover is unreferenced).
async fn delete_objects(state: &AppState, org: i64, keys: &[String]) {
    for k in keys {
        state
            .objects
            .delete(&crate::objects::key(org, k))
            .await
            .ok();
    }
}

/// Adds the copies in `new` (their objects already made) to `group`, or takes the
/// objects back.
pub(super) async fn add_all(
    state: &AppState,
    org: i64,
    group: i64,
    new: Vec<NewVideo<'_>>,
) -> ApiResult<Vec<i64>> {
    let keys: Vec<String> = new.iter().map(|v| v.object_key.to_string()).collect();
    let undo = async || delete_objects(state, org, &keys).await;
    match db::insert_videos(&state.db, group, &new, MAX_GROUP_VIDEOS).await {
        Ok(Some(ids)) => Ok(ids),
        Ok(None) => {
            undo().await;
            Err(ApiError::non_field(format!(
                "A group holds at most {MAX_GROUP_VIDEOS} videos."
            )))
        }
        Err(e) => {
            undo().await;
            Err(e.into())
        }
    }
}

pub(super) fn not_too_many(field: &str, n: usize) -> ApiResult<()> {
    if n == 0 {
        return Err(ApiError::field(field, "Choose at least one."));
    }
    if n > MAX_ADD {
        return Err(ApiError::field(
            field,
            format!("At most {MAX_ADD} at once."),
        ));
    }
    Ok(())
}
