//! Training video recorded on a device (issue 6, "recording … on a device"): the portal
//! asks a device to record a camera for some seconds; the video is made at once in
//! `recording`, and the device gets a signed `record` command carrying an upload URL
//! (issue 28: a random token of that one video, used once, good for the recording plus
//! `upload_link_secs`; `db::upload_tokens`). When done, the device sends the whole
//! file in one `PUT` to that URL; the cloud reads it as it reads an upload (metadata,
//! thumbnail, object store) and the video is `ready`. A device that cannot record or
//! upload acknowledges the command with why, and the video is `failed` with those words
//! (`mqtt.rs`); a file that is not a usable video fails it too.
//!
//! Asking needs what uploading needs (`ManageVideos` and "Record Training Set"); the
//! device must be the organisation's and online, and have the camera.

use axum::body::Body;
use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::api::v1::device::check_camera;
use gemba_shared::api::v1::video::{MAX_RECORD_SECS, MIN_RECORD_SECS, RecordRequest, Video};
use gemba_shared::mqtt::v1::Command;
use gemba_shared::validate::Bounded;
use tokio::io::AsyncWriteExt;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::{random_token, token_hash};
use crate::db::now_ms;
use crate::db::upload_tokens::{self, NewToken, Refusal};
use crate::db::videos::{self, NewVideo, Recording};
use crate::http::clips::link_refused;
use crate::http::devices::online_device;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path};
use crate::http::videos::{one_with_tags, org_to_change, task_of};
use crate::media;
use crate::media::upload::{finish, lock_part, staging};
use crate::media::urls::Viewer;
use crate::mqtt::new_command_id;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(record))
        .routes(routes!(upload))
}

/// Asks a device to record `seconds` of `camera` as a training video of task
/// `task_id`. Answers the video, `recording` until the device uploads it.
#[utoipa::path(post, path = "/organization/task/videos/{task_id}/record/", tag = "videos",
    params(("task_id" = i64, Path)), request_body = RecordRequest,
    responses((status = 201, body = Video), (status = 400), (status = 403), (status = 404)))]
pub async fn record(
    State(state): State<AppState>,
    me: AuthUser,
    Path(task): Path<i64>,
    Json(req): Json<RecordRequest>,
) -> ApiResult<(StatusCode, axum::Json<Video>)> {
    req.check_lengths()?;
    let org = org_to_change(&state, &me).await?;
    task_of(&state, &me, org, task).await?;
    if !(MIN_RECORD_SECS..=MAX_RECORD_SECS).contains(&req.seconds) {
        return Err(ApiError::field(
            "seconds",
            format!("Record between {MIN_RECORD_SECS} and {MAX_RECORD_SECS} seconds."),
        ));
    }
    if check_camera(&req.camera).is_err() {
        return Err(ApiError::field(
            "camera",
            "Choose one of the device's cameras.",
        ));
    }
    let device = online_device(&state, &me, org, req.device, "device").await?;
    if !device.cameras().contains(&req.camera) {
        return Err(ApiError::field(
            "camera",
            format!("{} has no camera {}.", device.display_name, req.camera),
        ));
    }
    let command = new_command_id();
    let stamp = stamp(now_ms());
    let name = format!("{} {} {stamp}.mp4", device.display_name, req.camera);
    let row = videos::create(
        &state.db,
        NewVideo {
            org,
            task,
            file_name: &name,
            extension: "mp4",
            is_uploaded_video: true,
            size_bytes: 0,
            created_by: me.user.id,
            recording: Some(Recording {
                device: device.id,
                camera: &req.camera,
                command: &command,
            }),
        },
    )
    .await?;
    let url = upload_link(&state, org, device.id, row.id, req.seconds).await?;
    state
        .mqtt
        .command_with_id(
            &state.db,
            org,
            device.id,
            &command,
            Command::Record {
                camera: req.camera.clone(),
                seconds: req.seconds as u32,
                url,
            },
        )
        .await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(one_with_tags(&state, Viewer::Session(&me.session), row).await?),
    ))
}

/// The upload URL of device `device`'s recording of video `video` of `org`, `seconds`
/// long: good for the recording and then its upload on a slow link
/// (`upload_link_secs`), once.
pub async fn upload_link(
    state: &AppState,
    org: i64,
    device: i64,
    video: i64,
    seconds: i64,
) -> ApiResult<String> {
    let token = random_token();
    let life_secs = seconds.max(0) + state.settings.upload_link_secs.max(1);
    let link = NewToken {
        hash: token_hash(&token),
        kind: upload_tokens::RECORDING,
        org,
        device,
        subjects: vec![video.to_string()],
        expires_at: now_ms() + life_secs * 1000,
    };
    upload_tokens::insert(&state.db, &[link]).await?;
    Ok(format!(
        "{}/api/device/recording/{token}",
        state.settings.public_url()
    ))
}

