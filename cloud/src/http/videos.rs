//! A task's videos (spec section 7 "Videos, tags and comments"): upload in parts, list
//! with the spec's filters, get, bulk delete, and play through signed media URLs.
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
//! another's). Reading needs `ViewVideos`; changing needs `ManageVideos` and the
//! organisation's "Record Training Set" subscription.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use gemba_shared::Permission;
use gemba_shared::api::v1::task::{BulkDelete, TrainStatus, being_trained_message};
use gemba_shared::api::v1::video::{
    AnnotationsCheck, Comment, CommentCreate, LabelState, LabelsPut, MAX_COMMENT, MAX_FILE_NAME,
    MAX_PART_BYTES, MAX_TAG_NAME, MAX_TASK_VIDEOS, OrgTag, OrgTagCreate, TaskVideos, TimeTag,
    TimeTagCreate, Video, VideoCreate, VideoLabels, VideoPatch, VideoStatus, check_segments,
};
use gemba_shared::api::v1::{Msg, PAGE_SIZE, Page, page_offset};
use gemba_shared::cycle::Segment;
use object_store::{GetOptions, GetRange, ObjectStoreExt};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::tasks;
use crate::db::videos::{self, Filter, NewVideo, VideoRow};
use crate::http::error::{ApiError, ApiResult, count_of};
use crate::http::extract::{AuthUser, Json, Path, Query, read_body};
use crate::media;
use crate::media::upload::{finish, lock_part, remove_files, staging, write_part};
use crate::media::urls::{MEDIA_URL_STEP_SECS, media_url};
use crate::objects;
use crate::state::AppState;

/// The subscription that gates recording training video (spec section 6).
pub const FEATURE: &str = "Record Training Set";

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(get))
        .routes(routes!(put_part))
        .routes(routes!(bulk_delete))
        .routes(routes!(get_labels, put_labels))
        .routes(routes!(mark_propagations_as_reviewed))
        .routes(routes!(delete_annotations))
        .routes(routes!(annotations_check))
        .routes(routes!(patch))
        .routes(routes!(list_tags, create_tag))
        .routes(routes!(delete_tag))
        .routes(routes!(list_comments, create_comment))
        .routes(routes!(delete_comment))
        .routes(routes!(list_time_tags, create_time_tag))
        .routes(routes!(delete_time_tag))
        .routes(routes!(media))
}

