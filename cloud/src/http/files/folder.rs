//! A bucket's folder: its files in one zip, or a read URL for each.

use std::io::Write;

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use futures_util::StreamExt;
use gemba_shared::Permission;
use gemba_shared::api::v1::files::{
    FileUrl, FolderRequest, MAX_FOLDER_OBJECTS, MAX_FOLDER_ZIP_BYTES, check_object_path,
};
use gemba_shared::api::v1::kaizen::BUCKET_MARKER;
use gemba_shared::validate::Bounded;
use object_store::{ObjectMeta, ObjectStoreExt};

use super::{bucket, path_in_bucket, read_url, store_error};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json};
use crate::objects;
use crate::state::AppState;

/// The objects under folder `folder` of bucket `bucket` of `org` (every one below it,
/// by path), at most [`MAX_FOLDER_OBJECTS`] (else a 400); none is a 404.
async fn listing(
    state: &AppState,
    org: i64,
    bucket: &str,
    folder: &str,
) -> ApiResult<Vec<ObjectMeta>> {
    let prefix = if folder.is_empty() {
        format!("files/{bucket}")
    } else {
        format!("files/{bucket}/{folder}")
    };
    let prefix = objects::key(org, &prefix);
    let marker = super::key(org, bucket, BUCKET_MARKER);
    let mut list = state.objects.list(Some(&prefix));
    let mut out = Vec::new();
    while let Some(m) = list.next().await {
        let m = match m {
            Ok(m) => m,
            Err(object_store::Error::NotFound { .. }) => break,
            Err(e) => return Err(ApiError::Internal(e.into())),
        };
        if m.location == marker {
            continue;
        }
        if out.len() == MAX_FOLDER_OBJECTS {
            return Err(ApiError::field(
                "folder",
                format!("This folder has more than {MAX_FOLDER_OBJECTS} files."),
            ));
        }
        out.push(m);
    }
    if out.is_empty() {
        return Err(ApiError::Status(
            axum::http::StatusCode::NOT_FOUND,
            "There are no files in this folder.".into(),
        ));
    }
    out.sort_by(|a, b| a.location.cmp(&b.location));
    Ok(out)
}

fn checked(req: &FolderRequest) -> ApiResult<String> {
    bucket(&req.bucket_name)?;
    check_object_path(&req.folder, true).map_err(|m| ApiError::field("folder", m))
}

/// The files of a folder (all below it) in one zip, named by their paths under the
/// folder; at most [`MAX_FOLDER_OBJECTS`] files of [`MAX_FOLDER_ZIP_BYTES`] together.
#[utoipa::path(post, path = "/generic/get_bucket_folder_zip/", tag = "files",
    request_body = FolderRequest,
    responses((status = 200, content_type = "application/zip"), (status = 400),
        (status = 403), (status = 404)))]
pub async fn get_bucket_folder_zip(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<FolderRequest>,
) -> ApiResult<Response> {
    req.check_lengths()?;
    me.require(Permission::ViewTasks)?;
    let org = me.org()?;
    let folder = checked(&req)?;
    let metas = listing(&state, org, &req.bucket_name, &folder).await?;
    let total: u64 = metas.iter().map(|m| m.size).sum();
    if total > MAX_FOLDER_ZIP_BYTES {
        return Err(ApiError::field(
            "folder",
            format!("This folder's files are over {MAX_FOLDER_ZIP_BYTES} bytes together."),
        ));
    }
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::with_capacity(total as usize)));
    // Media compresses no further: stored as they are.
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(false);
    for m in &metas {
        let path = path_in_bucket(org, &req.bucket_name, m);
        let entry = match folder.is_empty() {
            true => path.as_str(),
            false => path
                .strip_prefix(&format!("{folder}/"))
                .unwrap_or(path.as_str()),
        };
        let bytes = state
            .objects
            .get(&m.location)
            .await
            .map_err(store_error)?
            .bytes()
            .await
            .map_err(store_error)?;
        zip.start_file(entry, opts)
            .and_then(|()| zip.write_all(&bytes).map_err(Into::into))
            .map_err(|e| ApiError::Internal(anyhow::Error::from(e).context("writing a zip")))?;
    }
    let bytes = zip
        .finish()
        .map_err(|e| ApiError::Internal(anyhow::Error::from(e).context("writing a zip")))?
        .into_inner();
    let name = folder.rsplit('/').next().filter(|n| !n.is_empty());
    let name = name.unwrap_or(&req.bucket_name);
    let mut resp = Response::new(axum::body::Body::from(bytes));
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/zip"),
    );
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{name}.zip\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    Ok(resp)
}

/// A read URL for each file of a folder (all below it), by path.
#[utoipa::path(post, path = "/generic/get_bucket_folder_presigned_url/", tag = "files",
    request_body = FolderRequest,
    responses((status = 200, body = Vec<FileUrl>), (status = 400), (status = 403),
        (status = 404)))]
pub async fn get_bucket_folder_presigned_url(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<FolderRequest>,
) -> ApiResult<axum::Json<Vec<FileUrl>>> {
    req.check_lengths()?;
    me.require(Permission::ViewTasks)?;
    let org = me.org()?;
    let folder = checked(&req)?;
    let metas = listing(&state, org, &req.bucket_name, &folder).await?;
    let mut out = Vec::with_capacity(metas.len());
    for m in metas {
        let object_path = path_in_bucket(org, &req.bucket_name, &m);
        let url = read_url(&state, &me.session, org, &req.bucket_name, &object_path).await?;
        out.push(FileUrl {
            object_path,
            size: m.size,
            url,
        });
    }
    Ok(axum::Json(out))
}
