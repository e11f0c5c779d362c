//! Cycle clips (issue 7, "a cycle's video clip recorded by the agent around each cycle
//! and uploaded after it"). The cloud's acknowledgement of a device's stored cycles
//! carries a clip URL (`cycles/ack`'s `clip_url`: a token of that acknowledgement alone,
//! naming its cycles, good for `upload_link_secs`); the device then sends each
//! acknowledged cycle's clip whole in one `PUT` to that URL followed by the cycle's id
//! and `?start_ms=` (its first frame on the cycle's clock). The cloud keeps it in the
//! object store (`clips/{cycle}.{mp4|webm}`), and Cycle Trace plays it through a signed
//! media URL (`trace_single_cycle_details`'s `clip`). A cycle keeps its first clip: a
//! link never replaces it (issue 28: a sniffed link must not overwrite clips); it goes
//! with its cycle, and after `clip_days`. The URL and the sweeper are the media
//! service's (`media/clips.rs`); this module takes the upload and answers clips.
//!
//! Refusals, before the body is read: an unknown link 404, an expired one 410
//! 'This upload link has expired.', a cycle the link does not name 403 'This upload
//! link is not for this cycle.', a cycle that has its clip 409 'This clip has already
//! been uploaded.' (the device drops the clip on any of them, and keeps nothing to
//! retry).

use axum::body::Body;
use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::api::v1::telemetry::{CLIP_MAX_BYTES, CycleClip};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::token_hash;
use crate::db::clips::{self, ClipRow};
use crate::db::now_ms;
use crate::db::upload_tokens::{self, Refusal};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{Path, Query};
use crate::http::recording::save_body;
use crate::media::clips as media_clips;
use crate::media::upload::copy_to_store;
use crate::media::urls::{Viewer, media_url};
use crate::media::{self, NotVideo, ReadError};
use crate::objects;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(upload))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct ClipParams {
    /// The clip's first frame on the cycle's clock (unix ms at real time).
    start_ms: Option<String>,
}

/// A device's clip of one of its stored cycles, the whole file (MP4 or WebM) in one
/// request, to the URL its cycles' acknowledgement carried. Answers the clip.
#[utoipa::path(put, path = "/device/clip/{token}/{cycle_id}", tag = "telemetry", security(()),
    params(("token" = String, Path), ("cycle_id" = String, Path), ClipParams),
    request_body(content = Vec<u8>, content_type = "application/octet-stream"),
    responses((status = 200, body = CycleClip), (status = 400),
        (status = 403, description = "The link does not name this cycle"), (status = 404),
        (status = 409, description = "The cycle has its clip"),
        (status = 410, description = "The link has expired"), (status = 413)))]
pub async fn upload(
    State(state): State<AppState>,
    Path((token, cycle)): Path<(String, String)>,
    Query(p): Query<ClipParams>,
    body: Body,
) -> ApiResult<axum::Json<CycleClip>> {
    // A cycle id is a UUID (the key names a file).
    if uuid::Uuid::parse_str(&cycle).is_err() {
        return Err(refuse(body, ApiError::NotFound).await);
    }
    let link = upload_tokens::get(&state.db, &token_hash(&token)).await?;
    let checked = upload_tokens::check(link.as_ref(), upload_tokens::CLIP, &cycle, now_ms());
    let (org, device) = match checked {
        Ok(d) => d,
        Err(r) => return Err(refuse(body, link_refused(r, "cycle", "clip")).await),
    };
    // Only a cycle this device recorded.
    if clips::cycle_device(&state.db, org, &cycle).await? != Some(Some(device)) {
        return Err(refuse(body, ApiError::NotFound).await);
    }
    if clips::get(&state.db, Some(org), &cycle).await?.is_some() {
        let e = link_refused(Refusal::Used, "cycle", "clip");
        return Err(refuse(body, e).await);
    }
    let Some(start_ms) = p
        .start_ms
        .as_deref()
        .and_then(|t| t.trim().parse::<i64>().ok())
    else {
        let e = ApiError::field(
            "start_ms",
            "Say when the clip's first frame was (start_ms).",
        );
        return Err(refuse(body, e).await);
    };
    let path = state
        .settings
        .data
        .join("uploads")
        .join(format!("clip-{}.part", uuid::Uuid::new_v4()));
    let r = keep(&state, org, &cycle, start_ms, &path, body).await;
    let _ = tokio::fs::remove_file(&path).await;
    r.map(axum::Json)
}