// ----- helpers ---------------------------------------------------------------------------

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
    me.require_subscribed(state, org, Permission::ManageVideos, FEATURE)
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
pub(crate) async fn with_tags(state: &AppState, rows: Vec<VideoRow>) -> ApiResult<Vec<Video>> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let tags = videos::tags_of(&state.db, &ids).await?;
    let labels = videos::label_states(&state.db, &ids).await?;
    rows.into_iter()
        .map(|r| {
            let mut v = to_api(state, r)?;
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

pub(crate) async fn one_with_tags(state: &AppState, r: VideoRow) -> ApiResult<Video> {
    Ok(with_tags(state, vec![r]).await?.remove(0))
}

fn to_api(state: &AppState, r: VideoRow) -> ApiResult<Video> {
    let ready = r.status == videos::READY;
    let url = if ready {
        Some(media_url(state, r.organization_id, &r.object_key)?)
    } else {
        None
    };
    let thumbnail_url = match (&r.thumbnail_key, ready) {
        (Some(k), true) => Some(media_url(state, r.organization_id, k)?),
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

// ----- list and create -------------------------------------------------------------------

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct VideoQuery {
    /// 1-based page of [`PAGE_SIZE`] videos.
    pub page: Option<i64>,
    /// The video type filter (spec section 9): empty for all, `true` training, `false`
    /// trace.
    #[serde(rename = "isUploadedVideo")]
    pub is_uploaded_video: Option<String>,
    /// Created at or after: a date (`YYYY-MM-DD`, UTC) or an RFC 3339 date-time.
    pub datetime_start: Option<String>,
    /// Created before: a date (the whole day counts) or an RFC 3339 date-time.
    pub datetime_end: Option<String>,
    /// `no_of_comments` (fewest first) or `-no_of_comments` (most first); newest first
    /// without.
    pub ordering: Option<String>,
}

/// A date or date-time as unix ms; `end` makes a bare date mean the end of its day.
fn parse_when(field: &str, s: &str, end: bool) -> ApiResult<Option<i64>> {
    let s = s.trim();
    if s.is_empty() {
        return Ok(None);
    }
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) {
        return Ok(Some(t.timestamp_millis()));
    }
    if let Ok(d) = chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        let day = if end { d.succ_opt().unwrap_or(d) } else { d };
        let t = day.and_hms_opt(0, 0, 0).expect("midnight exists");
        return Ok(Some(t.and_utc().timestamp_millis()));
    }
    Err(ApiError::field(
        field,
        "Enter a date (YYYY-MM-DD) or a date and time (RFC 3339, e.g. 2026-11-24T08:00:00Z).",
    ))
}

/// The `datetime_start` and `datetime_end` parameters as unix ms (each a date or a
/// date-time, the end's bare date meaning its whole day), the end after the start.
pub(crate) fn date_range(
    start: Option<&str>,
    end: Option<&str>,
) -> ApiResult<(Option<i64>, Option<i64>)> {
    let start = parse_when("datetime_start", start.unwrap_or(""), false)?;
    let end = parse_when("datetime_end", end.unwrap_or(""), true)?;
    if let (Some(a), Some(b)) = (start, end)
        && b <= a
    {
        return Err(ApiError::field(
            "datetime_end",
            "The end must come after the start.",
        ));
    }
    Ok((start, end))
}

fn filter_of(q: &VideoQuery) -> ApiResult<Filter> {
    let uploaded = match q.is_uploaded_video.as_deref().map(str::trim) {
        None | Some("") => None,
        Some("true") => Some(true),
        Some("false") => Some(false),
        Some(_) => {
            return Err(ApiError::field(
                "isUploadedVideo",
                "Choose true (training), false (trace) or nothing (all videos).",
            ));
        }
    };
    let (start, end) = date_range(q.datetime_start.as_deref(), q.datetime_end.as_deref())?;
    let by_comments = match q.ordering.as_deref().map(str::trim) {
        None | Some("") => None,
        Some("no_of_comments") => Some(false),
        Some("-no_of_comments") => Some(true),
        Some(_) => {
            return Err(ApiError::field(
                "ordering",
                "Order by no_of_comments or -no_of_comments.",
            ));
        }
    };
    Ok(Filter {
        uploaded,
        start,
        end,
        by_comments,
        ready_only: false,
    })
}

/// A task's videos, newest first, a page at a time.
#[utoipa::path(get, path = "/organization/task/videos/{task_id}", tag = "videos",
    params(("task_id" = i64, Path), VideoQuery),
    responses((status = 200, body = Page<Video>), (status = 400), (status = 403), (status = 404)))]
pub async fn list(
    State(state): State<AppState>,
    me: AuthUser,
    Path(task): Path<i64>,
    Query(q): Query<VideoQuery>,
) -> ApiResult<axum::Json<Page<Video>>> {
    let org = org_for(&me, Permission::ViewVideos)?;
    let filter = filter_of(&q)?;
    task_of(&state, &me, org, task).await?;
    Ok(axum::Json(
        page_of(&state, org, task, &filter, q.page).await?,
    ))
}

/// Page `page` (1-based) of `task`'s videos that pass `filter`, with their tags.
pub(crate) async fn page_of(
    state: &AppState,
    org: i64,
    task: i64,
    filter: &Filter,
    page: Option<i64>,
) -> ApiResult<Page<Video>> {
    let offset = page_offset(page).ok_or_else(|| ApiError::field("page", "Invalid page."))?;
    let (rows, count) = videos::page(&state.db, org, task, filter, offset, PAGE_SIZE).await?;
    Ok(Page {
        results: with_tags(state, rows).await?,
        count,
    })
}

