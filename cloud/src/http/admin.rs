//! Super-admin views that the spec implies but does not name a path for: the
//! e-mail/SMS outbox (`/api/admin/outbox/`). See docs/decisions.md.

use axum::extract::State;
use gemba_shared::Permission;
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::outbox::{self, OutboxMessage};
use crate::http::error::ApiResult;
use crate::http::extract::{AuthUser, Query};
use crate::state::AppState;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct OutboxQuery {
    /// Only messages to this address or number.
    #[serde(default)]
    pub recipient: Option<String>,
    /// At most this many (default 50, at most 500).
    #[serde(default)]
    pub limit: Option<i64>,
}

/// Super admin: the newest e-mails and SMS the service has sent.
#[utoipa::path(get, path = "/admin/outbox/", tag = "admin", params(OutboxQuery),
    responses((status = 200, body = Vec<OutboxMessage>), (status = 403)))]
pub async fn outbox_list(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<OutboxQuery>,
) -> ApiResult<axum::Json<Vec<OutboxMessage>>> {
    me.require(Permission::ReadOutbox)?;
    let limit = q.limit.unwrap_or(50).clamp(1, 500);
    Ok(axum::Json(
        outbox::list(&state.db, q.recipient.as_deref(), limit).await?,
    ))
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(outbox_list))
}
