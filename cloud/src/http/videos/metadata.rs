//! `POST organization/task_record/extract_video_metadata`: a ready video's stored file
//! read again by the media service ([`crate::media::describe`]): its length, frame
//! rate, size, codec and container. Nothing is changed. Reading needs `ViewVideos`;
//! another organisation's video answers 404.

use axum::extract::State;
use gemba_shared::Permission;
use gemba_shared::api::v1::video_metadata::{ExtractVideoMetadata, NOT_READY, VideoMetadata};
use object_store::ObjectStoreExt;

use crate::db::videos;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json};
use crate::http::videos::{find, org_for};
use crate::media::{ReadError, describe};
use crate::objects;
use crate::state::AppState;

/// Copies object `key` into the file `path`, streaming.
async fn fetch(
    state: &AppState,
    key: &object_store::path::Path,
    path: &std::path::Path,
) -> anyhow::Result<()> {
    use futures_util::StreamExt;
    use tokio::io::AsyncWriteExt;
    let mut stream = state.objects.get(key).await?.into_stream();
    let mut file = tokio::fs::File::create(path).await?;
    while let Some(chunk) = stream.next().await {
        file.write_all(&chunk?).await?;
    }
    file.flush().await?;
    Ok(())
}

/// Reads a video's metadata from its stored file.
#[utoipa::path(post, path = "/organization/task_record/extract_video_metadata", tag = "videos",
    request_body = ExtractVideoMetadata,
    responses((status = 200, body = VideoMetadata), (status = 400), (status = 403), (status = 404)))]
pub async fn extract_video_metadata(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<ExtractVideoMetadata>,
) -> ApiResult<axum::Json<VideoMetadata>> {
    let org = org_for(&me, Permission::ViewVideos)?;
    let v = find(&state, org, req.task_record).await?;
    if v.status != videos::READY {
        return Err(ApiError::field("task_record", NOT_READY));
    }
    let dir = state.settings.data.join("uploads");
    let tmp = dir.join(format!("describe-{}.tmp", uuid::Uuid::new_v4().simple()));
    let read = async {
        tokio::fs::create_dir_all(&dir).await?;
        fetch(
            &state,
            &objects::key(v.organization_id, &v.object_key),
            &tmp,
        )
        .await?;
        let size = tokio::fs::metadata(&tmp).await?.len() as i64;
        let p = tmp.clone();
        let d = tokio::task::spawn_blocking(move || describe::describe(&p)).await?;
        anyhow::Ok((size, d))
    }
    .await;
    let _ = tokio::fs::remove_file(&tmp).await;
    let (size_bytes, d) = read?;
    let d = d.map_err(|e| match e {
        ReadError::NotVideo(why) => ApiError::field("task_record", why.to_string()),
        ReadError::Failed(e) => e.into(),
    })?;
    Ok(axum::Json(VideoMetadata {
        task_record: v.id,
        file_name: v.file_name,
        size_bytes,
        duration_ms: d.info.duration_ms,
        frame_rate: d.info.fps,
        width: d.info.width,
        height: d.info.height,
        codec: d.codec,
        container: d.container,
        has_audio: d.has_audio,
        bitrate: d.bitrate,
    }))
}
