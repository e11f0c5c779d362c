//! The file calls: upload, read and delete one file; a URL or a form that uploads
//! one, and the check of what arrived.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use gemba_shared::Permission;
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::files::{
    FILE_URL_TTL_SECS, FileRef, MAX_VERIFY_FILES, NewUrl, NewUrlRequest, PresignedPost, StoredFile,
    VerifiedFile, VerifyRequest, check_object_path, join,
};
use gemba_shared::validate::Bounded;
use object_store::ObjectStoreExt;

use super::upload::{form, unreadable, write_object};
use super::{DELETED, bucket, key, name, object_path, read_url, store_error, ttl};
use crate::db::now_ms;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json};
use crate::state::AppState;

/// Uploads a file: a `multipart/form-data` body with `bucket_name` and `object_path`
/// first, then `file` (last, as S3's forms have it). An object already at the path is
/// replaced; a file over `max_file_bytes` is refused (413) and nothing is kept.
#[utoipa::path(post, path = "/generic/file_upload/", tag = "files",
    request_body(content = Vec<u8>, content_type = "multipart/form-data",
        description = "fields bucket_name, object_path, then file"),
    responses((status = 201, body = StoredFile), (status = 400), (status = 403), (status = 413)))]
pub async fn file_upload(
    State(state): State<AppState>,
    me: AuthUser,
    req: Request,
) -> ApiResult<(StatusCode, axum::Json<StoredFile>)> {
    me.require(Permission::ManageTasks)?;
    let org = me.org()?;
    let mut form = form(req, &state).await?;
    let (mut bucket_name, mut path) = (None, None);
    while let Some(field) = form.next_field().await.map_err(|_| unreadable())? {
        match field.name() {
            Some("bucket_name") => {
                let v = field.text().await.map_err(|_| unreadable())?;
                bucket(&v)?;
                bucket_name = Some(v);
            }
            Some("object_path") => {
                let v = field.text().await.map_err(|_| unreadable())?;
                path = Some(object_path(&v, "object_path")?);
            }
            Some("file") => {
                let b = bucket_name
                    .ok_or_else(|| ApiError::field("bucket_name", "This field is required."))?;
                let p =
                    path.ok_or_else(|| ApiError::field("object_path", "This field is required."))?;
                let max = state.settings.max_file_bytes;
                let size = write_object(&state, &key(org, &b, &p), max, field).await?;
                let url = read_url(&state, &me.session, org, &b, &p).await?;
                return Ok((
                    StatusCode::CREATED,
                    axum::Json(StoredFile {
                        bucket_name: b,
                        object_path: p,
                        size,
                        url,
                    }),
                ));
            }
            _ => {}
        }
    }
    Err(ApiError::field("file", "This field is required."))
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()) {
        Some(e) => match e.as_str() {
            "png" => "image/png",
            "jpg" | "jpeg" => "image/jpeg",
            "pdf" => "application/pdf",
            "txt" => "text/plain; charset=utf-8",
            "json" => "application/json",
            "mp4" => "video/mp4",
            "zip" => "application/zip",
            _ => "application/octet-stream",
        },
        None => "application/octet-stream",
    }
}

/// A file's bytes (404 when there is none).
#[utoipa::path(post, path = "/generic/file_read/", tag = "files", request_body = FileRef,
    responses((status = 200, content_type = "application/octet-stream"), (status = 400),
        (status = 403), (status = 404)))]
pub async fn file_read(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<FileRef>,
) -> ApiResult<Response> {
    req.check_lengths()?;
    me.require(Permission::ViewTasks)?;
    let org = me.org()?;
    let b = bucket(&req.bucket_name)?;
    let p = object_path(&req.object_path, "object_path")?;
    let got = state
        .objects
        .get(&key(org, b, &p))
        .await
        .map_err(store_error)?;
    let size = got.meta.size;
    let mut resp = Response::new(Body::from_stream(got.into_stream()));
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(content_type(&p)),
    );
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(size));
    Ok(resp)
}

/// Deletes a file (404 when there is none).
#[utoipa::path(post, path = "/generic/file_delete/", tag = "files", request_body = FileRef,
    responses((status = 200, body = Msg), (status = 400), (status = 403), (status = 404)))]
pub async fn file_delete(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<FileRef>,
) -> ApiResult<axum::Json<Msg>> {
    req.check_lengths()?;
    me.require(Permission::ManageTasks)?;
    let org = me.org()?;
    let b = bucket(&req.bucket_name)?;
    let p = object_path(&req.object_path, "object_path")?;
    let k = key(org, b, &p);
    state.objects.head(&k).await.map_err(store_error)?;
    state.objects.delete(&k).await.map_err(store_error)?;
    Ok(axum::Json(Msg::new(DELETED)))
}

