//! `/api/media/{token}`: a media object through its signed URL (made by
//! `crate::media::urls`), with HTTP ranges for seeking.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use object_store::{GetOptions, GetRange, ObjectStoreExt};

use crate::db::{now_ms, tokens};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::Path;
use crate::media::urls::MEDIA_URL_STEP_SECS;
use crate::objects;
use crate::state::AppState;

fn content_type(key: &str) -> &'static str {
    match key.rsplit_once('.').map(|(_, e)| e) {
        Some("jpg") => "image/jpeg",
        Some("mp4" | "m4v") => "video/mp4",
        Some("webm") => "video/webm",
        Some("mkv") => "video/x-matroska",
        Some("mov") => "video/quicktime",
        Some("avi") => "video/x-msvideo",
        _ => "application/octet-stream",
    }
}

/// A media object through its signed URL (from a video's `url` or `thumbnail_url`),
/// with HTTP ranges for seeking. No sign-in: the URL is the permission, for its hours,
/// and a portal's URL only while the session it was made in is open.
#[utoipa::path(get, path = "/media/{token}", tag = "videos", security(()),
    params(("token" = String, Path), ("Range" = Option<String>, Header)),
    responses((status = 200), (status = 206), (status = 404), (status = 416)))]
pub async fn media(
    State(state): State<AppState>,
    Path(token): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let claims = state.keys.verify_media(&token).ok_or(ApiError::NotFound)?;
    if let Some(sid) = &claims.sid {
        let open = match crate::db::service_tokens::session_open(&state.db, sid).await? {
            Some(open) => open,
            None => tokens::session(&state.db, sid)
                .await?
                .is_some_and(|s| !s.revoked && s.expires_at > now_ms()),
        };
        if !open {
            return Err(ApiError::NotFound);
        }
    }
    let key = objects::key(claims.org, &claims.key);
    let meta = state.objects.head(&key).await.map_err(|e| match e {
        object_store::Error::NotFound { .. } => ApiError::NotFound,
        e => ApiError::Internal(e.into()),
    })?;
    let size = meta.size;
    let range = match headers.get(header::RANGE).and_then(|v| v.to_str().ok()) {
        None => None,
        Some(r) => {
            let ranges = http_range_header::parse_range_header(r)
                .and_then(|p| p.validate(size))
                .map_err(|_| {
                    ApiError::Status(
                        StatusCode::RANGE_NOT_SATISFIABLE,
                        format!("The range is outside the file's {size} bytes."),
                    )
                })?;
            // One range at a time (what players ask for).
            ranges.into_iter().next()
        }
    };
    let opts = GetOptions {
        range: range
            .clone()
            .map(|r| GetRange::Bounded(*r.start()..*r.end() + 1)),
        ..Default::default()
    };
    let got = state
        .objects
        .get_opts(&key, opts)
        .await
        .map_err(|e| ApiError::Internal(e.into()))?;
    let mut resp = Response::new(Body::from_stream(got.into_stream()));
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(content_type(&claims.key)),
    );
    h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    // Kept as long as its URL stays the same (see `media::urls`).
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_str(&format!("private, max-age={MEDIA_URL_STEP_SECS}")).expect("ascii"),
    );
    match range {
        Some(r) => {
            *resp.status_mut() = StatusCode::PARTIAL_CONTENT;
            let h = resp.headers_mut();
            h.insert(
                header::CONTENT_RANGE,
                HeaderValue::from_str(&format!("bytes {}-{}/{size}", r.start(), r.end()))
                    .expect("ascii"),
            );
            h.insert(header::CONTENT_LENGTH, (r.end() - r.start() + 1).into());
        }
        None => {
            resp.headers_mut()
                .insert(header::CONTENT_LENGTH, size.into());
        }
    }
    Ok(resp)
}
