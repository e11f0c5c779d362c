//! The audit log of administrators' changes (issue 28): the middleware that writes it,
//! and `GET /api/organization/audit_log/` that reads it.
//!
//! The middleware ([`record`]) wraps every API route. For a changing call (any method
//! but GET, HEAD, OPTIONS and TRACE) it puts an empty [`Slot`] in the request; the user
//! extractor ([`crate::http::extract::AuthUser`], whichever way a handler takes it)
//! fills it with who the caller is. After the answer, a filled slot of an administering
//! role ([`audited`]) becomes one `audit_log` row with the answer's status. So a new
//! handler cannot forget it: to act as a user it takes the extractor, and the extractor
//! reports to the middleware (docs/decisions.md "The audit log").
//!
//! Invariant: no request body is read or stored; of the route's parameters, those
//! named like a secret (tokens, codes, passwords, keys) are left out ([`target`]).

use std::sync::{Arc, Mutex};

use axum::extract::{MatchedPath, RawPathParams, Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;
use gemba_shared::api::v1::Page;
use gemba_shared::api::v1::organization::AuditEntry;
use gemba_shared::{Permission, Role};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::client_ip::ClientIp;
use super::error::{ApiError, ApiResult};
use super::extract::{AuthUser, Query};
use crate::db::{audit, now_ms, orgs};
use crate::state::AppState;

/// Who made a call, as the user extractor found them.
#[derive(Debug, Clone, PartialEq)]
pub struct Actor {
    pub user_id: i64,
    pub email: String,
    pub role: Role,
    pub org: Option<i64>,
}

/// Where the user extractor reports the caller of a changing call to [`record`].
#[derive(Debug, Clone, Default)]
pub struct Slot(Arc<Mutex<Option<Actor>>>);

impl Slot {
    /// Reports `me` as the caller of the request whose extensions are `ext` (nothing
    /// when the request is not audited).
    pub fn fill(ext: &axum::http::Extensions, me: &AuthUser) {
        if let Some(slot) = ext.get::<Slot>()
            && let Ok(mut s) = slot.0.lock()
        {
            *s = Some(Actor {
                user_id: me.user.id,
                email: me.user.email.clone(),
                role: me.role,
                org: me.org,
            });
        }
    }

    fn take(&self) -> Option<Actor> {
        self.0.lock().ok().and_then(|mut s| s.take())
    }
}

/// Does a call with `method` change something?
pub fn is_change(method: &Method) -> bool {
    !matches!(
        *method,
        Method::GET | Method::HEAD | Method::OPTIONS | Method::TRACE
    )
}

/// Are the changes of `role` audited? Those of every role that administers an
/// organisation's users (the super admin, organisation admins and support users):
/// each can give itself or others any power in the organisation.
pub fn audited(role: Role) -> bool {
    role.can(Permission::ManageOrgUsers)
}

/// The route parameters as stored, `name=value` by a space; a parameter named like a
/// secret keeps its name only.
pub fn target<'a>(params: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    const SECRET: [&str; 6] = ["token", "code", "password", "secret", "key", "otp"];
    params
        .into_iter()
        .map(|(name, value)| {
            let lower = name.to_ascii_lowercase();
            if SECRET.iter().any(|s| lower.contains(s)) {
                format!("{name}=…")
            } else {
                format!("{name}={value}")
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The middleware: see the module header.
pub async fn record(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    params: Result<RawPathParams, axum::extract::rejection::RawPathParamsRejection>,
    mut req: Request,
    next: Next,
) -> Response {
    if !is_change(req.method()) {
        return next.run(req).await;
    }
    let method = req.method().to_string();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_owned());
    let ids = params.map_or_else(|_| String::new(), |p| target(p.iter()));
    let slot = Slot::default();
    req.extensions_mut().insert(slot.clone());
    let resp = next.run(req).await;
    let (Some(actor), Some(route)) = (slot.take(), route) else {
        return resp;
    };
    if !audited(actor.role) {
        return resp;
    }
    let entry = audit::NewEntry {
        at: now_ms(),
        user_id: actor.user_id,
        email: actor.email,
        role: actor.role.as_str().into(),
        client_ip: ip.to_string(),
        organization_id: actor.org,
        method,
        route,
        target: ids,
        status: resp.status().as_u16().into(),
    };
    if let Err(e) = audit::insert(&state.db, &entry).await {
        // The change is made; only its record is lost.
        tracing::error!(error = %e, ?entry, "writing the audit log");
    }
    resp
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct AuditQuery {
    /// 1-based page.
    #[serde(default)]
    pub page: Option<i64>,
    /// Entries a page, 1 to 100 (default 10).
    #[serde(default)]
    pub page_size: Option<i64>,
    /// Super admin: one organisation's entries (default: every organisation's).
    #[serde(default)]
    pub organization: Option<i64>,
}

const MAX_PAGE_SIZE: i64 = 100;

/// The audit log, newest first: the super admin's of every organisation (or of
/// `organization`), an organisation admin's of the request's organisation only (another
/// organisation, like an unknown one: 404).
#[utoipa::path(get, path = "/organization/audit_log/", tag = "organization", params(AuditQuery),
    responses((status = 200, body = Page<AuditEntry>), (status = 400), (status = 403), (status = 404)))]
pub async fn list(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<AuditQuery>,
) -> ApiResult<axum::Json<Page<AuditEntry>>> {
    me.require(Permission::ReadAuditLog)?;
    let org = if me.is_admin() {
        if let Some(o) = q.organization
            && orgs::by_id(&state.db, o).await?.is_none()
        {
            return Err(ApiError::NotFound);
        }
        q.organization
    } else {
        let own = me.org()?;
        if q.organization.is_some_and(|o| o != own) {
            return Err(ApiError::NotFound);
        }
        Some(own)
    };
    let limit = q.page_size.unwrap_or(gemba_shared::api::v1::PAGE_SIZE);
    if !(1..=MAX_PAGE_SIZE).contains(&limit) {
        return Err(ApiError::field(
            "page_size",
            format!("Choose a page size from 1 to {MAX_PAGE_SIZE}."),
        ));
    }
    let offset = match q.page.unwrap_or(1) {
        n if n >= 1 => (n - 1).checked_mul(limit),
        _ => None,
    }
    .ok_or_else(|| ApiError::field("page", "Invalid page."))?;
    let (results, count) = audit::page(&state.db, org, offset, limit).await?;
    Ok(axum::Json(Page { results, count }))
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_not_changes() {
        for m in [Method::GET, Method::HEAD, Method::OPTIONS, Method::TRACE] {
            assert!(!is_change(&m), "{m}");
        }
        for m in [Method::POST, Method::PUT, Method::PATCH, Method::DELETE] {
            assert!(is_change(&m), "{m}");
        }
    }

    #[test]
    fn administering_roles_are_audited() {
        let audited: Vec<Role> = Role::ALL.into_iter().filter(|r| audited(*r)).collect();
        assert_eq!(
            audited,
            [Role::Admin, Role::OrgAdmin, Role::SupportUser],
            "a role that manages users changes who may do what"
        );
    }

    #[test]
    fn secret_parameters_keep_their_name_only() {
        assert_eq!(target([("id", "7"), ("user", "3")]), "id=7 user=3");
        assert_eq!(
            target([("token", "abc"), ("uidb64", "x"), ("reset_code", "123456")]),
            "token=… uidb64=x reset_code=…"
        );
        assert_eq!(target([]), "");
    }
}
