//! A video's step labels (read, saved whole and checked), propagated labels marked
//! reviewed, labels deleted, and whether a task's labels are enough to train on.

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::task::{TrainStatus, being_trained_message};
use gemba_shared::api::v1::video::{
    AnnotationsCheck, LabelsPut, MAX_TASK_VIDEOS, TaskVideos, VideoLabels, check_segments,
};
use gemba_shared::cycle::Segment;

use crate::db::tasks;
use crate::db::videos::{self, VideoRow};
use crate::http::error::{ApiError, ApiResult, count_of};
use crate::http::extract::{AuthUser, Json, Path};
use crate::http::videos::{find, org_for, task_of};
use crate::state::AppState;

/// The task's step names, for a video's labels (404 when the task is gone).
async fn step_names(state: &AppState, me: &AuthUser, v: &VideoRow) -> ApiResult<Vec<String>> {
    let t = tasks::get(&state.db, me.user.id, Some(v.organization_id), v.task_id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(t.settings().operation().step_names())
}

pub(crate) async fn labels_of(
    state: &AppState,
    me: &AuthUser,
    v: VideoRow,
) -> ApiResult<VideoLabels> {
    let steps = step_names(state, me, &v).await?;
    let saved = videos::labels(&state.db, v.id).await?;
    Ok(VideoLabels {
        video: v.id,
        task: v.task_id,
        steps,
        duration_ms: v.duration_ms.unwrap_or(0),
        segments: match &saved {
            Some(l) => serde_json::from_str(&l.segments)
                .map_err(|e| ApiError::Internal(anyhow::anyhow!("stored labels: {e}")))?,
            None => vec![],
        },
        reviewed: saved.as_ref().is_some_and(|l| l.reviewed),
        updated_by: saved.as_ref().and_then(|l| l.updated_by),
        updated_at: saved.as_ref().map(|l| l.updated_at),
        propagated_from: saved.and_then(|l| l.propagated_from),
    })
}

/// A video's step labels (segments; background between them).
#[utoipa::path(get, path = "/organization/task_record/{id}/labels/", tag = "videos",
    params(("id" = i64, Path)),
    responses((status = 200, body = VideoLabels), (status = 403), (status = 404)))]
pub async fn get_labels(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<VideoLabels>> {
    let org = org_for(&me, Permission::ViewVideos)?;
    let v = find(&state, org, id).await?;
    Ok(axum::Json(labels_of(&state, &me, v).await?))
}

/// Saves a video's step labels, all of them at once (checked: known steps, inside the
/// video, none overlapping). The first labels of a new task move it to `in_annotation`.
#[utoipa::path(put, path = "/organization/task_record/{id}/labels/", tag = "videos",
    params(("id" = i64, Path)), request_body = LabelsPut,
    responses((status = 200, body = VideoLabels), (status = 400), (status = 403), (status = 404),
        (status = 409, description = "The video is still uploading")))]
pub async fn put_labels(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(body): Json<LabelsPut>,
) -> ApiResult<axum::Json<VideoLabels>> {
    let org = org_for(&me, Permission::LabelVideos)?;
    let v = find(&state, org, id).await?;
    Ok(axum::Json(save_labels(&state, &me, v, body).await?))
}

/// Checks and saves labels of video `v` (whoever may label it).
pub(crate) async fn save_labels(
    state: &AppState,
    me: &AuthUser,
    v: VideoRow,
    body: LabelsPut,
) -> ApiResult<VideoLabels> {
    if v.status != videos::READY {
        return Err(ApiError::Status(
            StatusCode::CONFLICT,
            "The video is still uploading; label it once it is ready.".into(),
        ));
    }
    let steps = step_names(state, me, &v).await?;
    let segments = check_segments(body.segments, steps.len(), v.duration_ms.unwrap_or(0))
        .map_err(|m| ApiError::field("segments", m))?;
    let json = serde_json::to_string(&segments).expect("segments serialise");
    let reviewed = body.reviewed.unwrap_or(false);
    let at = videos::save_labels(
        &state.db,
        &v,
        &json,
        !segments.is_empty(),
        reviewed,
        me.user.id,
    )
    .await?;
    Ok(VideoLabels {
        video: v.id,
        task: v.task_id,
        steps,
        duration_ms: v.duration_ms.unwrap_or(0),
        segments,
        reviewed,
        updated_by: Some(me.user.id),
        updated_at: Some(at),
        propagated_from: None,
    })
}

/// Marks propagated labels reviewed, so training uses them: those of the given videos
/// of the task (each must have some still to review), else all of the task's.
#[utoipa::path(patch, path = "/organization/task/mark_propagations_as_reviewed", tag = "videos",
    request_body = TaskVideos,
    responses((status = 200, body = Msg), (status = 400), (status = 403), (status = 404)))]
pub async fn mark_propagations_as_reviewed(
    State(state): State<AppState>,
    me: AuthUser,
    Json(body): Json<TaskVideos>,
) -> ApiResult<axum::Json<Msg>> {
    let org = org_for(&me, Permission::LabelVideos)?;
    task_of(&state, &me, org, body.task)
        .await
        .map_err(|_| ApiError::field("task", "Choose one of this organisation's tasks."))?;
    Ok(axum::Json(mark_reviewed(&state, &me, org, body).await?))
}

