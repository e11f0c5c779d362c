//! Annotation images: a frame of a task's video taken as an image, the two lists
//! (paged, and all at once with a filter), bulk delete, the task's static image, and
//! the images with a box of one task object.

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::annotation::{
    AnnotationBulkDelete, AnnotationIds, AnnotationIdsQuery, AnnotationImage,
    AnnotationImageCreate, AnnotationTask, ImageFilter, ImageOrdering, MAX_IMAGES_PER_TASK,
    MAX_PAGE_SIZE, check_ids,
};
use gemba_shared::api::v1::{Msg, PAGE_SIZE, Page};
use object_store::ObjectStoreExt;
use serde::Deserialize;

use super::{image_in, one, org_for, task_in, to_api};
use crate::db::annotations::{self as db, NewImage};
use crate::db::videos;
use crate::http::error::{ApiError, ApiResult, is_unique_violation};
use crate::http::extract::{AuthUser, Json, Path, Query};
use crate::media::frames;
use crate::objects;
use crate::state::AppState;

/// Copies object `key` into the file `path`, streaming.
pub(super) async fn fetch_object(
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

/// The frame of video `v` at `at_ms`, read from its stored file, at the video's size or
/// `width` pixels wide.
pub(super) async fn take_frame(
    state: &AppState,
    v: &videos::VideoRow,
    at_ms: i64,
    width: Option<u32>,
) -> anyhow::Result<frames::Frame> {
    let dir = state.settings.data.join("uploads");
    tokio::fs::create_dir_all(&dir).await?;
    let tmp = dir.join(format!("frame-{}.tmp", uuid::Uuid::new_v4().simple()));
    let got = async {
        fetch_object(state, &objects::key(v.organization_id, &v.object_key), &tmp).await?;
        let p = tmp.clone();
        tokio::task::spawn_blocking(move || frames::frame_at(&p, at_ms as u64, width)).await?
    }
    .await;
    let _ = tokio::fs::remove_file(&tmp).await;
    got
}

/// Takes the frame of a ready video of the organisation at `frame_ms` as an image of
/// the video's task (201). A frame already taken answers its image (200).
#[utoipa::path(post, path = "/organization/task/annotation_image/", tag = "annotations",
    request_body = AnnotationImageCreate,
    responses((status = 201, body = AnnotationImage), (status = 200, body = AnnotationImage),
        (status = 400), (status = 403), (status = 404),
        (status = 409, description = "The video is still uploading")))]
pub async fn create_image(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<AnnotationImageCreate>,
) -> ApiResult<(StatusCode, axum::Json<AnnotationImage>)> {
    let org = org_for(&me, Permission::LabelVideos)?;
    let v = videos::get(&state.db, org, req.video)
        .await?
        .ok_or(ApiError::NotFound)?;
    let task = task_in(&state, &me, org, v.task_id).await?;
    if v.status != videos::READY {
        return Err(ApiError::Status(
            StatusCode::CONFLICT,
            "The video is still uploading; take images of it once it is ready.".into(),
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
    if let Some(r) = db::by_frame(&state.db, org, v.id, req.frame_ms).await? {
        return Ok((StatusCode::OK, axum::Json(one(&state, &me, r).await?)));
    }
    if db::count(&state.db, org, task.id).await? >= MAX_IMAGES_PER_TASK {
        return Err(ApiError::non_field(format!(
            "An operation has at most {MAX_IMAGES_PER_TASK} annotation images: delete some first."
        )));
    }
    let frame = take_frame(&state, &v, req.frame_ms, None).await?;
    let key = format!(
        "annotations/{}/{}.jpg",
        task.id,
        uuid::Uuid::new_v4().simple()
    );
    let object = objects::key(org, &key);
    state
        .objects
        .put(&object, frame.jpeg.into())
        .await
        .map_err(|e| ApiError::Internal(e.into()))?;
    let new = NewImage {
        org,
        task: task.id,
        video: v.id,
        frame_ms: req.frame_ms,
        width: frame.width,
        height: frame.height,
        object_key: &key,
        created_by: me.user.id,
    };
    let id = match db::insert(&state.db, &new).await {
        Ok(id) => id,
        Err(e) => {
            let _ = state.objects.delete(&object).await;
            // Taken at the same moment by another call: answer that one.
            if is_unique_violation(&e)
                && let Some(r) = db::by_frame(&state.db, org, v.id, req.frame_ms).await?
            {
                return Ok((StatusCode::OK, axum::Json(one(&state, &me, r).await?)));
            }
            return Err(e.into());
        }
    };
    let row = image_in(&state, org, id).await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(one(&state, &me, row).await?),
    ))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct ImageListQuery {
    /// The page, from 1.
    #[serde(default)]
    pub page: Option<i64>,
    /// Images per page: 1 to 100, 10 when not given.
    #[serde(default)]
    pub page_size: Option<i64>,
    /// `created_at` (the default), `frame_ms`; `-` first for the reverse.
    #[serde(default)]
    pub ordering: Option<String>,
}

fn ordering_of(s: Option<&str>) -> ApiResult<ImageOrdering> {
    ImageOrdering::parse(s).map_err(|m| ApiError::field("ordering", m))
}

/// A page of the task's images, each with its boxes.
#[utoipa::path(get, path = "/organization/task/annotation_image_list/{task}/", tag = "annotations",
    params(("task" = i64, Path), ImageListQuery),
    responses((status = 200, body = Page<AnnotationImage>), (status = 400), (status = 403), (status = 404)))]