/// Starts an upload: the video is made with its name and size, waiting for its bytes.
#[utoipa::path(post, path = "/organization/task/videos/{task_id}", tag = "videos",
    params(("task_id" = i64, Path)), request_body = VideoCreate,
    responses((status = 201, body = Video), (status = 400), (status = 403), (status = 404)))]
pub async fn create(
    State(state): State<AppState>,
    me: AuthUser,
    Path(task): Path<i64>,
    Json(body): Json<VideoCreate>,
) -> ApiResult<(StatusCode, axum::Json<Video>)> {
    let org = org_to_change(&state, &me).await?;
    let name = name_of("file_name", &body.file_name, MAX_FILE_NAME)?;
    let name = name.as_str();
    if body.size_bytes <= 0 {
        return Err(ApiError::field("size_bytes", "The file is empty."));
    }
    if body.size_bytes > state.settings.max_video_bytes {
        return Err(ApiError::field(
            "size_bytes",
            format!(
                "The file is larger than the {} MiB a video may be.",
                state.settings.max_video_bytes / (1024 * 1024)
            ),
        ));
    }
    task_of(&state, &me, org, task).await?;
    let row = videos::create(
        &state.db,
        NewVideo {
            org,
            task,
            file_name: name,
            extension: &extension(name),
            is_uploaded_video: body.is_uploaded_video.unwrap_or(true),
            size_bytes: body.size_bytes,
            created_by: me.user.id,
            recording: None,
        },
    )
    .await?;
    Ok((StatusCode::CREATED, axum::Json(to_api(&state, row)?)))
}

/// One video: how far its upload is, or its metadata and URLs once ready.
#[utoipa::path(get, path = "/organization/task_record/{id}/", tag = "videos",
    params(("id" = i64, Path)),
    responses((status = 200, body = Video), (status = 403), (status = 404)))]
pub async fn get(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Video>> {
    let org = org_for(&me, Permission::ViewVideos)?;
    Ok(axum::Json(
        one_with_tags(&state, find(&state, org, id).await?).await?,
    ))
}

// ----- parts -----------------------------------------------------------------------------

/// `bytes FIRST-LAST/SIZE` → (first, last).
fn content_range(headers: &HeaderMap, size: i64) -> ApiResult<(i64, i64)> {
    let bad = || {
        ApiError::field(
            "Content-Range",
            format!("Send each part with Content-Range: bytes FIRST-LAST/{size}."),
        )
    };
    let v = headers
        .get(header::CONTENT_RANGE)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(bad)?;
    let rest = v.trim().strip_prefix("bytes ").ok_or_else(bad)?;
    let (span, total) = rest.split_once('/').ok_or_else(bad)?;
    let (a, b) = span.split_once('-').ok_or_else(bad)?;
    let (a, b, total): (i64, i64, i64) = (
        a.trim().parse().map_err(|_| bad())?,
        b.trim().parse().map_err(|_| bad())?,
        total.trim().parse().map_err(|_| bad())?,
    );
    if total != size {
        return Err(ApiError::field(
            "Content-Range",
            format!("This video is {size} bytes, not {total}."),
        ));
    }
    if a < 0 || b < a || b >= size {
        return Err(bad());
    }
    Ok((a, b))
}

/// The 409 of a part that does not start where the upload is.
fn wrong_offset(at: i64) -> Response {
    (
        StatusCode::CONFLICT,
        axum::Json(serde_json::json!({
            "Content-Range": [format!("The upload is at byte {at}; send the part that starts there.")],
            "received_bytes": at,
        })),
    )
        .into_response()
}

/// One part of an upload, in order. The last part makes the video ready (or refuses
/// it, when it is not a usable video, and removes it).
#[utoipa::path(put, path = "/organization/task_record/{id}/content/", tag = "videos",
    params(("id" = i64, Path), ("Content-Range" = String, Header, description = "bytes FIRST-LAST/SIZE")),
    request_body(content = Vec<u8>, content_type = "application/octet-stream"),
    responses((status = 200, body = Video), (status = 400), (status = 403), (status = 404),
        (status = 409, description = "The part does not start at `received_bytes`, or the video is complete"),
        (status = 413)))]
