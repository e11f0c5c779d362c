//! The organisation's documents the assistant retrieves from: a manual or SOP as .docx,
//! .pdf or text (the request's raw body, `?name=` its name), read by the SOP readers
//! (`crate::sop::paragraphs`), cut into passages, full-text indexed and, with the
//! embedding model, embedded (`crate::assistant::retrieve::embed_passages`).

use axum::body::Body;
use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::assistant::{AssistantDocument, DOCUMENT_NAME_MAX};
use serde::Deserialize;

use crate::assistant::{rag, retrieve};
use crate::db::assistant_docs;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Path, Query, drain, read_body};
use crate::sop;
use crate::state::AppState;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct DocumentQuery {
    /// The document's name (1 to 255 characters), e.g. its file name.
    #[serde(default)]
    #[param(max_length = 255)]
    pub name: Option<String>,
}

/// The organisation's documents, newest first.
#[utoipa::path(get, path = "/organization/assistant/documents/", tag = "assistant",
    responses((status = 200, body = Vec<AssistantDocument>), (status = 403)))]
pub async fn list(
    State(state): State<AppState>,
    me: AuthUser,
) -> ApiResult<axum::Json<Vec<AssistantDocument>>> {
    me.require(Permission::ViewCycles)?;
    Ok(axum::Json(
        assistant_docs::list(&state.db, me.org()?).await?,
    ))
}

/// Add a document (.docx, .pdf or text, the raw body; at most 10 MiB): read, cut into
/// passages and indexed.
#[utoipa::path(post, path = "/organization/assistant/documents/", tag = "assistant",
    params(DocumentQuery),
    request_body(content = Vec<u8>, content_type = "application/octet-stream"),
    responses((status = 201, body = AssistantDocument), (status = 400), (status = 403), (status = 413)))]
pub async fn upload(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<DocumentQuery>,
    body: Body,
) -> ApiResult<(StatusCode, axum::Json<AssistantDocument>)> {
    let org = match me.require(Permission::ManageTasks).and_then(|_| me.org()) {
        Ok(org) => org,
        Err(e) => {
            drain(body).await;
            return Err(e);
        }
    };
    let name = q
        .name
        .as_deref()
        .map(str::trim)
        .unwrap_or_default()
        .to_string();
    if name.is_empty() || name.chars().count() > DOCUMENT_NAME_MAX {
        drain(body).await;
        return Err(ApiError::field(
            "name",
            format!("Name the document in 1 to {DOCUMENT_NAME_MAX} characters."),
        ));
    }
    let bytes = read_body(body, sop::MAX_BYTES).await?;
    if bytes.is_empty() {
        return Err(ApiError::field("file", "The file is empty."));
    }
    // PDF and zip reading is CPU work: off the request threads.
    let read = tokio::task::spawn_blocking(move || sop::paragraphs(&bytes))
        .await
        .map_err(|_| ApiError::field("file", "The document could not be read."))?;
    let (paras, source) = read.map_err(|why| ApiError::field("file", why))?;
    let chunks = rag::chunks(&paras);
    if chunks.is_empty() {
        return Err(ApiError::field("file", "The document has no text."));
    }
    // With the embedding model, each passage's embedding is stored with it; without (or
    // when it fails) the document is stored for full-text search and embedded later.
    let embedded = retrieve::embed_passages(&state.semantic, &chunks).await;
    let id = assistant_docs::create(
        &state.db,
        org,
        me.user.id,
        &name,
        source.as_str(),
        &chunks,
        embedded
            .as_ref()
            .map(|(model, vectors)| assistant_docs::Embedded { model, vectors }),
    )
    .await?;
    let doc = assistant_docs::list(&state.db, org)
        .await?
        .into_iter()
        .find(|d| d.id == id)
        .ok_or(ApiError::NotFound)?;
    Ok((StatusCode::CREATED, axum::Json(doc)))
}

/// Delete document `id` and its passages.
#[utoipa::path(delete, path = "/organization/assistant/documents/{id}/", tag = "assistant",
    params(("id" = i64, Path)),
    responses((status = 204), (status = 403), (status = 404)))]
pub async fn delete(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    me.require(Permission::ManageTasks)?;
    if !assistant_docs::delete(&state.db, me.org()?, id).await? {
        return Err(ApiError::NotFound);
    }
    Ok(StatusCode::NO_CONTENT)
}
