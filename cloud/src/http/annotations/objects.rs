//! An image's boxes: saved as a whole list, some deleted, or the list before the last
//! change brought back. Each change keeps the list it replaced, so a revert undoes
//! exactly one change (and a second revert undoes the revert).

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::annotation::{
    AnnotationImage, AnnotationObjectsDelete, AnnotationObjectsPut, MAX_OBJECTS_PER_IMAGE,
    RevertObjectList, check_box, check_ids,
};

use super::{image_in, one, org_for, task_in};
use crate::db::annotations as db;
use crate::db::task_objects;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json};
use crate::state::AppState;

/// Saves an image's boxes, all of them at once: each inside the image, around an
/// object of the image's task.
#[utoipa::path(patch, path = "/organization/task/task_object/update_delete", tag = "annotations",
    request_body = AnnotationObjectsPut,
    responses((status = 200, body = AnnotationImage), (status = 400), (status = 403), (status = 404)))]
pub async fn save_objects(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<AnnotationObjectsPut>,
) -> ApiResult<axum::Json<AnnotationImage>> {
    let org = org_for(&me, Permission::LabelVideos)?;
    if req.objects.len() > MAX_OBJECTS_PER_IMAGE {
        return Err(ApiError::field(
            "objects",
            format!("An image holds at most {MAX_OBJECTS_PER_IMAGE} boxes."),
        ));
    }
    for b in &req.objects {
        check_box(b).map_err(|m| ApiError::field("objects", m))?;
    }
    let img = image_in(&state, org, req.image).await?;
    let t = task_in(&state, &me, org, img.task_id).await?;
    let known: Vec<i64> = task_objects::objects(&state.db, t.id, None)
        .await?
        .iter()
        .map(|o| o.id)
        .collect();
    if let Some(b) = req.objects.iter().find(|b| !known.contains(&b.task_object)) {
        return Err(ApiError::field(
            "objects",
            format!(
                "Object {} is not an object of this operation.",
                b.task_object
            ),
        ));
    }
    db::replace_objects(&state.db, img.id, &req.objects).await?;
    let img = image_in(&state, org, img.id).await?;
    Ok(axum::Json(one(&state, &me, img).await?))
}

/// Deletes boxes of an image (404 when none of them is the image's).
#[utoipa::path(delete, path = "/organization/task/task_object/update_delete", tag = "annotations",
    request_body = AnnotationObjectsDelete,
    responses((status = 200, body = AnnotationImage), (status = 400), (status = 403), (status = 404)))]
pub async fn delete_objects(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<AnnotationObjectsDelete>,
) -> ApiResult<axum::Json<AnnotationImage>> {
    let org = org_for(&me, Permission::LabelVideos)?;
    let ids = check_ids(&req.ids).map_err(|m| ApiError::field("ids", m))?;
    let img = image_in(&state, org, req.image).await?;
    task_in(&state, &me, org, img.task_id).await?;
    if db::delete_objects(&state.db, img.id, &ids).await? == 0 {
        return Err(ApiError::NotFound);
    }
    let img = image_in(&state, org, img.id).await?;
    Ok(axum::Json(one(&state, &me, img).await?))
}

/// Brings back an image's boxes as they were before their last change (those of task
/// objects deleted since left out).
#[utoipa::path(post, path = "/generic/revert_object_list/", tag = "annotations",
    request_body = RevertObjectList,
    responses((status = 200, body = AnnotationImage), (status = 403), (status = 404),
        (status = 409, description = "The boxes have not been changed yet")))]
pub async fn revert_object_list(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<RevertObjectList>,
) -> ApiResult<axum::Json<AnnotationImage>> {
    let org = org_for(&me, Permission::LabelVideos)?;
    let img = image_in(&state, org, req.image).await?;
    let t = task_in(&state, &me, org, img.task_id).await?;
    if !db::revert(&state.db, img.id, t.id).await? {
        return Err(ApiError::Status(
            StatusCode::CONFLICT,
            "The boxes of this image have not been changed yet: there is nothing to revert.".into(),
        ));
    }
    let img = image_in(&state, org, img.id).await?;
    Ok(axum::Json(one(&state, &me, img).await?))
}
