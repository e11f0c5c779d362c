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

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::validation::{
    AddVideosToGroup, GROUP_DELETED, GROUP_UPDATED, MAX_ADD, MAX_GROUP_VIDEOS, MAX_NAME_CHARS,
    RecordLabels, RecordsFromTrace, ValidationGroup, ValidationGroupCreate, ValidationRun,
    ValidationRunCreate, ValidationRunVideo, ValidationVideo, ValidationVideoPatch,
};
use gemba_shared::api::v1::video::check_segments;
use gemba_shared::cycle::Segment;
use object_store::ObjectStoreExt;
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::validation::{self as db, NewVideo};
use crate::db::{clips, tasks, training, videos};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path, Query};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(groups, create_group))
        .routes(routes!(delete_group))
        .routes(routes!(retrieve_group))
        .routes(routes!(retrieve_all))
        .routes(routes!(patch_video))
        .routes(routes!(add_to_group))
        .routes(routes!(start_run))
        .routes(routes!(get_run))
        .routes(routes!(run_videos))
        .routes(routes!(group_records))
        .routes(routes!(records_from_trace))
        .routes(routes!(check_record, delete_record))
}

pub const RECORD_DELETED: &str = "Data deleted successfully!";

/// An id in the path: anything that is not one is simply not found.
fn path_id(raw: &str) -> ApiResult<i64> {
    raw.parse().map_err(|_| ApiError::NotFound)
}

fn name_of(field: &str, raw: &str) -> ApiResult<String> {
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
async fn group_in(state: &AppState, org: i64, id: i64, field: &str) -> ApiResult<db::GroupRow> {
    db::group(&state.db, org, id).await?.ok_or_else(|| {
        ApiError::field(
            field,
            "Choose one of this organisation's validation groups.",
        )
    })
}

async fn group_api(state: &AppState, org: i64, g: db::GroupRow) -> ApiResult<ValidationGroup> {
    let runs = db::runs(&state.db, org).await?;
    Ok(with_runs(g, &runs))
}

fn with_runs(g: db::GroupRow, runs: &[db::RunRow]) -> ValidationGroup {
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

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct GroupQuery {
    /// The group whose videos to list.
    pub group_id: i64,
}

async fn videos_of(
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

/// Copies an object of `org` to a new key of the validation videos; answers it.
async fn copy_object(state: &AppState, org: i64, from: &str, ext: &str) -> ApiResult<String> {
    let name = format!("validation/{}.{ext}", uuid::Uuid::new_v4().simple());
    state
        .objects
        .copy(
            &crate::objects::key(org, from),
            &crate::objects::key(org, &name),
        )
        .await
        .map_err(|e| ApiError::Internal(anyhow::Error::new(e).context("copying a video")))?;
    Ok(name)
}

/// Adds the copies in `new` (their objects already made) to `group`, or takes the
/// objects back.
async fn add_all(
    state: &AppState,
    org: i64,
    group: i64,
    new: Vec<NewVideo<'_>>,
) -> ApiResult<Vec<i64>> {
    let keys: Vec<String> = new.iter().map(|v| v.object_key.to_string()).collect();
    let undo = async || {
        for k in &keys {
            state
                .objects
                .delete(&crate::objects::key(org, k))
                .await
                .ok();
        }
    };
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

fn not_too_many(field: &str, n: usize) -> ApiResult<()> {
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
    let mut keys = vec![];
    for (v, _, _) in &found {
        let ext = v.object_key.rsplit('.').next().unwrap_or("mp4");
        match copy_object(&state, org, &v.object_key, ext).await {
            Ok(k) => keys.push(k),
            Err(e) => {
                for k in &keys {
                    state
                        .objects
                        .delete(&crate::objects::key(org, k))
                        .await
                        .ok();
                }
                return Err(e);
            }
        }
    }
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

/// The records (videos) of validation group `{id}`, oldest first.
#[utoipa::path(get, path = "/websocket_inference/validation_record/group/{id}/", tag = "validation",
    params(("id" = i64, Path, description = "the group's id")),
    responses((status = 200, body = Vec<ValidationVideo>), (status = 403), (status = 404)))]
pub async fn group_records(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<Vec<ValidationVideo>>> {
    me.require(Permission::ViewTasks)?;
    let org = me.org()?;
    let g = db::group(&state.db, org, path_id(&id)?)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(axum::Json(videos_of(&state, org, Some(g.id)).await?))
}

/// The record of a cycle with a clip: the clip, labelled with the cycle's steps on the
/// clip's clock (cut to it).
pub fn record_segments(cycle: &[Segment], clip_start_ms: i64, clip_ms: i64) -> Vec<Segment> {
    cycle
        .iter()
        .filter_map(|s| {
            let (a, b) = (
                (s.start_ms - clip_start_ms).max(0),
                (s.end_ms - clip_start_ms).min(clip_ms),
            );
            (b > a).then(|| Segment::new(s.step, a, b))
        })
        .collect()
}

/// Cycles of the group's task, each with its clip, become records of validation group
/// `group_id`: the clip, labelled with the steps the station recognised (unchecked).
#[utoipa::path(post, path = "/websocket_inference/validation_records_from_trace/", tag = "validation",
    request_body = RecordsFromTrace,
    responses((status = 201, body = Vec<ValidationVideo>), (status = 400), (status = 403)))]
pub async fn records_from_trace(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<RecordsFromTrace>,
) -> ApiResult<(StatusCode, axum::Json<Vec<ValidationVideo>>)> {
    me.require(Permission::ManageTasks)?;
    let org = me.org()?;
    let g = group_in(&state, org, req.group_id, "group_id").await?;
    not_too_many("cycles", req.cycles.len())?;
    let mut found = vec![];
    for id in &req.cycles {
        let not_one = || {
            ApiError::field(
                "cycles",
                format!("Cycle {id} is not a cycle of this group's task with a clip."),
            )
        };
        let c = db::cycle(&state.db, org, id)
            .await?
            .filter(|c| c.task == g.task_id)
            .ok_or_else(not_one)?;
        let clip = clips::get(&state.db, Some(org), id)
            .await?
            .ok_or_else(not_one)?;
        let segments = record_segments(&c.segments, clip.start_ms, clip.duration_ms);
        found.push((c, clip, segments));
    }
    let mut keys = vec![];
    for (_, clip, _) in &found {
        let ext = clip.object_key.rsplit('.').next().unwrap_or("mp4");
        match copy_object(&state, org, &clip.object_key, ext).await {
            Ok(k) => keys.push(k),
            Err(e) => {
                for k in &keys {
                    state
                        .objects
                        .delete(&crate::objects::key(org, k))
                        .await
                        .ok();
                }
                return Err(e);
            }
        }
    }
    let names: Vec<String> = found
        .iter()
        .map(|(c, _, _)| format!("Cycle {}", c.id))
        .collect();
    let new = found
        .iter()
        .zip(&keys)
        .zip(&names)
        .map(|(((c, clip, segments), key), name)| NewVideo {
            org,
            task: g.task_id,
            group: g.id,
            name,
            video: None,
            cycle: Some(&c.id),
            object_key: key,
            duration_ms: clip.duration_ms,
            segments,
            reviewed: false,
        })
        .collect();
    let ids = add_all(&state, org, g.id, new).await?;
    let mut out = vec![];
    for id in ids {
        if let Some(v) = db::video(&state.db, org, id).await? {
            out.push(v.into_api());
        }
    }
    Ok((StatusCode::CREATED, axum::Json(out)))
}

/// Record `{id}`'s labels as a person checked them: a run evaluates it from now on.
#[utoipa::path(post, path = "/websocket_inference/validation_record/{id}/", tag = "validation",
    params(("id" = i64, Path, description = "the record's (validation video's) id")),
    request_body = RecordLabels,
    responses((status = 200, body = ValidationVideo), (status = 400), (status = 403), (status = 404)))]
