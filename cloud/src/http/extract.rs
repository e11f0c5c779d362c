//! Extractors: our JSON body (malformed bodies get the API's error shape), the
//! request's host (organisation sub-domain or admin host), and the signed-in user
//! with the tenant scope of the request.
//!
//! Invariant: a handler that touches tenant data takes [`AuthUser`] and reads the
//! organisation from [`AuthUser::org`], which has been checked against the user's
//! memberships (a super admin may act in any organisation). A service token's bearer
//! (`gst_…`) stands for its own account, in its one organisation, as its role.

use std::pin::Pin;

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use gemba_shared::{Permission, Role};
use serde::de::DeserializeOwned;

use super::error::{ApiError, ApiResult};
use crate::auth::Claims;
use crate::db::{UserRow, now_ms, orgs, service_tokens, tokens, users};
use crate::state::AppState;

/// `axum::Json` with the API's error shape on rejection.
pub struct Json<T>(pub T);

/// Bytes of a too-long body still read (and thrown away) before the 413 goes out, and
/// for how long: a client still sending then receives the answer, not a connection
/// reset by unread data.
const DRAIN_BYTES: usize = 8 * 1024 * 1024;
const DRAIN_TIME: std::time::Duration = std::time::Duration::from_secs(5);

/// The body, at most `limit` bytes of it; a longer one is [`ApiError::TooLarge`].
/// Reads and discards what is left of a body refused before it was read (up to 8 MiB,
/// for at most 5 s), so a client still sending receives the answer rather than a
/// connection reset by unread data.
pub async fn drain(mut body: Body) {
    use axum::body::HttpBody;
    let drain = async {
        let mut seen = 0usize;
        while let Some(Ok(frame)) =
            std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await
        {
            seen += frame.data_ref().map_or(0, |d| d.len());
            if seen > DRAIN_BYTES {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(DRAIN_TIME, drain).await;
}

pub async fn read_body(mut body: Body, limit: usize) -> ApiResult<Bytes> {
    use axum::body::HttpBody;
    let mut buf = Vec::new();
    let mut seen = 0usize;
    let unreadable = || ApiError::non_field("The request body could not be read.");
    while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
        if let Ok(data) = frame.map_err(|_| unreadable())?.into_data() {
            seen += data.len();
            if seen <= limit {
                buf.extend_from_slice(&data);
            } else {
                break;
            }
        }
    }
    if seen <= limit {
        return Ok(Bytes::from(buf));
    }
    let drain = async {
        while let Some(Ok(frame)) =
            std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await
        {
            seen += frame.data_ref().map_or(0, |d| d.len());
            if seen > limit + DRAIN_BYTES {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(DRAIN_TIME, drain).await;
    Err(ApiError::TooLarge)
}

impl<T: DeserializeOwned> FromRequest<AppState> for Json<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        use axum::extract::rejection::JsonRejection;
        let (parts, body) = req.into_parts();
        let bytes = read_body(body, state.settings.max_body_bytes).await?;
        // serde reads a JSON array into a struct's fields in order; every body of this
        // API is an object, so an array is refused before it can be misread.
        let json_type = parts
            .headers
            .get(axum::http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.contains("json"));
        if json_type && bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
            return Err(ApiError::non_field(
                "The request body must be a JSON object.",
            ));
        }
        let req = Request::from_parts(parts, Body::from(bytes));
        match axum::Json::<T>::from_request(req, state).await {
            Ok(axum::Json(v)) => Ok(Json(v)),
            Err(JsonRejection::JsonDataError(e)) => Err(data_error(&e.body_text())),
            Err(JsonRejection::JsonSyntaxError(_)) => {
                Err(ApiError::non_field("The request body is not valid JSON."))
            }
            Err(JsonRejection::MissingJsonContentType(_)) => {
                Err(ApiError::non_field("Send the body as application/json."))
            }
            Err(JsonRejection::BytesRejection(_)) => Err(ApiError::TooLarge),
            Err(e) => Err(ApiError::non_field(e.body_text())),
        }
    }
}

/// Turns serde's message into a field error where it names a field.
fn data_error(text: &str) -> ApiError {
    if let Some(rest) = text.split("missing field `").nth(1)
        && let Some(field) = rest.split('`').next()
    {
        return ApiError::field(field, "This field is required.");
    }
    // "body.field: invalid type: …" from serde_path_to_error
    if let Some(body) = text
        .split("Failed to deserialize the JSON body into the target type: ")
        .nth(1)
        && let Some((path, msg)) = body.split_once(": ")
        && !path.contains(' ')
    {
        // The top-level field: `recipients[0]` and `a.b` name `recipients` and `a`.
        let field = path
            .trim_start_matches('.')
            .split(['.', '['])
            .next()
            .unwrap_or(path);
        return ApiError::field(field.to_string(), format!("Invalid value: {msg}"));
    }
    ApiError::non_field(format!("Invalid request body: {text}"))
}

/// Query strings with the API's error shape on rejection.
pub struct Query<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|q| Query(q.0))
            .map_err(|e| ApiError::non_field(format!("Invalid query: {}", e.body_text())))
    }
}

