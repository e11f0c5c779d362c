//! A task's videos (spec section 7 "Videos, tags and comments"): the handlers, by
//! sub-area: [`upload`] (in parts), [`list`] (the spec's filters, one video, changes,
//! bulk delete), [`labels`] (step labels and their review), [`tags`] (tags, comments,
//! time-stamp tags) and [`media`] (signed media URLs, HTTP ranges). What they share
//! with the rest of the cloud (staging, finishing, the object store, signed URLs) is
//! the media service, `crate::media`.
//!
//! An upload: `POST organization/task/videos/{taskId}` with the file's name and size
//! makes the video (`uploading`); `PUT organization/task_record/{id}/content/` sends the
//! bytes in order, each part with `Content-Range: bytes FIRST-LAST/SIZE`, written to a
//! staging file in `{data}/uploads/`; a part that does not start where the upload is gets
//! 409 with the offset to go on from, so an interrupted upload resumes. The last part
//! makes the cloud read the file with GStreamer (metadata, thumbnail) and move it into
//! the object store; a file that is not a usable video is refused then, and the video
//! and its bytes are gone.
//!
//! Tenancy: every call reaches only videos of the request's organisation (404 for
//! another's); the super admin's list of a task's videos is the task's organisation's. Reading needs `ViewVideos`; changing needs `ManageVideos` and the
//! organisation's "Record Training Set" subscription.

pub mod entity;
pub mod labels;
pub mod list;
pub mod media;
pub mod metadata;
pub mod tags;
pub mod upload;

use gemba_shared::Permission;
use gemba_shared::api::v1::video::{LabelState, Video, VideoStatus};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::tasks;
use crate::db::videos::{self, VideoRow};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::AuthUser;
use crate::media::urls::{Viewer, media_url};
use crate::state::AppState;
use gemba_shared::api::v1::feature_control::Gated;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list::list, upload::create))
        .routes(routes!(list::get))
        .routes(routes!(upload::put_part))
        .routes(routes!(list::bulk_delete))
        .routes(routes!(labels::get_labels, labels::put_labels))
        .routes(routes!(labels::mark_propagations_as_reviewed))
        .routes(routes!(labels::delete_annotations))
        .routes(routes!(labels::annotations_check))
        .routes(routes!(list::patch))
        .routes(routes!(tags::list_tags, tags::create_tag))
        .routes(routes!(tags::delete_tag))
        .routes(routes!(tags::task_tags))
        .routes(routes!(tags::list_comments, tags::create_comment))
        .routes(routes!(tags::delete_comment))
        .routes(routes!(tags::list_time_tags, tags::create_time_tag))
        .routes(routes!(tags::delete_time_tag))
        .routes(routes!(metadata::extract_video_metadata))
        .routes(routes!(entity::create_entity))
        .routes(routes!(media::media))
}

// ----- helpers shared by the handlers ----------------------------------------------------

/// The organisation `me`'s call acts in, once `me` holds `p` (checked first, so that a
/// role without it gets 403 whatever its organisation).
fn org_for(me: &AuthUser, p: Permission) -> ApiResult<i64> {
    me.require(p)?;
    me.org()
}

/// The organisation of a call that changes videos: `ManageVideos`, then the
/// organisation's subscription.
pub(crate) async fn org_to_change(state: &AppState, me: &AuthUser) -> ApiResult<i64> {
    let org = org_for(me, Permission::ManageVideos)?;
    me.require_subscribed(
        state,
        org,
        Permission::ManageVideos,
        Gated::RecordTrainingSet,
    )
    .await?;
    Ok(org)
}

/// Task `id` of the request's organisation (404 otherwise, or when deleted).
pub(crate) async fn task_of(state: &AppState, me: &AuthUser, org: i64, id: i64) -> ApiResult<()> {
    match tasks::get(&state.db, me.user.id, Some(org), id).await? {
        Some(t) if !t.settings().is_deleted => Ok(()),
        _ => Err(ApiError::NotFound),
    }
}

/// The API's videos of `rows`, with their tags and where their labels stand.
pub(crate) async fn with_tags(
    state: &AppState,
    viewer: Viewer<'_>,
    rows: Vec<VideoRow>,
) -> ApiResult<Vec<Video>> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let tags = videos::tags_of(&state.db, &ids).await?;
    let labels = videos::label_states(&state.db, &ids).await?;
    rows.into_iter()
        .map(|r| {
            let mut v = to_api(state, viewer, r)?;
            v.tags = tags
                .iter()
                .filter(|(id, _)| *id == v.id)
                .map(|(_, t)| t.clone())
                .collect();
            v.labels = match labels.iter().find(|(id, ..)| *id == v.id) {
                None => LabelState::None,
                Some((_, true, _)) => LabelState::Reviewed,
                Some((_, false, Some(_))) => LabelState::Propagated,
                Some((_, false, None)) => LabelState::Labelled,
            };
            Ok(v)
        })
        .collect()
}

pub(crate) async fn one_with_tags(
    state: &AppState,
    viewer: Viewer<'_>,
    r: VideoRow,
) -> ApiResult<Video> {
    Ok(with_tags(state, viewer, vec![r]).await?.remove(0))
}

fn to_api(state: &AppState, viewer: Viewer<'_>, r: VideoRow) -> ApiResult<Video> {
    let ready = r.status == videos::READY;
    let url = if ready {
        Some(media_url(state, viewer, r.organization_id, &r.object_key)?)
    } else {
        None
    };
    let thumbnail_url = match (&r.thumbnail_key, ready) {
        (Some(k), true) => Some(media_url(state, viewer, r.organization_id, k)?),
        _ => None,
    };
    Ok(Video {
        id: r.id,
        task: r.task_id,
        file_name: r.file_name,
        is_uploaded_video: r.is_uploaded_video,
        status: match r.status.as_str() {
            videos::READY => VideoStatus::Ready,
            videos::RECORDING => VideoStatus::Recording,
            videos::FAILED => VideoStatus::Failed,
            _ => VideoStatus::Uploading,
        },
        size_bytes: r.size_bytes,
        received_bytes: r.received_bytes,
        duration_ms: r.duration_ms,
        fps: r.fps,
        width: r.width,
        height: r.height,
        no_of_comments: r.no_of_comments,
        tags: vec![],
        url,
        thumbnail_url,
        created_by: r.created_by,
        created_at: r.created_at,
        device: r.device_id,
        camera: r.camera,
        message: r.message,
        labels: LabelState::None,
    })
}

async fn find(state: &AppState, org: i64, id: i64) -> ApiResult<VideoRow> {
    videos::get(&state.db, org, id)
        .await?
        .ok_or(ApiError::NotFound)
}

/// A trimmed name, not blank, at most `max` characters.
fn name_of(field: &str, s: &str, max: usize) -> ApiResult<String> {
    let t = s.trim();
    if t.is_empty() {
        return Err(ApiError::field(field, "This field may not be blank."));
    }
    if t.chars().count() > max {
        return Err(ApiError::field(
            field,
            format!("Ensure this field has no more than {max} characters."),
        ));
    }
    Ok(t.to_string())
}
