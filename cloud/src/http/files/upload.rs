//! Writing a file into the store as it arrives, bounded by `max_file_bytes` (whole, or
//! not at all), and the local folder's upload URLs: `PUT /api/files/{token}` (the
//! body is the file: `generate_new_url/`) and `POST /api/files/{token}` (a form whose
//! field `file` is the file: `generate_presigned_post/`). The token names one object of
//! one organisation and expires (`auth::Keys::sign_upload`); on S3 the same URLs are
//! S3's own and these routes are not handed out.

use std::pin::pin;

use axum::body::Body;
use axum::extract::{FromRequest, Multipart, Request, State};
use axum::http::StatusCode;
use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use gemba_shared::api::v1::Msg;
use object_store::{ObjectStoreExt, WriteMultipart};

use super::UPLOADED;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::Path;
use crate::objects;
use crate::state::AppState;

/// Bytes read past the limit before answering 413, so that the client (which is
/// still sending) reads the answer rather than a reset connection.
const DRAIN_BYTES: u64 = 8 * 1024 * 1024;

/// The 413 of a file over `max` bytes.
pub(super) fn too_large(max: i64) -> ApiError {
    ApiError::Status(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("A file may be at most {max} bytes."),
    )
}

/// Writes the bytes of `chunks` to object `key`: at most `max` of them, else nothing
/// is kept (413); a stream that breaks keeps nothing either (400). The file's size.
pub(super) async fn write_object<E>(
    state: &AppState,
    key: &object_store::path::Path,
    max: i64,
    chunks: impl Stream<Item = Result<Bytes, E>>,
) -> ApiResult<u64> {
    let mut chunks = pin!(chunks);
    let upload = state
        .objects
        .put_multipart(key)
        .await
        .map_err(|e| ApiError::Internal(e.into()))?;
    let mut w = WriteMultipart::new(upload);
    let mut size = 0u64;
    while let Some(chunk) = chunks.next().await {
        let Ok(chunk) = chunk else {
            w.abort().await.ok();
            return Err(ApiError::field("file", "The file could not be read."));
        };
        size += chunk.len() as u64;
        if size > max as u64 {
            w.abort().await.ok();
            let mut seen = size;
            while let Some(Ok(c)) = chunks.next().await {
                seen += c.len() as u64;
                if seen > max as u64 + DRAIN_BYTES {
                    break;
                }
            }
            return Err(too_large(max));
        }
        if let Err(e) = w.wait_for_capacity(4).await {
            return Err(ApiError::Internal(e.into()));
        }
        w.write(&chunk);
    }
    w.finish().await.map_err(|e| ApiError::Internal(e.into()))?;
    Ok(size)
}

/// The form of a multipart request, or a 400 on `file`.
pub(super) async fn form(req: Request, state: &AppState) -> ApiResult<Multipart> {
    Multipart::from_request(req, state)
        .await
        .map_err(|_| ApiError::field("file", "Send the file as multipart/form-data."))
}

fn upload_target(state: &AppState, token: &str) -> ApiResult<object_store::path::Path> {
    let claims = state.keys.verify_upload(token).ok_or(ApiError::NotFound)?;
    Ok(objects::key(claims.org, &claims.key))
}

/// Uploads the file of an upload URL (`generate_new_url/` on the local folder): the
/// body is the file. No sign-in: the URL is the permission, until it expires.
#[utoipa::path(put, path = "/files/{token}", tag = "files", security(()),
    params(("token" = String, Path)),
    request_body(content = Vec<u8>, content_type = "application/octet-stream"),
    responses((status = 201, body = Msg), (status = 400), (status = 404), (status = 413)))]
pub async fn put_file(
    State(state): State<AppState>,
    Path(token): Path<String>,
    body: Body,
) -> ApiResult<(StatusCode, axum::Json<Msg>)> {
    let key = upload_target(&state, &token)?;
    let max = state.settings.max_file_bytes;
    write_object(&state, &key, max, body.into_data_stream()).await?;
    Ok((StatusCode::CREATED, axum::Json(Msg::new(UPLOADED))))
}

/// Uploads the file of a presigned post (`generate_presigned_post/` on the local
/// folder): a form whose field `file` is the file; its other fields are ignored.
#[utoipa::path(post, path = "/files/{token}", tag = "files", security(()),
    params(("token" = String, Path)),
    request_body(content = Vec<u8>, content_type = "multipart/form-data"),
    responses((status = 201, body = Msg), (status = 400), (status = 404), (status = 413)))]
pub async fn post_file(
    State(state): State<AppState>,
    Path(token): Path<String>,
    req: Request,
) -> ApiResult<(StatusCode, axum::Json<Msg>)> {
    let key = upload_target(&state, &token)?;
    let mut form = form(req, &state).await?;
    let max = state.settings.max_file_bytes;
    while let Some(field) = form.next_field().await.map_err(|_| unreadable())? {
        if field.name() == Some("file") {
            write_object(&state, &key, max, field).await?;
            return Ok((StatusCode::CREATED, axum::Json(Msg::new(UPLOADED))));
        }
    }
    Err(ApiError::field("file", "This field is required."))
}

pub(super) fn unreadable() -> ApiError {
    ApiError::field("file", "The form could not be read.")
}