/// Path parameters with the API's error shape on rejection: an id that does not parse
/// names no resource, so it answers 404 like an unknown one.
pub struct Path<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Path<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        use axum::extract::rejection::PathRejection;
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(p) => Ok(Path(p.0)),
            Err(PathRejection::FailedToDeserializePathParams(_)) => Err(ApiError::NotFound),
            Err(e) => Err(ApiError::Internal(anyhow::anyhow!(
                "path: {}",
                e.body_text()
            ))),
        }
    }
}

/// Which site a request came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Site {
    /// The configured admin host.
    Admin,
    /// `{org}.{base_domain}`.
    Org(String),
    /// The base domain or any other host.
    Base,
}

/// The host the caller reached (`x-forwarded-host` behind a proxy, else `Host`), with
/// its port if it named one.
pub fn request_host(headers: &HeaderMap) -> Option<&str> {
    headers
        .get("x-forwarded-host")
        .or_else(|| headers.get(header::HOST))
        .and_then(|h| h.to_str().ok())
}

/// `host` without a trailing `:port`.
pub fn without_port(host: &str) -> &str {
    host.rsplit_once(':').map_or(host, |(h, port)| {
        if port.bytes().all(|b| b.is_ascii_digit()) {
            h
        } else {
            host
        }
    })
}

pub fn site(headers: &HeaderMap, state: &AppState) -> Site {
    let host = without_port(request_host(headers).unwrap_or("")).to_ascii_lowercase();
    if host == state.settings.admin_host {
        return Site::Admin;
    }
    let suffix = format!(".{}", state.settings.base_domain);
    match host.strip_suffix(&suffix) {
        Some(sub) if !sub.is_empty() && !sub.contains('.') && sub != "www" => Site::Org(sub.into()),
        _ => Site::Base,
    }
}

/// Sub-domain names an organisation cannot take: they would never reach it, because
/// [`site`] reads them as the admin host or the base domain.
pub fn reserved_subdomain(name: &str, state: &AppState) -> bool {
    let admin_label = state
        .settings
        .admin_host
        .strip_suffix(&format!(".{}", state.settings.base_domain));
    name == "www" || admin_label == Some(name)
}

/// The signed-in user of a request, with the organisation it acts in.
#[derive(Debug, Clone)]
pub struct AuthUser {
    pub user: UserRow,
    pub role: Role,
    pub session: String,
    pub org: Option<i64>,
}

impl AuthUser {
    pub fn require(&self, p: Permission) -> ApiResult<()> {
        if self.role.can(p) {
            Ok(())
        } else {
            Err(ApiError::Forbidden)
        }
    }

    /// The organisation of the request, which every tenant query is scoped to.
    pub fn org(&self) -> ApiResult<i64> {
        self.org
            .ok_or_else(|| ApiError::non_field("User is not assigned to any organization"))
    }

    pub fn is_admin(&self) -> bool {
        self.role == Role::Admin
    }

    /// May this user act with `p` in organisation `org` on a screen the subscription
    /// `feature` gates (spec section 6)? The super admin needs no subscription.
    pub async fn require_subscribed(
        &self,
        state: &AppState,
        org: i64,
        p: Permission,
        feature: gemba_shared::api::v1::feature_control::Gated,
    ) -> ApiResult<()> {
        self.require(p)?;
        if !self.is_admin() && !crate::db::features::enabled(&state.db, org, feature.name()).await?
        {
            return Err(ApiError::Status(
                axum::http::StatusCode::FORBIDDEN,
                format!("{feature} is not enabled for this organization."),
            ));
        }
        Ok(())
    }