/// The checked object path of file `file` in folder `object_path` of the request.
fn new_path(req: &NewUrlRequest) -> ApiResult<String> {
    bucket(&req.bucket_name)?;
    // An empty folder is the bucket's top.
    check_object_path(&req.object_path, true).map_err(|m| ApiError::field("object_path", m))?;
    if req.file.is_empty() {
        return Err(ApiError::field("file", "This field is required."));
    }
    join(&req.object_path, &req.file).map_err(|m| ApiError::field("file", m))
}

/// A URL that uploads file `file` to folder `object_path` of a bucket: send its bytes
/// as the body of a `PUT` within [`FILE_URL_TTL_SECS`]. Then
/// `verify_generate_new_url/` says whether it arrived.
#[utoipa::path(post, path = "/generic/generate_new_url/", tag = "files",
    request_body = NewUrlRequest,
    responses((status = 200, body = NewUrl), (status = 400), (status = 403)))]
pub async fn generate_new_url(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<NewUrlRequest>,
) -> ApiResult<axum::Json<NewUrl>> {
    req.check_lengths()?;
    me.require(Permission::ManageTasks)?;
    let org = me.org()?;
    let p = new_path(&req)?;
    let expires_at = now_ms() / 1000 + FILE_URL_TTL_SECS;
    let k = key(org, &req.bucket_name, &p);
    let url = match state.objects.upload_url(&k, ttl()).await? {
        Some(u) => u,
        None => {
            let token = state
                .keys
                .sign_upload(org, &name(&req.bucket_name, &p), expires_at)?;
            format!("/api/files/{token}")
        }
    };
    Ok(axum::Json(NewUrl {
        url,
        method: "PUT".into(),
        object_path: p,
        expires_at,
    }))
}

/// A form that uploads file `file` to folder `object_path` of a bucket: POST
/// `multipart/form-data` to `url` with every one of `fields`, then the file as
/// `file`, within [`FILE_URL_TTL_SECS`]; a file over `max_bytes` is refused.
#[utoipa::path(post, path = "/generic/generate_presigned_post/", tag = "files",
    request_body = NewUrlRequest,
    responses((status = 200, body = PresignedPost), (status = 400), (status = 403)))]
pub async fn generate_presigned_post(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<NewUrlRequest>,
) -> ApiResult<axum::Json<PresignedPost>> {
    req.check_lengths()?;
    me.require(Permission::ManageTasks)?;
    let org = me.org()?;
    let p = new_path(&req)?;
    let now = now_ms() / 1000;
    let expires_at = now + FILE_URL_TTL_SECS;
    let max_bytes = state.settings.max_file_bytes;
    let k = key(org, &req.bucket_name, &p);
    let (url, fields) = match state
        .objects
        .presigned_post(&k, now, expires_at, max_bytes)
        .await?
    {
        Some(f) => (f.url, f.fields),
        None => {
            let token = state
                .keys
                .sign_upload(org, &name(&req.bucket_name, &p), expires_at)?;
            (format!("/api/files/{token}"), Default::default())
        }
    };
    Ok(axum::Json(PresignedPost {
        url,
        fields,
        object_path: p,
        expires_at,
        max_bytes,
    }))
}

/// Which of `files` (object paths of a bucket) were uploaded, with their sizes. A file
/// over `max_file_bytes` (an S3 upload URL cannot bound its size) is deleted and
/// counts as not uploaded.
#[utoipa::path(post, path = "/generic/verify_generate_new_url/", tag = "files",
    request_body = VerifyRequest,
    responses((status = 200, body = Vec<VerifiedFile>), (status = 400), (status = 403)))]
pub async fn verify_generate_new_url(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<VerifyRequest>,
) -> ApiResult<axum::Json<Vec<VerifiedFile>>> {
    req.check_lengths()?;
    me.require(Permission::ViewTasks)?;
    let org = me.org()?;
    let b = bucket(&req.bucket_name)?;
    if req.files.is_empty() || req.files.len() > MAX_VERIFY_FILES {
        return Err(ApiError::field(
            "files",
            format!("Name 1 to {MAX_VERIFY_FILES} files."),
        ));
    }
    let paths = req
        .files
        .iter()
        .map(|f| object_path(f, "files"))
        .collect::<ApiResult<Vec<_>>>()?;
    let mut out = Vec::with_capacity(paths.len());
    for p in paths {
        let k = key(org, b, &p);
        let size = match state.objects.head(&k).await {
            Ok(m) if m.size > state.settings.max_file_bytes as u64 => {
                if me.role.can(Permission::ManageTasks) {
                    state.objects.delete(&k).await.map_err(store_error)?;
                }
                None
            }
            Ok(m) => Some(m.size),
            Err(object_store::Error::NotFound { .. }) => None,
            Err(e) => return Err(ApiError::Internal(e.into())),
        };
        out.push(VerifiedFile {
            object_path: p,
            uploaded: size.is_some(),
            size,
        });
    }
    Ok(axum::Json(out))
}
