//! Listing a task's videos with the spec's filters (type, dates, ordering), one video,
//! changing a video's name, type or tags, and deleting videos with their files.

use axum::extract::State;
use gemba_shared::Permission;
use gemba_shared::api::v1::task::BulkDelete;
use gemba_shared::api::v1::video::{MAX_FILE_NAME, Video, VideoPatch};
use gemba_shared::api::v1::{Msg, PAGE_SIZE, Page, page_offset};
use gemba_shared::validate::Bounded;
use serde::Deserialize;

use crate::db::tasks;
use crate::db::videos::{self, Filter};
use crate::http::error::{ApiError, ApiResult, count_of};
use crate::http::extract::{AuthUser, Json, Path, Query};
use crate::http::videos::{find, name_of, one_with_tags, org_for, org_to_change, with_tags};
use crate::media::upload::remove_files;
use crate::media::urls::Viewer;
use crate::state::AppState;

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

/// A task's videos, newest first, a page at a time. The super admin reads any
/// organisation's (Task Videos, `/admin/task-videos/{taskId}/{taskName}`): the task's
/// own organisation, whichever the request names.
#[utoipa::path(get, path = "/organization/task/videos/{task_id}", tag = "videos",
    params(("task_id" = i64, Path), VideoQuery),
    responses((status = 200, body = Page<Video>), (status = 400), (status = 403), (status = 404)))]
pub async fn list(
    State(state): State<AppState>,
    me: AuthUser,
    Path(task): Path<i64>,
    Query(q): Query<VideoQuery>,
) -> ApiResult<axum::Json<Page<Video>>> {
    me.require(Permission::ViewVideos)?;
    let scope = if me.is_admin() { None } else { Some(me.org()?) };
    let filter = filter_of(&q)?;
    let org = match tasks::get(&state.db, me.user.id, scope, task).await? {
        Some(t) if !t.settings().is_deleted => t.organization_id,
        _ => return Err(ApiError::NotFound),
    };
    Ok(axum::Json(
        page_of(
            &state,
            Viewer::Session(&me.session),
            org,
            task,
            &filter,
            q.page,
        )
        .await?,
    ))
}

/// Page `page` (1-based) of `task`'s videos that pass `filter`, with their tags.
pub(crate) async fn page_of(
    state: &AppState,
    viewer: Viewer<'_>,
    org: i64,
    task: i64,
    filter: &Filter,
    page: Option<i64>,
) -> ApiResult<Page<Video>> {
    let offset = page_offset(page).ok_or_else(|| ApiError::field("page", "Invalid page."))?;
    let (rows, count) = videos::page(&state.db, org, task, filter, offset, PAGE_SIZE).await?;
    Ok(Page {
        results: with_tags(state, viewer, rows).await?,
        count,
    })
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
        one_with_tags(
            &state,
            Viewer::Session(&me.session),
            find(&state, org, id).await?,
        )
        .await?,
    ))
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
    body.check_lengths()?;
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
        one_with_tags(
            &state,
            Viewer::Session(&me.session),
            find(&state, org, id).await?,
        )
        .await?,
    ))
}

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
