//! Annotation images and object boxes (spec section 7 "Annotation, media and depth";
//! docs/decisions.md "Annotation images"), by sub-area: [`images`] (a frame of a
//! task's video taken as an image, the lists, bulk delete, the static image, images
//! by object), [`objects`] (an image's boxes saved, deleted, reverted), [`thumbnail`]
//! (a video's thumbnail from one of its frames), [`merge`] (videos joined into one)
//! and [`depth`]
//! (the depth and projector calls: no depth camera or projector is attached today, and
//! they say so).
//!
//! Tenancy: every call reaches only images and tasks of the organisation the request
//! acts in (404 for another's, as for unknown ids). Reading needs `ViewVideos` (the
//! images are frames of the task's videos); taking, drawing on and deleting images
//! needs `LabelVideos`, as labelling the videos does. The depth and projector calls
//! are the task's: `ViewTasks` to read, `ManageTasks` to change.

mod depth;
mod images;
mod merge;
mod objects;
pub(crate) mod sample;
mod thumbnail;

use gemba_shared::Permission;
use gemba_shared::api::v1::annotation::AnnotationImage;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::annotations::{self as db, ImageRow};
use crate::db::tasks::{self, TaskRow};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::AuthUser;
use crate::media::urls::{Viewer, media_url};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    use depth::*;
    use images::*;
    use objects::*;
    OpenApiRouter::new()
        .routes(routes!(create_image))
        .routes(routes!(image_list))
        .routes(routes!(fetch_all_image_list))
        .routes(routes!(bulk_delete))
        .routes(routes!(get_static_image))
        .routes(routes!(fetch_annotation_ids_object))
        .routes(routes!(save_objects, delete_objects))
        .routes(routes!(revert_object_list))
        .routes(routes!(thumbnail::upload_thumbnail))
        .routes(routes!(merge::merge_video_sequences))
        .routes(routes!(is_3d))
        .routes(routes!(get_depth_frame, post_depth_frame))
        .routes(routes!(zero_depth_pixel))
        .routes(routes!(calculate_plane_object_equation))
        .routes(routes!(reset_plane_objects))
        .routes(routes!(get_overlay_frame))
        .routes(routes!(projector_image_list))
        .routes(routes!(update_projector_region))
        .routes(routes!(copy_projector_media))
}

/// The organisation `me`'s call acts in, once `me` holds `p` (checked first, so that a
/// role without it gets 403 whatever its organisation).
fn org_for(me: &AuthUser, p: Permission) -> ApiResult<i64> {
    me.require(p)?;
    me.org()
}

/// Task `id` of `org`, not deleted (404 otherwise).
async fn task_in(state: &AppState, me: &AuthUser, org: i64, id: i64) -> ApiResult<TaskRow> {
    match tasks::get(&state.db, me.user.id, Some(org), id).await? {
        Some(t) if !t.settings().is_deleted => Ok(t),
        _ => Err(ApiError::NotFound),
    }
}

/// Image `id` of `org` (404 otherwise).
async fn image_in(state: &AppState, org: i64, id: i64) -> ApiResult<ImageRow> {
    db::get(&state.db, org, id).await?.ok_or(ApiError::NotFound)
}

/// The API's images of `rows`, each with its boxes and a signed URL of its JPEG.
async fn to_api(
    state: &AppState,
    me: &AuthUser,
    rows: Vec<ImageRow>,
) -> ApiResult<Vec<AnnotationImage>> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let mut objects = db::objects_of(&state.db, &ids).await?;
    rows.into_iter()
        .map(|r| {
            let (mine, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut objects)
                .into_iter()
                .partition(|(i, _)| *i == r.id);
            objects = rest;
            Ok(AnnotationImage {
                id: r.id,
                task: r.task_id,
                video: r.video_id,
                frame_ms: r.frame_ms,
                width: r.width,
                height: r.height,
                image_url: media_url(
                    state,
                    Viewer::Session(&me.session),
                    r.organization_id,
                    &r.object_key,
                )?,
                objects: mine.into_iter().map(|(_, o)| o).collect(),
                can_revert: r.previous_objects.is_some(),
                created_at: r.created_at,
                updated_at: r.updated_at,
            })
        })
        .collect()
}

async fn one(state: &AppState, me: &AuthUser, row: ImageRow) -> ApiResult<AnnotationImage> {
    Ok(to_api(state, me, vec![row]).await?.remove(0))
}
