//! `POST organization/create_kaizen_bucket`: makes the request's organisation's
//! `kaizen` bucket (`org/{org}/files/kaizen/`) exist in the object store, local folder
//! or S3 alike, by its marker object; 201 when made, 200 when it was there. Writing
//! files needs `ManageTasks`, so this does too.

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::kaizen::{BUCKET_MARKER, KAIZEN_BUCKET, KaizenBucket};
use object_store::{ObjectStoreExt, PutPayload};

use super::{key, store_error};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::AuthUser;
use crate::state::AppState;

/// Makes the organisation's kaizen bucket.
#[utoipa::path(post, path = "/organization/create_kaizen_bucket", tag = "files",
    responses((status = 201, body = KaizenBucket), (status = 200, body = KaizenBucket),
        (status = 403)))]
pub async fn create_kaizen_bucket(
    State(state): State<AppState>,
    me: AuthUser,
) -> ApiResult<(StatusCode, axum::Json<KaizenBucket>)> {
    me.require(Permission::ManageTasks)?;
    let org = me.org()?;
    let marker = key(org, KAIZEN_BUCKET, BUCKET_MARKER);
    let created = match state.objects.head(&marker).await {
        Ok(_) => false,
        Err(object_store::Error::NotFound { .. }) => {
            state
                .objects
                .put(&marker, PutPayload::from_static(b"kaizen"))
                .await
                .map_err(|e| ApiError::Internal(e.into()))?;
            true
        }
        Err(e) => return Err(store_error(e)),
    };
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((
        status,
        axum::Json(KaizenBucket {
            bucket_name: KAIZEN_BUCKET.into(),
            created,
        }),
    ))
}