pub async fn image_list(
    State(state): State<AppState>,
    me: AuthUser,
    Path(task): Path<i64>,
    Query(q): Query<ImageListQuery>,
) -> ApiResult<axum::Json<Page<AnnotationImage>>> {
    let org = org_for(&me, Permission::ViewVideos)?;
    let ordering = ordering_of(q.ordering.as_deref())?;
    let size = q.page_size.unwrap_or(PAGE_SIZE);
    if !(1..=MAX_PAGE_SIZE).contains(&size) {
        return Err(ApiError::field(
            "page_size",
            format!("A page holds 1 to {MAX_PAGE_SIZE} images."),
        ));
    }
    let page = q.page.unwrap_or(1);
    let offset = (page >= 1)
        .then(|| (page - 1).checked_mul(size))
        .flatten()
        .ok_or_else(|| ApiError::field("page", "Invalid page."))?;
    let t = task_in(&state, &me, org, task).await?;
    let (rows, count) = db::page(
        &state.db,
        org,
        t.id,
        ImageFilter::All,
        ordering,
        offset,
        size,
    )
    .await?;
    Ok(axum::Json(Page {
        results: to_api(&state, &me, rows).await?,
        count,
    }))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct FetchAllQuery {
    /// `all` (the default), `annotated` (with a box), `not_annotated`.
    #[serde(default)]
    pub filter: Option<String>,
    /// `created_at` (the default), `frame_ms`; `-` first for the reverse.
    #[serde(default)]
    pub ordering: Option<String>,
}

/// All of the task's images (those the filter keeps), each with its boxes.
#[utoipa::path(get, path = "/organization/task/fetch_all_annotation_image_list/{task}", tag = "annotations",
    params(("task" = i64, Path), FetchAllQuery),
    responses((status = 200, body = Vec<AnnotationImage>), (status = 400), (status = 403), (status = 404)))]
pub async fn fetch_all_image_list(
    State(state): State<AppState>,
    me: AuthUser,
    Path(task): Path<i64>,
    Query(q): Query<FetchAllQuery>,
) -> ApiResult<axum::Json<Vec<AnnotationImage>>> {
    let org = org_for(&me, Permission::ViewVideos)?;
    let filter =
        ImageFilter::parse(q.filter.as_deref()).map_err(|m| ApiError::field("filter", m))?;
    let ordering = ordering_of(q.ordering.as_deref())?;
    let t = task_in(&state, &me, org, task).await?;
    let (rows, _) = db::page(
        &state.db,
        org,
        t.id,
        filter,
        ordering,
        0,
        MAX_IMAGES_PER_TASK,
    )
    .await?;
    Ok(axum::Json(to_api(&state, &me, rows).await?))
}

/// Deletes images of the task with their boxes and files, all or none.
#[utoipa::path(patch, path = "/organization/annotations/bulk-delete/", tag = "annotations",
    request_body = AnnotationBulkDelete,
    responses((status = 200, body = Msg), (status = 400), (status = 403), (status = 404)))]
pub async fn bulk_delete(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<AnnotationBulkDelete>,
) -> ApiResult<axum::Json<Msg>> {
    let org = org_for(&me, Permission::LabelVideos)?;
    let ids = check_ids(&req.ids).map_err(|m| ApiError::field("ids", m))?;
    let t = task_in(&state, &me, org, req.task).await?;
    let rows = db::delete_images(&state.db, org, t.id, &ids)
        .await?
        .ok_or(ApiError::NotFound)?;
    for r in rows {
        if let Err(e) = state
            .objects
            .delete(&objects::key(org, &r.object_key))
            .await
            && !matches!(e, object_store::Error::NotFound { .. })
        {
            tracing::warn!(image = r.id, error = %e, "deleting an annotation image's file");
        }
    }
    Ok(axum::Json(Msg::new("Data deleted successfully!")))
}

/// The task's static image (the one its static objects are placed on): the image the
/// task names in `annotation_image_id`, else its first.
#[utoipa::path(post, path = "/organization/annotation_image/get_static_image/", tag = "annotations",
    request_body = AnnotationTask,
    responses((status = 200, body = AnnotationImage), (status = 403), (status = 404)))]
pub async fn get_static_image(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<AnnotationTask>,
) -> ApiResult<axum::Json<AnnotationImage>> {
    let org = org_for(&me, Permission::ViewVideos)?;
    let t = task_in(&state, &me, org, req.task).await?;
    let named = match t.settings().annotation_image_id {
        Some(id) => db::get(&state.db, org, id)
            .await?
            .filter(|r| r.task_id == t.id),
        None => None,
    };
    let row = match named {
        Some(r) => r,
        None => {
            let first = ImageOrdering::parse(None).expect("the default ordering");
            db::page(&state.db, org, t.id, ImageFilter::All, first, 0, 1)
                .await?
                .0
                .pop()
                .ok_or_else(|| {
                    ApiError::Status(
                        StatusCode::NOT_FOUND,
                        "This operation has no annotation image yet: take one from its videos."
                            .into(),
                    )
                })?
        }
    };
    Ok(axum::Json(one(&state, &me, row).await?))
}

/// The ids of the task's images with a box of `task_object`.
#[utoipa::path(post, path = "/organization/task/fetch_annotation_ids_object/", tag = "annotations",
    request_body = AnnotationIdsQuery,
    responses((status = 200, body = AnnotationIds), (status = 403), (status = 404)))]
pub async fn fetch_annotation_ids_object(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<AnnotationIdsQuery>,
) -> ApiResult<axum::Json<AnnotationIds>> {
    let org = org_for(&me, Permission::ViewVideos)?;
    let t = task_in(&state, &me, org, req.task).await?;
    match crate::db::task_objects::object(&state.db, req.task_object).await? {
        Some(o) if o.task == t.id => {}
        _ => return Err(ApiError::NotFound),
    }
    Ok(axum::Json(AnnotationIds {
        ids: db::with_object(&state.db, org, t.id, req.task_object).await?,
    }))
}
