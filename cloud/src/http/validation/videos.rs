//! Validation videos: a group's or all, renamed or moved, and task videos copied in.

use axum::extract::State;
use gemba_shared::Permission;
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::validation::{
    AddVideosToGroup, GROUP_UPDATED, MAX_GROUP_VIDEOS, ValidationVideo, ValidationVideoPatch,
};
use gemba_shared::cycle::Segment;
use serde::Deserialize;

use super::{add_all, copy_objects, group_in, name_of, not_too_many, path_id};
use crate::db::validation::{self as db, NewVideo};
use crate::db::videos;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path, Query};
use crate::state::AppState;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct GroupQuery {
    /// The group whose videos to list.
    pub group_id: i64,
}

pub(super) async fn videos_of(
    state: &AppState,
    org: i64,
    group: Option<i64>,
) -> ApiResult<Vec<ValidationVideo>> {
    Ok(db::videos(&state.db, org, group)
        .await?
        .into_iter()
        .map(db::VideoRow::into_api)
        .collect())
}

/// The videos of validation group `group_id`, oldest first.
#[utoipa::path(get, path = "/organization/validation-videos/retrieve/", tag = "validation",
    params(GroupQuery),
    responses((status = 200, body = Vec<ValidationVideo>), (status = 400), (status = 403), (status = 404)))]
pub async fn retrieve_group(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<GroupQuery>,
) -> ApiResult<axum::Json<Vec<ValidationVideo>>> {
    me.require(Permission::ViewTasks)?;
    let org = me.org()?;
    db::group(&state.db, org, q.group_id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(axum::Json(videos_of(&state, org, Some(q.group_id)).await?))
}

/// All the organisation's validation videos, in a group or not, oldest first.
#[utoipa::path(get, path = "/organization/validation-videos/retrieve", tag = "validation",
    responses((status = 200, body = Vec<ValidationVideo>), (status = 403)))]
pub async fn retrieve_all(
    State(state): State<AppState>,
    me: AuthUser,
) -> ApiResult<axum::Json<Vec<ValidationVideo>>> {
    me.require(Permission::ViewTasks)?;
    let org = me.org()?;
    Ok(axum::Json(videos_of(&state, org, None).await?))
}

/// Renames validation video `{id}`, or moves it into another group of its task.
#[utoipa::path(patch, path = "/organization/validation-videos/{id}/", tag = "validation",
    params(("id" = i64, Path, description = "the validation video's id")),
    request_body = ValidationVideoPatch,
    responses((status = 200, body = ValidationVideo), (status = 400), (status = 403), (status = 404)))]
pub async fn patch_video(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<String>,
    Json(req): Json<ValidationVideoPatch>,
) -> ApiResult<axum::Json<ValidationVideo>> {
    me.require(Permission::ManageTasks)?;
    let org = me.org()?;
    let v = db::video(&state.db, org, path_id(&id)?)
        .await?
        .ok_or(ApiError::NotFound)?;
    let name = req
        .name
        .as_deref()
        .map(|n| name_of("name", n))
        .transpose()?;
    if let Some(g) = req.group_id {
        let g = group_in(&state, org, g, "group_id").await?;
        if g.task_id != v.task_id {
            return Err(ApiError::field(
                "group_id",
                "That group is of another task than this video.",
            ));
        }
        if g.id != v.group_id.unwrap_or(0) && g.videos as usize >= MAX_GROUP_VIDEOS {
            return Err(ApiError::field(
                "group_id",
                format!("A group holds at most {MAX_GROUP_VIDEOS} videos."),
            ));
        }
    }
    db::patch_video(&state.db, org, v.id, name.as_deref(), req.group_id).await?;
    let v = db::video(&state.db, org, v.id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(axum::Json(v.into_api()))
}

/// Copies labelled videos of the group's task (their footage and labels, checked as
/// they are) into validation group `group_id`.
#[utoipa::path(put, path = "/organization/validation-videos/add-video-to-group/", tag = "validation",
    request_body = AddVideosToGroup,
    responses((status = 200, body = Msg), (status = 400), (status = 403)))]
pub async fn add_to_group(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<AddVideosToGroup>,
) -> ApiResult<axum::Json<Msg>> {
    me.require(Permission::ManageTasks)?;
    let org = me.org()?;
    let g = group_in(&state, org, req.group_id, "group_id").await?;
    not_too_many("videos", req.videos.len())?;
    let mut found = vec![];
    for id in &req.videos {
        let v = videos::get(&state.db, org, *id)
            .await?
            .filter(|v| v.task_id == g.task_id && v.status == videos::READY)
            .ok_or_else(|| {
                ApiError::field(
                    "videos",
                    format!("Video {id} is not a video of this group's task ready to play."),
                )
            })?;
        let labels = videos::labels(&state.db, v.id).await?;
        let segments: Vec<Segment> = labels
            .as_ref()
            .and_then(|l| serde_json::from_str(&l.segments).ok())
            .unwrap_or_default();
        if segments.is_empty() {
            return Err(ApiError::field(
                "videos",
                format!("Video {id} has no labels: label it first."),
            ));
        }
        // Checked: a person's labels, or propagated ones a person reviewed.
        let reviewed = labels
            .as_ref()
            .is_some_and(|l| l.propagated_from.is_none() || l.reviewed);
        found.push((v, segments, reviewed));
    }
    let sources: Vec<&str> = found
        .iter()
        .map(|(v, _, _)| v.object_key.as_str())
        .collect();
    let keys = copy_objects(&state, org, &sources).await?;
    let new = found
        .iter()
        .zip(&keys)
        .map(|((v, segments, reviewed), key)| NewVideo {
            org,
            task: g.task_id,
            group: g.id,
            name: &v.file_name,
            video: Some(v.id),
            cycle: None,
            object_key: key,
            duration_ms: v.duration_ms.unwrap_or(0),
            segments,
            reviewed: *reviewed,
        })
        .collect();
    add_all(&state, org, g.id, new).await?;
    Ok(axum::Json(Msg::new(GROUP_UPDATED)))
}