pub async fn check_record(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<String>,
    Json(req): Json<RecordLabels>,
) -> ApiResult<axum::Json<ValidationVideo>> {
    me.require(Permission::ManageTasks)?;
    let org = me.org()?;
    let v = db::video(&state.db, org, path_id(&id)?)
        .await?
        .ok_or(ApiError::NotFound)?;
    let task = tasks::get(&state.db, me.user.id, Some(org), v.task_id)
        .await?
        .ok_or(ApiError::NotFound)?;
    let steps = task.settings().operation().step_names().len();
    let segments = check_segments(req.segments, steps, v.duration_ms)
        .map_err(|m| ApiError::field("segments", m))?;
    db::check_labels(&state.db, org, v.id, &segments).await?;
    let v = db::video(&state.db, org, v.id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(axum::Json(v.into_api()))
}

/// Deletes record (validation video) `{id}` and its footage; runs keep their results.
#[utoipa::path(delete, path = "/websocket_inference/validation_record/{id}/", tag = "validation",
    params(("id" = i64, Path, description = "the record's (validation video's) id")),
    responses((status = 200, body = Msg), (status = 403), (status = 404)))]
pub async fn delete_record(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<Msg>> {
    me.require(Permission::ManageTasks)?;
    let org = me.org()?;
    let v = db::delete_video(&state.db, org, path_id(&id)?)
        .await?
        .ok_or(ApiError::NotFound)?;
    if let Err(e) = state
        .objects
        .delete(&crate::objects::key(org, &v.object_key))
        .await
    {
        tracing::warn!(video = v.id, error = %e, "a deleted validation video's footage stays");
    }
    Ok(axum::Json(Msg::new(RECORD_DELETED)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_records_labels_are_the_cycles_steps_on_the_clips_clock() {
        let cycle = [
            Segment::new(0, 900, 2_000),
            Segment::new(1, 2_000, 4_000),
            Segment::new(2, 4_500, 9_000),
        ];
        // The clip starts at 1 000 and lasts 6 000 ms: the first step is cut at its
        // start, the last at its end.
        assert_eq!(
            record_segments(&cycle, 1_000, 6_000),
            vec![
                Segment::new(0, 0, 1_000),
                Segment::new(1, 1_000, 3_000),
                Segment::new(2, 3_500, 6_000),
            ]
        );
        // A step wholly outside the clip is not one of its labels.
        assert_eq!(
            record_segments(&cycle, 5_000, 1_000),
            vec![Segment::new(2, 0, 1_000)]
        );
    }
}