pub async fn put_part(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    headers: HeaderMap,
    body: Body,
) -> ApiResult<Response> {
    let org = org_to_change(&state, &me).await?;
    // One part at a time per video, from reading where it is to recording the part.
    let _lock = lock_part(&state, id)?;
    let mut row = find(&state, org, id).await?;
    if row.status != videos::UPLOADING {
        return Err(ApiError::Status(
            StatusCode::CONFLICT,
            "This video is already uploaded.".into(),
        ));
    }
    let (first, last) = content_range(&headers, row.size_bytes)?;
    if last - first + 1 > MAX_PART_BYTES {
        return Err(ApiError::field(
            "Content-Range",
            format!("A part may be at most {MAX_PART_BYTES} bytes."),
        ));
    }
    if first != row.received_bytes {
        return Ok(wrong_offset(row.received_bytes));
    }
    let bytes = read_body(body, MAX_PART_BYTES as usize).await?;
    if bytes.len() as i64 != last - first + 1 {
        return Err(ApiError::field(
            "Content-Range",
            format!(
                "The part holds {} bytes, but Content-Range says {}.",
                bytes.len(),
                last - first + 1
            ),
        ));
    }
    let path = staging(&state, id);
    write_part(&path, first, &bytes)
        .await
        .map_err(|e| ApiError::Internal(e.context("writing an upload part")))?;
    if !videos::advance(&state.db, id, first, last + 1).await? {
        return Ok(wrong_offset(find(&state, org, id).await?.received_bytes));
    }
    if last + 1 < row.size_bytes {
        row.received_bytes = last + 1;
        return Ok(axum::Json(one_with_tags(&state, row).await?).into_response());
    }
    match finish(&state, &row, &path).await {
        Ok(()) => {
            let _ = tokio::fs::remove_file(&path).await;
            let row = find(&state, org, id).await?;
            Ok(axum::Json(one_with_tags(&state, row).await?).into_response())
        }
        Err(media::ReadError::NotVideo(why)) => {
            // Not a video: nothing of it stays.
            let _ = videos::delete(&state.db, org, &[id]).await?;
            let _ = tokio::fs::remove_file(&path).await;
            Err(ApiError::field("file", why.to_string()))
        }
        Err(media::ReadError::Failed(e)) => {
            // The last part can be sent again.
            videos::advance(&state.db, id, last + 1, first).await?;
            Err(ApiError::Internal(e))
        }
    }
}

// ----- delete ----------------------------------------------------------------------------

/// Deletes videos (`ids`) of the request's organisation, with their files, all or none:
/// an id that is not one of the organisation's videos gets 400 and nothing is deleted.
/// Answers how many went.
#[utoipa::path(patch, path = "/organization/task_record/bulk_delete/", tag = "videos",
    request_body = BulkDelete,
    responses((status = 200, body = Msg), (status = 400), (status = 403)))]
pub async fn bulk_delete(
    State(state): State<AppState>,
    me: AuthUser,
    Json(body): Json<BulkDelete>,
) -> ApiResult<axum::Json<Msg>> {
    let org = org_to_change(&state, &me).await?;
    if body.ids.is_empty() {
        return Err(ApiError::field("ids", "Choose at least one video."));
    }
    if body.ids.len() > 1000 {
        return Err(ApiError::field(
            "ids",
            "Delete at most 1000 videos at once.",
        ));
    }
    let mut ids = body.ids.clone();
    ids.sort_unstable();
    ids.dedup();
    let gone = videos::delete(&state.db, org, &ids).await?.map_err(|id| {
        ApiError::field(
            "ids",
            format!("Video {id} is not one of this organisation's videos; nothing was deleted."),
        )
    })?;
    for r in &gone {
        remove_files(&state, org, r).await;
    }
    Ok(axum::Json(Msg::new(format!(
        "{} deleted.",
        count_of(gone.len(), "video")
    ))))
}

// ----- labels ----------------------------------------------------------------------------

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

// ----- change, tags, comments -------------------------------------------------------------

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

