//! Records (validation videos) of a group, made from cycles' clips, checked, deleted.

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::validation::{RecordLabels, RecordsFromTrace, ValidationVideo};
use gemba_shared::api::v1::video::check_segments;
use gemba_shared::cycle::Segment;
use object_store::ObjectStoreExt;

use super::videos::videos_of;
use super::{RECORD_DELETED, add_all, copy_objects, group_in, not_too_many, path_id};
use crate::db::validation::{self as db, NewVideo};
use crate::db::{clips, tasks};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path};
use crate::state::AppState;

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
    let sources: Vec<&str> = found
        .iter()
        .map(|(_, clip, _)| clip.object_key.as_str())
        .collect();
    let keys = copy_objects(&state, org, &sources).await?;
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
