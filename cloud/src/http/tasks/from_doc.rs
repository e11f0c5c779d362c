//! `POST organization/task/extract_task_from_doc/`: a standard operating procedure
//! (.docx, .pdf or text, the request's raw body; `?name=` its file name) read as a draft
//! operation ([`crate::sop`]). Nothing is stored; the portal opens the draft in the
//! editor and the user saves it with `POST organization/task/` as any new operation.
//! The same permission and subscription as defining one.

use axum::body::Body;

use super::*;
use crate::http::extract::{drain, read_body};
use crate::sop;
use gemba_shared::api::v1::task::TaskFromDocument;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct FromDocQuery {
    /// The document's file name: the operation's name when the document has no title.
    #[serde(default)]
    #[param(max_length = 255)]
    pub name: Option<String>,
}

/// Read an SOP as a draft operation; nothing is saved.
#[utoipa::path(post, path = "/organization/task/extract_task_from_doc/", tag = "tasks",
    params(FromDocQuery),
    request_body(content = Vec<u8>, content_type = "application/octet-stream"),
    responses((status = 200, body = TaskFromDocument), (status = 400), (status = 403), (status = 413)))]
pub async fn extract_task_from_doc(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<FromDocQuery>,
    body: Body,
) -> ApiResult<axum::Json<TaskFromDocument>> {
    let allowed = async {
        me.require(Permission::ManageTasks)?;
        may_change(&state, &me, me.org()?).await
    };
    if let Err(e) = allowed.await {
        drain(body).await;
        return Err(e);
    }
    let name = q.name.unwrap_or_default();
    if name.chars().count() > 255 {
        drain(body).await;
        return Err(ApiError::field(
            "name",
            "Ensure this field has no more than 255 characters.",
        ));
    }
    let bytes = read_body(body, sop::MAX_BYTES).await?;
    if bytes.is_empty() {
        return Err(ApiError::field("file", "The file is empty."));
    }
    // PDF and zip reading is CPU work: off the request threads.
    let read = tokio::task::spawn_blocking(move || sop::read(&bytes, &name))
        .await
        .map_err(|_| ApiError::field("file", "The document could not be read."))?;
    let (draft, source) = read.map_err(|why| ApiError::field("file", why))?;
    Ok(axum::Json(TaskFromDocument {
        task_name: draft.operation.name.clone(),
        task_detail: operation::print(&draft.operation),
        processes: draft.operation.processes,
        source: source.as_str().to_owned(),
        notes: draft.notes,
    }))
}