/// Changes a video's name, type (training or trace) or tags.
#[utoipa::path(patch, path = "/organization/task_record/{id}/", tag = "videos",
    params(("id" = i64, Path)), request_body = VideoPatch,
    responses((status = 200, body = Video), (status = 400), (status = 403), (status = 404)))]
pub async fn patch(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(body): Json<VideoPatch>,
) -> ApiResult<axum::Json<Video>> {
    let org = org_to_change(&state, &me).await?;
    let name = match &body.file_name {
        Some(n) => Some(name_of("file_name", n, MAX_FILE_NAME)?),
        None => None,
    };
    let tags = body.tags.map(|mut t| {
        t.sort_unstable();
        t.dedup();
        t
    });
    let v = find(&state, org, id).await?;
    videos::patch(
        &state.db,
        &v,
        name.as_deref(),
        body.is_uploaded_video,
        tags.as_deref(),
    )
    .await?
    .map_err(|t| {
        ApiError::field(
            "tags",
            format!("Tag {t} is not one of this organisation's tags."),
        )
    })?;
    Ok(axum::Json(
        one_with_tags(&state, find(&state, org, id).await?).await?,
    ))
}

/// The organisation's tags (spec section 3 "Organisation tag").
#[utoipa::path(get, path = "/organization/task_record/tags", tag = "videos",
    responses((status = 200, body = Vec<OrgTag>), (status = 403)))]
pub async fn list_tags(
    State(state): State<AppState>,
    me: AuthUser,
) -> ApiResult<axum::Json<Vec<OrgTag>>> {
    let org = org_for(&me, Permission::ViewVideos)?;
    let tags = videos::org_tags(&state.db, org).await?;
    Ok(axum::Json(
        tags.into_iter()
            .map(|(id, tag_name)| OrgTag { id, tag_name })
            .collect(),
    ))
}

/// A new tag of the organisation.
#[utoipa::path(post, path = "/organization/task_record/tags", tag = "videos",
    request_body = OrgTagCreate,
    responses((status = 201, body = OrgTag), (status = 400), (status = 403)))]
pub async fn create_tag(
    State(state): State<AppState>,
    me: AuthUser,
    Json(body): Json<OrgTagCreate>,
) -> ApiResult<(StatusCode, axum::Json<OrgTag>)> {
    let org = org_to_change(&state, &me).await?;
    let name = name_of("tag_name", &body.tag_name, MAX_TAG_NAME)?;
    let id = videos::create_tag(&state.db, org, &name)
        .await?
        .ok_or_else(|| ApiError::field("tag_name", "A tag with this name already exists."))?;
    Ok((
        StatusCode::CREATED,
        axum::Json(OrgTag { id, tag_name: name }),
    ))
}

/// Deletes one of the organisation's tags (and takes it off its videos).
#[utoipa::path(delete, path = "/organization/task_record/tags/{id}", tag = "videos",
    params(("id" = i64, Path)),
    responses((status = 204), (status = 403), (status = 404)))]
pub async fn delete_tag(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    let org = org_to_change(&state, &me).await?;
    if !videos::delete_tag(&state.db, org, id).await? {
        return Err(ApiError::NotFound);
    }
    Ok(StatusCode::NO_CONTENT)
}

fn comment_of(c: videos::CommentRow) -> Comment {
    Comment {
        id: c.id,
        entity_id: c.video_id,
        text: c.text,
        user: c.user_id,
        user_name: c.user_name,
        created_at: c.created_at,
    }
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CommentQuery {
    /// The video.
    pub entity_id: i64,
}

/// A video's comments, oldest first.
#[utoipa::path(get, path = "/organization/task_record/comments", tag = "videos",
    params(CommentQuery),
    responses((status = 200, body = Vec<Comment>), (status = 403), (status = 404)))]
pub async fn list_comments(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<CommentQuery>,
) -> ApiResult<axum::Json<Vec<Comment>>> {
    let org = org_for(&me, Permission::ViewVideos)?;
    let v = find(&state, org, q.entity_id).await?;
    let rows = videos::comments(&state.db, org, v.id).await?;
    Ok(axum::Json(rows.into_iter().map(comment_of).collect()))
}