    /// May this user change or delete the account of user `target` (not oneself)?
    /// A super admin may; an organisation's user managers may for users of the
    /// request's organisation (else 404) who belong to no organisation the manager
    /// is not linked to (else 403: the change would reach another tenant).
    pub async fn may_manage_user(&self, state: &AppState, target: i64) -> ApiResult<()> {
        if self.is_admin() {
            return Ok(());
        }
        self.require(Permission::ManageOrgUsers)?;
        if !users::is_member(&state.db, target, self.org()?).await? {
            return Err(ApiError::NotFound);
        }
        if users::links_outside(&state.db, target, self.user.id).await? > 0 {
            return Err(ApiError::Forbidden);
        }
        Ok(())
    }

    /// May this user act on data of organisation `org`?
    pub async fn can_access_org(&self, state: &AppState, org: i64) -> ApiResult<bool> {
        Ok(self.is_admin() || users::is_member(&state.db, self.user.id, org).await?)
    }
}

/// The same, for the few calls a user must still reach while a password change is
/// pending (change password, logout, and the session bookkeeping).
pub struct StaleUser(pub AuthUser);

/// A user holding either a full or a temporary (one-time code pending) token: only
/// the MFA calls take it.
pub struct PendingUser {
    pub user: UserRow,
    pub session: String,
    pub full: bool,
}

fn bearer(parts: &Parts) -> ApiResult<&str> {
    parts
        .headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim)
        .ok_or(ApiError::Unauthorized(
            "Authentication credentials were not provided.",
        ))
}

/// The organisation a request names: the `Organization` header, else the host's
/// sub-domain; `None` leaves the user's current one.
async fn named_org(parts: &Parts, state: &AppState) -> ApiResult<Option<i64>> {
    let header_org = parts
        .headers
        .get("organization")
        .and_then(|v| v.to_str().ok())
        .map(str::trim);
    match header_org {
        Some(v) if !v.is_empty() && v != "null" && v != "undefined" => {
            Ok(Some(v.parse::<i64>().map_err(|_| {
                ApiError::field("Organization", "Invalid organization.")
            })?))
        }
        _ => match site(&parts.headers, state) {
            Site::Org(name) => Ok(Some(
                orgs::by_name(&state.db, &name)
                    .await?
                    .ok_or(ApiError::Status(
                        axum::http::StatusCode::NOT_FOUND,
                        format!("No organization is served at {name}."),
                    ))?
                    .id,
            )),
            _ => Ok(None),
        },
    }
}

/// Checks the token, its session and the user (one query, which also tells whether
/// the user is linked to `org`, or to the current organisation when `org` is None).
async fn session_of(
    parts: &Parts,
    state: &AppState,
    org: Option<i64>,
) -> ApiResult<(Claims, tokens::Authenticated)> {
    let token = bearer(parts)?;
    let claims = state.keys.verify(token).ok_or(ApiError::Unauthorized(
        "Given token not valid for any token type",
    ))?;
    let found = tokens::authenticate(&state.db, &claims.sid, claims.sub, org)
        .await?
        .filter(|a| !a.session_revoked && a.session_expires_at > now_ms())
        .ok_or(ApiError::Unauthorized(
            "Your session has ended. Please sign in again.",
        ))?;
    if let Some(key) = parts
        .headers
        .get("sessionkey")
        .and_then(|v| v.to_str().ok())
        && !key.is_empty()
        && key != claims.sid
    {
        return Err(ApiError::SessionEnded);
    }
    if !found.user.is_active {
        return Err(ApiError::Unauthorized("User not found or inactive."));
    }
    if claims.full && !found.otp_verified {
        return Err(ApiError::Unauthorized(
            "Given token not valid for any token type",
        ));
    }
    Ok((claims, found))
}

async fn authenticate(parts: &Parts, state: &AppState, allow_stale: bool) -> ApiResult<AuthUser> {
    let named = named_org(parts, state).await?;
    if let Ok(token) = bearer(parts)
        && token.starts_with(gemba_shared::api::v1::service_token::SECRET_PREFIX)
    {
        let me = service_user(state, token, named).await?;
        super::audit::Slot::fill(&parts.extensions, &me);
        return Ok(me);
    }
    let (claims, found) = session_of(parts, state, named).await?;
    if !claims.full {
        return Err(ApiError::Unauthorized("Verify your one-time code first."));
    }
    let user = found.user;
    let role = user.role().ok_or(ApiError::Forbidden)?;
    if user.must_change_password && !allow_stale {
        return Err(ApiError::PasswordChangeRequired);
    }
    let org = named.or(user.organization_id);
    if org.is_some() && found.member == 0 && role != gemba_shared::Role::Admin {
        return Err(ApiError::Forbidden);
    }
    let me = AuthUser {
        session: claims.sid,
        role,
        org,
        user,
    };
    // The audit log learns who makes a changing call here (see `http::audit`).
    super::audit::Slot::fill(&parts.extensions, &me);
    Ok(me)
}

