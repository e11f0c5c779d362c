//! `GET organization/task/s3_objects/{id}/`: a task's files in the object store
//! (`api::v1::task_objects_store`), found by the records that name them
//! (`db::task_store`) and each looked up in the store (`head`) for its size and when it
//! last changed; one the store does not have is listed with no size. Reading needs
//! `ViewTasks`.

use futures_util::{StreamExt, stream};
use gemba_shared::api::v1::task_objects_store::{MAX_OBJECTS, StoredObject};
use object_store::ObjectStoreExt;

use super::*;
use crate::db::task_store;
use crate::objects;

/// Lookups in the store at once.
const AT_ONCE: usize = 8;

/// The task's stored files, newest first.
#[utoipa::path(get, path = "/organization/task/s3_objects/{id}/", tag = "tasks",
    params(("id" = i64, Path, description = "The task")),
    responses((status = 200, body = Vec<StoredObject>), (status = 403), (status = 404)))]
pub async fn s3_objects(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Vec<StoredObject>>> {
    me.require(Permission::ViewTasks)?;
    let task = find(&state, &me, id).await?;
    let org = task.organization_id;
    let rows = task_store::list(&state.db, org, task.id, MAX_OBJECTS).await?;
    let looked_up: Vec<ApiResult<StoredObject>> = stream::iter(rows)
        .map(|r| {
            let state = state.clone();
            async move {
                let meta = match state.objects.head(&objects::key(org, &r.object_key)).await {
                    Ok(m) => Some(m),
                    Err(object_store::Error::NotFound { .. }) => None,
                    Err(e) => return Err(ApiError::Internal(e.into())),
                };
                Ok(StoredObject {
                    kind: r.kind,
                    record: r.record,
                    name: r.name,
                    key: r.object_key,
                    size_bytes: meta.as_ref().map(|m| m.size as i64),
                    last_modified: meta.map(|m| m.last_modified.timestamp_millis()),
                    created_at: r.created_at,
                })
            }
        })
        .buffered(AT_ONCE)
        .collect()
        .await;
    Ok(axum::Json(looked_up.into_iter().collect::<ApiResult<_>>()?))
}