async fn keep(
    state: &AppState,
    org: i64,
    cycle: &str,
    start_ms: i64,
    path: &std::path::Path,
    body: Body,
) -> ApiResult<CycleClip> {
    let size = save_body(path, body, CLIP_MAX_BYTES, "clip").await?;
    let not_video = |why: NotVideo| ApiError::field("file", why.to_string());
    let ext = match container(path).await? {
        Some(ext) => ext,
        None => return Err(not_video(NotVideo::Unreadable)),
    };
    let p = path.to_path_buf();
    let info = match tokio::task::spawn_blocking(move || media::probe(&p))
        .await
        .map_err(|e| ApiError::Internal(e.into()))?
    {
        Ok(info) => info,
        Err(ReadError::NotVideo(why)) => return Err(not_video(why)),
        Err(ReadError::Failed(e)) => return Err(ApiError::Internal(e)),
    };
    // The file first, under a key of this upload's own, then the row: a clip is listed
    // only once its file is there (a player never gets a 404), and of two uploads at
    // once the one whose row lands keeps its file; the other deletes its own.
    let tag = &uuid::Uuid::new_v4().simple().to_string()[..8];
    let key = format!("clips/{cycle}-{tag}.{ext}");
    let row = ClipRow {
        cycle_id: cycle.into(),
        organization_id: org,
        object_key: key,
        start_ms,
        duration_ms: info.duration_ms,
        size_bytes: size,
        created_at: now_ms(),
    };
    copy_to_store(state, path, &objects::key(org, &row.object_key))
        .await
        .map_err(ApiError::Internal)?;
    match clips::put_new(&state.db, &row).await {
        Ok(true) => {}
        Ok(false) => {
            media_clips::delete_object(state, org, &row.object_key).await;
            return Err(link_refused(Refusal::Used, "cycle", "clip"));
        }
        Err(e) => {
            media_clips::delete_object(state, org, &row.object_key).await;
            return Err(e.into());
        }
    }
    // The cycle may have been deleted meanwhile: then the clip goes too.
    if clips::cycle_device(&state.db, org, cycle).await?.is_none() {
        clips::remove(&state.db, Some(org), cycle).await?;
        media_clips::delete_object(state, org, &row.object_key).await;
        return Err(ApiError::NotFound);
    }
    to_api(state, Viewer::Device, &row)
}

/// The answer to an upload link refused for `r`: the link names another `subject` (a
/// cycle), or the `what` (a clip, a recording) was uploaded.
pub(crate) fn link_refused(r: Refusal, subject: &str, what: &str) -> ApiError {
    match r {
        Refusal::Unknown => ApiError::NotFound,
        Refusal::Expired => {
            ApiError::Status(StatusCode::GONE, "This upload link has expired.".into())
        }
        Refusal::NotThis => ApiError::Status(
            StatusCode::FORBIDDEN,
            format!("This upload link is not for this {subject}."),
        ),
        Refusal::Used => ApiError::Status(
            StatusCode::CONFLICT,
            format!("This {what} has already been uploaded."),
        ),
    }
}

/// Reads and drops the body of a refused upload (at most a clip's size) before the
/// answer: answered unread, the device would see its connection cut, not the refusal,
/// and try again.
async fn refuse(body: Body, e: ApiError) -> ApiError {
    use futures_util::StreamExt;
    let mut stream = body.into_data_stream();
    let mut read: i64 = 0;
    while let Some(Ok(chunk)) = stream.next().await {
        read += chunk.len() as i64;
        if read > CLIP_MAX_BYTES {
            break;
        }
    }
    e
}

/// `mp4` or `webm` by the file's first bytes; `None` for anything else.
async fn container(path: &std::path::Path) -> ApiResult<Option<&'static str>> {
    use tokio::io::AsyncReadExt;
    let mut head = [0u8; 12];
    let mut f = tokio::fs::File::open(path)
        .await
        .map_err(|e| ApiError::Internal(e.into()))?;
    let mut n = 0;
    while n < head.len() {
        match f.read(&mut head[n..]).await {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) => return Err(ApiError::Internal(e.into())),
        }
    }
    Ok(if n >= 8 && &head[4..8] == b"ftyp" {
        Some("mp4")
    } else if n >= 4 && head[..4] == [0x1a, 0x45, 0xdf, 0xa3] {
        Some("webm")
    } else {
        None
    })
}

/// The API's clip of a stored one.
pub fn to_api(state: &AppState, viewer: Viewer<'_>, c: &ClipRow) -> ApiResult<CycleClip> {
    Ok(CycleClip {
        url: media_url(state, viewer, c.organization_id, &c.object_key)?,
        start_ms: c.start_ms,
        duration_ms: c.duration_ms,
    })
}

/// The clip of cycle `id` (of `org` when given), for its details.
pub async fn of_cycle(
    state: &AppState,
    viewer: Viewer<'_>,
    org: Option<i64>,
    id: &str,
) -> ApiResult<Option<CycleClip>> {
    match clips::get(&state.db, org, id).await? {
        Some(c) => Ok(Some(to_api(state, viewer, &c)?)),
        None => Ok(None),
    }
}

/// Forgets the clip of cycle `id` (of `org` when given) and deletes its file.
pub async fn forget(state: &AppState, org: Option<i64>, id: &str) -> ApiResult<()> {
    if let Some((org, key)) = clips::remove(&state.db, org, id).await? {
        media_clips::delete_object(state, org, &key).await;
    }
    Ok(())
}
