//! The organisation's tags, a video's comments and its time-stamp tags.

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::video::{
    Comment, CommentCreate, MAX_COMMENT, MAX_TAG_NAME, OrgTag, OrgTagCreate, TaskTag, TimeTag,
    TimeTagCreate,
};
use gemba_shared::validate::Bounded;
use serde::Deserialize;

use crate::db::videos;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path, Query};
use crate::http::videos::{find, name_of, org_for, org_to_change, task_of};
use crate::state::AppState;

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

/// The tags in use on a task's videos, with how many videos carry each (to filter the
/// task's videos by tag).
#[utoipa::path(get, path = "/organization/task/task_tags/{id}", tag = "videos",
    params(("id" = i64, Path, description = "The task")),
    responses((status = 200, body = Vec<TaskTag>), (status = 403), (status = 404)))]
pub async fn task_tags(
    State(state): State<AppState>,
    me: AuthUser,
    Path(task): Path<i64>,
) -> ApiResult<axum::Json<Vec<TaskTag>>> {
    let org = org_for(&me, Permission::ViewVideos)?;
    task_of(&state, &me, org, task).await?;
    let tags = videos::task_tags(&state.db, org, task).await?;
    Ok(axum::Json(
        tags.into_iter()
            .map(|(id, tag_name, videos)| TaskTag {
                id,
                tag_name,
                videos,
            })
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
    body.check_lengths()?;
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
    body.check_lengths()?;
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
