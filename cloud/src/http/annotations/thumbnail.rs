//! `POST organization/task/upload_thumbnail/`: a frame of a ready video, chosen by the
//! user, becomes the video's thumbnail (docs/decisions.md "A video's thumbnail from a
//! frame"). Changing a video: `ManageVideos` and the "Record Training Set" subscription.

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::api::v1::annotation::ThumbnailFrame;
use gemba_shared::api::v1::video::Video;
use object_store::ObjectStoreExt;

use super::images::take_frame;
use crate::db::annotations as db;
use crate::db::videos;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json};
use crate::http::videos::{one_with_tags, org_to_change};
use crate::media::urls::Viewer;
use crate::objects;
use crate::state::AppState;

/// Thumbnail width in pixels, as an upload's.
const THUMBNAIL_WIDTH: u32 = 320;

/// Makes the frame of a ready video at `frame_ms` its thumbnail; answers the video.
#[utoipa::path(post, path = "/organization/task/upload_thumbnail/", tag = "annotations",
    request_body = ThumbnailFrame,
    responses((status = 200, body = Video), (status = 400), (status = 403), (status = 404),
        (status = 409, description = "The video is still uploading")))]
pub async fn upload_thumbnail(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<ThumbnailFrame>,
) -> ApiResult<axum::Json<Video>> {
    let org = org_to_change(&state, &me).await?;
    let v = videos::get(&state.db, org, req.video)
        .await?
        .ok_or(ApiError::NotFound)?;
    if v.status != videos::READY {
        return Err(ApiError::Status(
            StatusCode::CONFLICT,
            "The video is still uploading; choose its thumbnail once it is ready.".into(),
        ));
    }
    let duration = v.duration_ms.unwrap_or(0);
    if req.frame_ms < 0 || req.frame_ms >= duration {
        return Err(ApiError::field(
            "frame_ms",
            format!(
                "A frame is taken within the video: 0 to {} ms.",
                duration - 1
            ),
        ));
    }
    let frame = take_frame(&state, &v, req.frame_ms, Some(THUMBNAIL_WIDTH)).await?;
    // A new key each time: a media URL is the same for a key within its hour, and the
    // browser would keep showing the old picture.
    let key = format!(
        "videos/{}/thumbnail-{}.jpg",
        v.id,
        uuid::Uuid::new_v4().simple()
    );
    state
        .objects
        .put(&objects::key(org, &key), frame.jpeg.into())
        .await
        .map_err(|e| ApiError::Internal(e.into()))?;
    let Some(old) = db::set_thumbnail(&state.db, org, v.id, &key).await? else {
        // Deleted meanwhile.
        let _ = state.objects.delete(&objects::key(org, &key)).await;
        return Err(ApiError::NotFound);
    };
    if let Some(old) = old
        && let Err(e) = state.objects.delete(&objects::key(org, &old)).await
        && !matches!(e, object_store::Error::NotFound { .. })
    {
        tracing::warn!(video = v.id, error = %e, "deleting a replaced thumbnail");
    }
    let v = videos::get(&state.db, org, v.id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(axum::Json(
        one_with_tags(&state, Viewer::Session(&me.session), v).await?,
    ))
}