/// A comment on a video; the video's `no_of_comments` counts it.
#[utoipa::path(post, path = "/organization/task_record/comments", tag = "videos",
    request_body = CommentCreate,
    responses((status = 201, body = Comment), (status = 400), (status = 403), (status = 404)))]
pub async fn create_comment(
    State(state): State<AppState>,
    me: AuthUser,
    Json(body): Json<CommentCreate>,
) -> ApiResult<(StatusCode, axum::Json<Comment>)> {
    let org = org_for(&me, Permission::ViewVideos)?;
    let text = name_of("text", &body.text, MAX_COMMENT)?;
    let v = find(&state, org, body.entity_id).await?;
    let who = format!("{} {}", me.user.name, me.user.lastname);
    let c = videos::add_comment(&state.db, &v, me.user.id, who.trim(), &text).await?;
    Ok((StatusCode::CREATED, axum::Json(comment_of(c))))
}

/// Deletes a comment: its writer may, and those who manage videos.
#[utoipa::path(delete, path = "/organization/task_record/comments/{id}", tag = "videos",
    params(("id" = i64, Path)),
    responses((status = 204), (status = 403), (status = 404)))]
pub async fn delete_comment(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    let org = org_for(&me, Permission::ViewVideos)?;
    let c = videos::comment(&state.db, org, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    if c.user_id != Some(me.user.id) {
        me.require(Permission::ManageVideos)?;
    }
    videos::delete_comment(&state.db, &c).await?;
    Ok(StatusCode::NO_CONTENT)
}

// ----- time-stamp tags --------------------------------------------------------------------

fn time_tag_of(t: videos::TimeTagRow) -> TimeTag {
    TimeTag {
        id: t.id,
        task_record: t.video_id,
        tag: t.tag_id,
        tag_name: t.tag_name,
        time_ms: t.time_ms,
        created_by: t.created_by,
        created_at: t.created_at,
    }
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TimeTagQuery {
    /// The video.
    pub task_record: i64,
}

/// A video's time-stamp tags, in time order.
#[utoipa::path(get, path = "/organization/tag_time_stamp_videos_view", tag = "videos",
    params(TimeTagQuery),
    responses((status = 200, body = Vec<TimeTag>), (status = 403), (status = 404)))]
pub async fn list_time_tags(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<TimeTagQuery>,
) -> ApiResult<axum::Json<Vec<TimeTag>>> {
    let org = org_for(&me, Permission::ViewVideos)?;
    let v = find(&state, org, q.task_record).await?;
    let rows = videos::time_tags(&state.db, org, v.id).await?;
    Ok(axum::Json(rows.into_iter().map(time_tag_of).collect()))
}

/// Tags a moment of a video with one of the organisation's tags.
#[utoipa::path(post, path = "/organization/tag_time_stamp_videos_view", tag = "videos",
    request_body = TimeTagCreate,
    responses((status = 201, body = TimeTag), (status = 400), (status = 403), (status = 404),
        (status = 409, description = "The video is still uploading")))]
pub async fn create_time_tag(
    State(state): State<AppState>,
    me: AuthUser,
    Json(body): Json<TimeTagCreate>,
) -> ApiResult<(StatusCode, axum::Json<TimeTag>)> {
    let org = org_for(&me, Permission::LabelVideos)?;
    let v = find(&state, org, body.task_record).await?;
    let Some(duration) = v.duration_ms.filter(|_| v.status == videos::READY) else {
        return Err(ApiError::Status(
            StatusCode::CONFLICT,
            "The video is still uploading; tag it once it is ready.".into(),
        ));
    };
    if body.time_ms < 0 || body.time_ms > duration {
        return Err(ApiError::field(
            "time_ms",
            format!("The time falls outside the video (0 to {duration} ms)."),
        ));
    }
    let t = videos::add_time_tag(&state.db, &v, body.tag, body.time_ms, me.user.id)
        .await?
        .ok_or_else(|| {
            ApiError::field(
                "tag",
                format!("Tag {} is not one of this organisation's tags.", body.tag),
            )
        })?;
    Ok((StatusCode::CREATED, axum::Json(time_tag_of(t))))
}

