//! Service tokens, the spec's cloud-function token (`generic/userpool/`, the super
//! admin's `aws-token` screen): list, create (the secret answered once), and revoke
//! (`DELETE generic/userpool/{id}/`, ours). How a token is accepted on other calls is
//! `extract::service_user`; the rules are `db::service_tokens`.

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::service_token::{
    CREATE_FAILED, MAX_EXPIRY_DAYS, SECRET_PREFIX, ServiceToken, ServiceTokenCreate,
    ServiceTokenCreated,
};
use gemba_shared::validate::Bounded;
use gemba_shared::{Permission, Role};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::service_tokens::{self, NewServiceToken};
use crate::db::{now_ms, orgs};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path};
use crate::state::AppState;

const DAY_MS: i64 = 24 * 3600 * 1000;

/// Super admin: every service token, newest first, without secrets.
#[utoipa::path(get, path = "/generic/userpool/", tag = "admin",
    responses((status = 200, body = Vec<ServiceToken>), (status = 403)))]
pub async fn list(
    State(state): State<AppState>,
    me: AuthUser,
) -> ApiResult<axum::Json<Vec<ServiceToken>>> {
    me.require(Permission::AdminArea)?;
    Ok(axum::Json(service_tokens::list(&state.db).await?))
}

/// Super admin: a new service token acting in `organization` as `role` (not the super
/// admin's) for `expires_in_days` (1 to 365). The answer carries its secret, this once.
#[utoipa::path(post, path = "/generic/userpool/", tag = "admin",
    request_body = ServiceTokenCreate,
    responses((status = 201, body = ServiceTokenCreated), (status = 400), (status = 403)))]
pub async fn create(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<ServiceTokenCreate>,
) -> ApiResult<(StatusCode, axum::Json<ServiceTokenCreated>)> {
    req.check_lengths()?;
    me.require(Permission::AdminArea)?;
    let name = req.name.trim();
    if name.is_empty() {
        return Err(ApiError::field("name", "This field is required."));
    }
    if name.chars().any(char::is_control) {
        return Err(ApiError::field(
            "name",
            "Enter a name without control characters.",
        ));
    }
    let role = match Role::parse(req.role.trim()) {
        Some(Role::Admin) => {
            return Err(ApiError::field(
                "role",
                "A service token cannot act as the super admin.",
            ));
        }
        Some(r) => r,
        None => return Err(ApiError::field("role", "Invalid role.")),
    };
    if !(1..=MAX_EXPIRY_DAYS).contains(&req.expires_in_days) {
        return Err(ApiError::field(
            "expires_in_days",
            format!("Enter a number of days from 1 to {MAX_EXPIRY_DAYS}."),
        ));
    }
    if orgs::by_id(&state.db, req.organization).await?.is_none() {
        return Err(ApiError::field("organization", "Organization not found."));
    }
    let secret = format!("{SECRET_PREFIX}{}", crate::auth::random_token());
    let account = format!(
        "token-{}@service-token.invalid",
        &crate::auth::token_hash(&secret)[..16]
    );
    let id = service_tokens::create(
        &state.db,
        &NewServiceToken {
            name,
            organization: req.organization,
            role,
            created_by: me.user.id,
            expires_at: now_ms() + req.expires_in_days * DAY_MS,
            token_hash: &crate::auth::token_hash(&secret),
            account_email: &account,
        },
    )
    .await
    .map_err(|e| match ApiError::from(e) {
        // The organisation went away meanwhile.
        ApiError::NotFound => ApiError::non_field(CREATE_FAILED),
        e => e,
    })?;
    let token = service_tokens::get(&state.db, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    tracing::info!(
        token = id,
        org = req.organization,
        role = role.as_str(),
        by = me.user.id,
        "service token created"
    );
    Ok((
        StatusCode::CREATED,
        axum::Json(ServiceTokenCreated { token, secret }),
    ))
}

/// Super admin: revoke a service token; calls made with it are refused (401) from now
/// on. It stays listed, revoked.
#[utoipa::path(delete, path = "/generic/userpool/{id}/", tag = "admin",
    params(("id" = i64, Path)),
    responses((status = 200, body = Msg), (status = 403), (status = 404)))]
pub async fn revoke(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Msg>> {
    me.require(Permission::AdminArea)?;
    let Some(t) = service_tokens::get(&state.db, id).await? else {
        return Err(ApiError::NotFound);
    };
    if t.revoked_at.is_some() {
        return Err(ApiError::field("id", "This token is already revoked."));
    }
    service_tokens::revoke(&state.db, id).await?;
    tracing::info!(token = id, by = me.user.id, "service token revoked");
    Ok(axum::Json(Msg::new("Token revoked.")))
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(revoke))
}