/// The caller of a request made with a service token (`generic/userpool/`): its
/// account, in its organisation (another one named is refused as for a user not linked
/// to it), as its role; no session key is needed. Revoked, expired or unknown: 401.
async fn service_user(state: &AppState, secret: &str, named: Option<i64>) -> ApiResult<AuthUser> {
    let found = service_tokens::authenticate(&state.db, &crate::auth::token_hash(secret))
        .await?
        .ok_or(ApiError::Unauthorized("Invalid service token."))?;
    let now = now_ms();
    if found.revoked_at.is_some() {
        return Err(ApiError::Unauthorized(
            "This service token has been revoked.",
        ));
    }
    if found.expires_at <= now {
        return Err(ApiError::Unauthorized("This service token has expired."));
    }
    if !found.user.is_active {
        return Err(ApiError::Unauthorized("User not found or inactive."));
    }
    let role = Role::parse(&found.token_role)
        .filter(|r| *r != Role::Admin)
        .ok_or(ApiError::Forbidden)?;
    if named.is_some_and(|n| n != found.token_org) || found.member == 0 {
        return Err(ApiError::Forbidden);
    }
    if service_tokens::due_touch(found.last_used_at, now)
        && let Err(e) = service_tokens::touch(&state.db, found.token_id, now).await
    {
        tracing::warn!(token = found.token_id, error = %e, "cannot record a service token's use");
    }
    Ok(AuthUser {
        session: format!("{}{}", service_tokens::SESSION_PREFIX, found.token_id),
        role,
        org: Some(found.token_org),
        user: found.user,
    })
}

impl FromRequestParts<AppState> for AuthUser {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> ApiResult<Self> {
        authenticate(parts, state, false).await
    }
}

impl FromRequestParts<AppState> for StaleUser {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> ApiResult<Self> {
        authenticate(parts, state, true).await.map(StaleUser)
    }
}

impl FromRequestParts<AppState> for PendingUser {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> ApiResult<Self> {
        let (claims, found) = session_of(parts, state, None).await?;
        Ok(PendingUser {
            user: found.user,
            session: claims.sid,
            full: claims.full,
        })
    }
}

/// The signed-in user of a device stream (`/api/ws`). A browser cannot send headers with
/// a WebSocket, so the access token may come as the sub-protocol `bearer.{token}` and
/// the organisation as the query `?organization={id}`; an `Authorization` or
/// `Organization` header still wins.
pub struct StreamUser(pub AuthUser);

impl FromRequestParts<AppState> for StreamUser {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> ApiResult<Self> {
        if !parts.headers.contains_key(header::AUTHORIZATION) {
            let token = parts
                .headers
                .get_all(header::SEC_WEBSOCKET_PROTOCOL)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(','))
                .find_map(|p| p.trim().strip_prefix("bearer."))
                .and_then(|t| header::HeaderValue::from_str(&format!("Bearer {t}")).ok());
            if let Some(t) = token {
                parts.headers.insert(header::AUTHORIZATION, t);
            }
        }
        if !parts.headers.contains_key("organization") {
            let org = parts.uri.query().and_then(|q| {
                q.split('&')
                    .find_map(|kv| kv.strip_prefix("organization="))
                    .and_then(|v| header::HeaderValue::from_str(v).ok())
            });
            if let Some(org) = org {
                parts.headers.insert("organization", org);
            }
        }
        authenticate(parts, state, false).await.map(StreamUser)
    }
}

impl AuthUser {
    /// Is this user's sign-in still good for organisation `org` (not signed out, not
    /// expired, the user active and still linked to `org`)?
    pub async fn still_signed_in(&self, state: &AppState, org: i64) -> ApiResult<bool> {
        if let Some(open) = service_tokens::session_open(&state.db, &self.session).await? {
            return Ok(open && self.org == Some(org));
        }
        let found = tokens::authenticate(&state.db, &self.session, self.user.id, Some(org)).await?;
        Ok(found.is_some_and(|a| {
            !a.session_revoked
                && a.session_expires_at > now_ms()
                && a.user.is_active
                && (a.member > 0 || self.is_admin())
        }))
    }
}
