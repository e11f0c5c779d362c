//! The Kaizen assistant's calls (ours; the spec names none: docs/decisions.md "The
//! Kaizen assistant"): `POST organization/assistant/` answers a question in one of the
//! spec's modes ([`ask`]); `organization/assistant/documents/` lists, adds and deletes
//! the organisation's documents it retrieves from ([`documents`]). Asking and listing
//! need `ViewCycles` (the facts are the organisation's cycles); adding and deleting
//! documents `ManageTasks` (those who write the SOPs). Another organisation's document
//! is unknown (404).

mod ask;
mod documents;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(ask::ask))
        .routes(routes!(documents::list, documents::upload))
        .routes(routes!(documents::delete))
}