/// `YYYY-MM-DD HH:MM:SS` (UTC) of unix milliseconds, for a recording's file name.
fn stamp(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
        .unwrap_or_default()
}

/// A device's recording, the whole file in one request, to the URL its `record`
/// command carried, once. The video is ready after it (or failed, when the file is not
/// a usable video: 400 with why).
#[utoipa::path(put, path = "/device/recording/{token}", tag = "videos", security(()),
    params(("token" = String, Path)),
    request_body(content = Vec<u8>, content_type = "application/octet-stream"),
    responses((status = 200, body = Video), (status = 400), (status = 404),
        (status = 409, description = "The link was used, or the video is not waiting for its recording"),
        (status = 410, description = "The link has expired"), (status = 413)))]
pub async fn upload(
    State(state): State<AppState>,
    Path(token): Path<String>,
    body: Body,
) -> ApiResult<axum::Json<Video>> {
    let hash = token_hash(&token);
    let link = upload_tokens::get(&state.db, &hash).await?;
    // The one video it names.
    let video: String = link
        .as_ref()
        .and_then(|l| serde_json::from_str::<Vec<String>>(&l.subjects).ok())
        .and_then(|v| v.into_iter().next())
        .unwrap_or_default();
    let refused = |r| link_refused(r, "video", "recording");
    let (org, _) = upload_tokens::check(link.as_ref(), upload_tokens::RECORDING, &video, now_ms())
        .map_err(refused)?;
    let id: i64 = video.parse().map_err(|_| ApiError::NotFound)?;
    // Once: of two uploads at once, one.
    if !upload_tokens::use_once(&state.db, &hash, now_ms()).await? {
        return Err(refused(Refusal::Used));
    }
    let _lock = lock_part(&state, id)?;
    let row = videos::get(&state.db, org, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    if row.status != videos::RECORDING {
        return Err(ApiError::Status(
            StatusCode::CONFLICT,
            "This video is not waiting for a recording.".into(),
        ));
    }
    let path = staging(&state, id);
    let size = match save_body(&path, body, state.settings.max_video_bytes, "recording").await {
        Ok(n) => n,
        Err(e) => {
            let _ = tokio::fs::remove_file(&path).await;
            return Err(e);
        }
    };
    if size == 0 {
        let _ = tokio::fs::remove_file(&path).await;
        return Err(ApiError::field("file", "The recording is empty."));
    }
    if !videos::recording_arrived(&state.db, id, size).await? {
        let _ = tokio::fs::remove_file(&path).await;
        return Err(ApiError::Status(
            StatusCode::CONFLICT,
            "This video is not waiting for a recording.".into(),
        ));
    }
    let r = finish(&state, &row, &path).await;
    let _ = tokio::fs::remove_file(&path).await;
    match r {
        Ok(()) => {}
        Err(media::ReadError::NotVideo(why)) => {
            let message = format!("The device's recording is not a usable video: {why}");
            videos::fail_recording(&state.db, Some(id), None, &message).await?;
            return Err(ApiError::field("file", message));
        }
        // The device may send it again.
        Err(media::ReadError::Failed(e)) => return Err(ApiError::Internal(e)),
    }
    let row = videos::get(&state.db, org, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(axum::Json(
        one_with_tags(&state, Viewer::Device, row).await?,
    ))
}

/// Streams a device's `body` (its `what`: a recording, a clip) into the staging file
/// `path` (durably), at most `limit` bytes; answers its size.
pub(crate) async fn save_body(
    path: &std::path::Path,
    body: Body,
    limit: i64,
    what: &str,
) -> ApiResult<i64> {
    use futures_util::StreamExt;
    let internal = |e: std::io::Error| {
        ApiError::Internal(anyhow::Error::new(e).context(format!("staging a {what}")))
    };
    if let Some(dir) = path.parent() {
        tokio::fs::create_dir_all(dir).await.map_err(internal)?;
    }
    let mut f = tokio::fs::File::create(path).await.map_err(internal)?;
    let mut size: i64 = 0;
    let mut stream = body.into_data_stream();
    while let Some(chunk) = stream.next().await {
        let chunk =
            chunk.map_err(|_| ApiError::non_field("The request body could not be read."))?;
        size += chunk.len() as i64;
        if size > limit {
            return Err(ApiError::Status(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "The {what} is larger than the {} MiB it may be.",
                    limit / (1024 * 1024)
                ),
            ));
        }
        f.write_all(&chunk).await.map_err(internal)?;
    }
    f.sync_data().await.map_err(internal)?;
    Ok(size)
}

#[cfg(test)]
mod tests {
    #[test]
    fn stamps_are_utc_times() {
        assert_eq!(super::stamp(0), "1970-01-01 00:00:00");
        assert_eq!(super::stamp(1_795_525_509_000), "2026-11-24 13:05:09");
    }
}