/// Deletes a time-stamp tag.
#[utoipa::path(delete, path = "/organization/tag_time_stamp_video/{id}", tag = "videos",
    params(("id" = i64, Path)),
    responses((status = 204), (status = 403), (status = 404)))]
pub async fn delete_time_tag(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    let org = org_for(&me, Permission::LabelVideos)?;
    if !videos::delete_time_tag(&state.db, org, id).await? {
        return Err(ApiError::NotFound);
    }
    Ok(StatusCode::NO_CONTENT)
}

// ----- media -----------------------------------------------------------------------------

/// The extension a video's object gets from its file name: letters and digits only,
/// `mp4` when it has none.
fn extension(file_name: &str) -> String {
    match file_name.rsplit_once('.') {
        Some((_, e))
            if (1..=5).contains(&e.len()) && e.chars().all(|c| c.is_ascii_alphanumeric()) =>
        {
            e.to_ascii_lowercase()
        }
        _ => "mp4".into(),
    }
}

fn content_type(key: &str) -> &'static str {
    match key.rsplit_once('.').map(|(_, e)| e) {
        Some("jpg") => "image/jpeg",
        Some("mp4" | "m4v") => "video/mp4",
        Some("webm") => "video/webm",
        Some("mkv") => "video/x-matroska",
        Some("mov") => "video/quicktime",
        Some("avi") => "video/x-msvideo",
        _ => "application/octet-stream",
    }
}

/// A media object through its signed URL (from a video's `url` or `thumbnail_url`),
/// with HTTP ranges for seeking. No sign-in: the URL is the permission, for its hours.
#[utoipa::path(get, path = "/media/{token}", tag = "videos", security(()),
    params(("token" = String, Path), ("Range" = Option<String>, Header)),
    responses((status = 200), (status = 206), (status = 404), (status = 416)))]
pub async fn media(
    State(state): State<AppState>,
    Path(token): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let claims = state.keys.verify_media(&token).ok_or(ApiError::NotFound)?;
    let key = objects::key(claims.org, &claims.key);
    let meta = state.objects.head(&key).await.map_err(|e| match e {
        object_store::Error::NotFound { .. } => ApiError::NotFound,
        e => ApiError::Internal(e.into()),
    })?;
    let size = meta.size;
    let range = match headers.get(header::RANGE).and_then(|v| v.to_str().ok()) {
        None => None,
        Some(r) => {
            let ranges = http_range_header::parse_range_header(r)
                .and_then(|p| p.validate(size))
                .map_err(|_| {
                    ApiError::Status(
                        StatusCode::RANGE_NOT_SATISFIABLE,
                        format!("The range is outside the file's {size} bytes."),
                    )
                })?;
            // One range at a time (what players ask for).
            ranges.into_iter().next()
        }
    };
    let opts = GetOptions {
        range: range
            .clone()
            .map(|r| GetRange::Bounded(*r.start()..*r.end() + 1)),
        ..Default::default()
    };
    let got = state
        .objects
        .get_opts(&key, opts)
        .await
        .map_err(|e| ApiError::Internal(e.into()))?;
    let mut resp = Response::new(Body::from_stream(got.into_stream()));
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(content_type(&claims.key)),
    );
    h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    // Kept as long as its URL stays the same (see `media::urls`).
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_str(&format!("private, max-age={MEDIA_URL_STEP_SECS}")).expect("ascii"),
    );
    match range {
        Some(r) => {
            *resp.status_mut() = StatusCode::PARTIAL_CONTENT;
            let h = resp.headers_mut();
            h.insert(
                header::CONTENT_RANGE,
                HeaderValue::from_str(&format!("bytes {}-{}/{size}", r.start(), r.end()))
                    .expect("ascii"),
            );
            h.insert(header::CONTENT_LENGTH, (r.end() - r.start() + 1).into());
        }
        None => {
            resp.headers_mut()
                .insert(header::CONTENT_LENGTH, size.into());
        }
    }
    Ok(resp)
}
