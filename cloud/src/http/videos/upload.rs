//! An upload: the video made with its file's name and size, then its bytes in order,
//! part by part (`Content-Range`), staged by the media service; the last part finishes
//! it (or refuses a file that is not a usable video, and removes it).

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use gemba_shared::api::v1::video::{MAX_FILE_NAME, MAX_PART_BYTES, Video, VideoCreate};
use gemba_shared::validate::Bounded;

use crate::db::videos::{self, NewVideo};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path, read_body};
use crate::http::videos::{find, name_of, one_with_tags, org_to_change, task_of, to_api};
use crate::media;
use crate::media::upload::{finish, lock_part, staging, write_part};
use crate::media::urls::Viewer;
use crate::state::AppState;

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
    body.check_lengths()?;
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
    Ok((
        StatusCode::CREATED,
        axum::Json(to_api(&state, Viewer::Session(&me.session), row)?),
    ))
}

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
        return Ok(
            axum::Json(one_with_tags(&state, Viewer::Session(&me.session), row).await?)
                .into_response(),
        );
    }
    match finish(&state, &row, &path).await {
        Ok(()) => {
            let _ = tokio::fs::remove_file(&path).await;
            let row = find(&state, org, id).await?;
            Ok(
                axum::Json(one_with_tags(&state, Viewer::Session(&me.session), row).await?)
                    .into_response(),
            )
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