/// Marks propagated labels of task `body.task` of `org` reviewed (whoever may label it).
pub(crate) async fn mark_reviewed(
    state: &AppState,
    me: &AuthUser,
    org: i64,
    body: TaskVideos,
) -> ApiResult<Msg> {
    let ids = video_ids(body.videos, "Mark")?;
    let n = videos::mark_reviewed(&state.db, org, body.task, ids.as_deref(), me.user.id)
        .await?
        .map_err(|id| {
            ApiError::field(
                "videos",
                format!(
                    "Video {id} has no propagated labels of this task to review; nothing was marked."
                ),
            )
        })?;
    if n == 0 {
        return Err(ApiError::non_field(
            "This task has no propagated labels to review.",
        ));
    }
    Ok(Msg::new(format!(
        "Propagated labels of {} marked reviewed.",
        count_of(n as usize, "video")
    )))
}

/// The videos a [`TaskVideos`] names, sorted, once each (`None`: all of the task's);
/// `verb` says what is done to them, for the limit's message.
fn video_ids(videos: Option<Vec<i64>>, verb: &str) -> ApiResult<Option<Vec<i64>>> {
    match videos {
        None => Ok(None),
        Some(v) if v.is_empty() => Err(ApiError::field("videos", "Choose at least one video.")),
        Some(v) if v.len() > MAX_TASK_VIDEOS => Err(ApiError::field(
            "videos",
            format!("{verb} at most {MAX_TASK_VIDEOS} videos at once."),
        )),
        Some(mut v) => {
            v.sort_unstable();
            v.dedup();
            Ok(Some(v))
        }
    }
}

/// Deletes the labels of the given videos of the task (each must have some), else all
/// of the task's; a task left without labelled segments goes back to `new_task`.
/// Refused while the task trains.
#[utoipa::path(patch, path = "/organization/task/delete_annotations", tag = "videos",
    request_body = TaskVideos,
    responses((status = 200, body = Msg), (status = 400), (status = 403)))]
pub async fn delete_annotations(
    State(state): State<AppState>,
    me: AuthUser,
    Json(body): Json<TaskVideos>,
) -> ApiResult<axum::Json<Msg>> {
    let org = org_for(&me, Permission::LabelVideos)?;
    let task = tasks::get(&state.db, me.user.id, Some(org), body.task)
        .await?
        .filter(|t| !t.settings().is_deleted)
        .ok_or_else(|| ApiError::field("task", "Choose one of this organisation's tasks."))?;
    let ids = video_ids(body.videos, "Delete the labels of")?;
    if task.train_status() == TrainStatus::Training {
        return Err(ApiError::non_field(being_trained_message(
            &task.settings().task_name,
        )));
    }
    let n = videos::delete_labels(&state.db, org, body.task, ids.as_deref())
        .await?
        .map_err(|id| {
            ApiError::field(
                "videos",
                format!("Video {id} has no labels of this task; nothing was deleted."),
            )
        })?;
    if n == 0 {
        return Err(ApiError::non_field("This task has no labels to delete."));
    }
    Ok(axum::Json(Msg::new(format!(
        "Labels of {} deleted.",
        count_of(n as usize, "video")
    ))))
}

/// Whether the task's labels are enough to train on: the videos training would use, the
/// propagated labels waiting for review, each step's labelled time, and what stands in
/// the way.
#[utoipa::path(get, path = "/organization/task/annotations_check/{id}", tag = "videos",
    params(("id" = i64, Path)),
    responses((status = 200, body = AnnotationsCheck), (status = 403), (status = 404)))]
pub async fn annotations_check(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<AnnotationsCheck>> {
    let org = org_for(&me, Permission::ViewVideos)?;
    let task = tasks::get(&state.db, me.user.id, Some(org), id)
        .await?
        .filter(|t| !t.settings().is_deleted)
        .ok_or(ApiError::NotFound)?;
    let steps: Vec<String> = task.settings().operation().step_names();
    let ready_videos = crate::db::training::ready_videos(&state.db, org, id).await?;
    let mut step_ms = vec![0i64; steps.len()];
    let (mut labelled, mut to_review) = (0, 0);
    for (json, reviewed, propagated) in videos::task_labels(&state.db, org, id).await? {
        if propagated.is_some() && !reviewed {
            to_review += 1;
            continue;
        }
        let segments: Vec<Segment> = serde_json::from_str(&json)
            .map_err(|e| ApiError::Internal(anyhow::anyhow!("stored labels: {e}")))?;
        if segments.is_empty() {
            continue;
        }
        labelled += 1;
        for g in segments {
            if let Some(ms) = step_ms.get_mut(g.step as usize) {
                *ms += g.end_ms - g.start_ms;
            }
        }
    }
    let mut problems = vec![];
    if labelled == 0 {
        problems.push("No video is labelled yet: label one to train.".to_string());
    } else {
        for (name, _) in steps.iter().zip(&step_ms).filter(|(_, ms)| **ms == 0) {
            problems.push(format!(
                "Step {name} has no labelled segment: the model will not find it."
            ));
        }
    }
    if to_review > 0 {
        problems.push(format!(
            "{} propagated labels to review: they are trained on once reviewed.",
            if to_review == 1 {
                "1 video has".to_string()
            } else {
                format!("{to_review} videos have")
            }
        ));
    }
    Ok(axum::Json(AnnotationsCheck {
        task: id,
        steps,
        ready_videos,
        labelled_videos: labelled,
        to_review,
        step_ms,
        problems,
        can_train: labelled > 0,
    }))
}
