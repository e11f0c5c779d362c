//! Files (spec section 7 "Generic, files and others"): an organisation's files in its
//! buckets of the object store (`gemba_shared::api::v1::files`; docs/decisions.md
//! "Files: buckets are per-organisation folders"):
//! - `POST generic/file_upload/` (multipart: `bucket_name`, `object_path`, then
//!   `file`), `generic/file_read/`, `generic/file_delete/`;
//! - `POST generic/generate_new_url/` and `generic/generate_presigned_post/`: a URL, or
//!   a form, that uploads one file without the cloud's sign-in; then
//!   `generic/verify_generate_new_url/` says which arrived;
//! - `POST generic/get_bucket_folder_zip/` (the folder's files in one zip) and
//!   `generic/get_bucket_folder_presigned_url/` (a read URL for each).
//!
//! Reading needs `Permission::ViewTasks`, writing `Permission::ManageTasks` (files
//! serve operations' screens: SOP documents, images). Every key is the caller's
//! organisation's (`org/{org}/files/{bucket}/{path}`), whatever the names say.
//!
//! URLs: on S3, S3's presigned ones; on the local folder the cloud's own, signed:
//! `/api/media/{token}` reads, `/api/files/{token}` uploads ([`upload`]).

mod calls;
mod folder;
mod kaizen;
mod upload;

use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use gemba_shared::api::v1::files::{FILE_URL_TTL_SECS, check_bucket_name, check_object_path};
use object_store::ObjectMeta;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::error::{ApiError, ApiResult};
use crate::media::urls::{Viewer, media_url};
use crate::objects;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    // The calls that take a file read it as it comes, bounded by `max_file_bytes`
    // rather than the small body limit of JSON calls.
    let streamed = OpenApiRouter::new()
        .routes(routes!(calls::file_upload))
        .routes(routes!(upload::put_file, upload::post_file))
        .layer(DefaultBodyLimit::disable());
    OpenApiRouter::new()
        .routes(routes!(calls::file_read))
        .routes(routes!(calls::file_delete))
        .routes(routes!(calls::generate_new_url))
        .routes(routes!(calls::generate_presigned_post))
        .routes(routes!(calls::verify_generate_new_url))
        .routes(routes!(folder::get_bucket_folder_zip))
        .routes(routes!(folder::get_bucket_folder_presigned_url))
        .routes(routes!(kaizen::create_kaizen_bucket))
        .merge(streamed)
}

pub const DELETED: &str = "File deleted successfully";
pub const UPLOADED: &str = "File uploaded successfully";

/// A checked bucket name.
fn bucket(name: &str) -> ApiResult<&str> {
    check_bucket_name(name).map_err(|m| ApiError::field("bucket_name", m))?;
    Ok(name)
}

/// A checked object path (`field` names it in a refusal).
fn object_path(path: &str, field: &str) -> ApiResult<String> {
    check_object_path(path, false).map_err(|m| ApiError::field(field, m))
}

/// The name, under the organisation's objects, of `path` in bucket `bucket`.
fn name(bucket: &str, path: &str) -> String {
    format!("files/{bucket}/{path}")
}

/// The store's key of `path` in bucket `bucket` of `org`.
fn key(org: i64, bucket: &str, path: &str) -> object_store::path::Path {
    objects::key(org, &name(bucket, path))
}

/// The object path, in its bucket, of object `meta` listed under `org`'s bucket.
fn path_in_bucket(org: i64, bucket: &str, meta: &ObjectMeta) -> String {
    let prefix = format!("org/{org}/files/{bucket}/");
    let loc = meta.location.as_ref();
    loc.strip_prefix(&prefix).unwrap_or(loc).to_string()
}

fn ttl() -> Duration {
    Duration::from_secs(FILE_URL_TTL_SECS as u64)
}

/// A URL that reads `path` of bucket `bucket` of `org`: S3's presigned URL, or the
/// cloud's media URL for the caller's session.
async fn read_url(
    state: &AppState,
    session: &str,
    org: i64,
    bucket: &str,
    path: &str,
) -> ApiResult<String> {
    if let Some(u) = state
        .objects
        .read_url(&key(org, bucket, path), ttl())
        .await?
    {
        return Ok(u);
    }
    Ok(media_url(
        state,
        Viewer::Session(session),
        org,
        &name(bucket, path),
    )?)
}

/// An object-store error as the API says it: a missing object is not found.
fn store_error(e: object_store::Error) -> ApiError {
    match e {
        object_store::Error::NotFound { .. } => ApiError::NotFound,
        e => ApiError::Internal(e.into()),
    }
}
