//! Sign-in, tokens and sign-out: `login_v2`, `admin-login`, `token/refresh`, `logout`;
//! single sign-on (`sso.rs`) signs in through [`sign_in`] too.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use gemba_shared::Role;
use gemba_shared::api::v1::account::{
    LoginRequest, LoginUser, OrgRef, PendingApproval, RefreshRequest, TokenPair, messages,
};
use gemba_shared::validate::Bounded;

use crate::auth::{Claims, random_token, token_hash};
use crate::db::{UserRow, now_ms, orgs, tokens, users};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{Json, Site, StaleUser, site};
use crate::state::AppState;

/// A temporary (one-time code pending) session lives this long.
const PENDING_TTL_MS: i64 = 10 * 60 * 1000;

pub(crate) fn access_token(
    state: &AppState,
    user: i64,
    sid: &str,
    full: bool,
) -> ApiResult<String> {
    let now = now_ms() / 1000;
    let ttl = if full {
        state.settings.access_token_ttl_secs as i64
    } else {
        PENDING_TTL_MS / 1000
    };
    let claims = Claims {
        sub: user,
        sid: sid.to_string(),
        full,
        iat: now,
        exp: now + ttl,
    };
    Ok(state.keys.sign(&claims)?)
}

pub(crate) async fn new_refresh(state: &AppState, sid: &str) -> ApiResult<String> {
    let refresh = random_token();
    let ttl = state.settings.refresh_token_ttl_secs as i64 * 1000;
    tokens::store_refresh(&state.db, &token_hash(&refresh), sid, ttl).await?;
    Ok(refresh)
}

/// The login answer for `user` in session `sid`; with `full`, a refresh token too.
pub(crate) async fn login_answer(
    state: &AppState,
    user: &UserRow,
    sid: &str,
    full: bool,
) -> ApiResult<LoginUser> {
    let organization = match user.organization_id {
        Some(id) => orgs::by_id(&state.db, id).await?.map(|o| OrgRef {
            id: o.id,
            name: o.name,
            org_name_to_display: o.org_name_to_display,
        }),
        None => None,
    };
    let refresh = if full {
        Some(new_refresh(state, sid).await?)
    } else {
        None
    };
    Ok(LoginUser {
        id: user.id,
        name: user.name.clone(),
        lastname: user.lastname.clone(),
        email: user.email.clone(),
        role: user.role.clone(),
        token: access_token(state, user.id, sid, full)?,
        refresh,
        session_key: sid.to_string(),
        organization,
        poc: user.poc,
        is_policy_accepted: user.is_policy_accepted,
        require_otp: !full,
        receive_otp_on: user.mfa_method.clone(),
        is_otp_setup: user.mfa_method.is_some(),
        has_mobile_number: user.mobile_number.is_some(),
    })
}

/// 429 while `email` is locked out after too many failures.
pub(crate) async fn check_not_locked(state: &AppState, email: &str) -> ApiResult<()> {
    if tokens::locked_until(&state.db, email).await? > now_ms() {
        return Err(ApiError::TooMany(messages::TOO_MANY_ATTEMPTS.into()));
    }
    Ok(())
}

/// Counts a failed proof of identity (password or one-time code) against `email`;
/// enough of them lock the address (see [`crate::config::LoginLimit`]).
pub(crate) async fn record_failure(state: &AppState, email: &str) -> ApiResult<()> {
    let l = &state.settings.login_limit;
    tokens::record_failure(
        &state.db,
        email,
        l.max_failures as i64,
        l.window_secs as i64 * 1000,
        l.lockout_secs as i64 * 1000,
    )
    .await?;
    Ok(())
}

/// Checks credentials with throttling; the user when they are right.
///
/// A right password does not clear the failure count: only a completed sign-in does
/// (after the one-time code, if one is required), so that knowing the password does
/// not buy unlimited guesses at the code.
async fn check_credentials(state: &AppState, req: &LoginRequest) -> ApiResult<UserRow> {
    let email = req.email.trim().to_lowercase();
    if email.is_empty() {
        return Err(ApiError::field("email", "This field may not be blank."));
    }
    if req.password.is_empty() {
        return Err(ApiError::field("password", "This field may not be blank."));
    }
    check_not_locked(state, &email).await?;
    let user = users::by_email(&state.db, &email).await?;
    let ok = state
        .passwords
        .verify(
            req.password.clone(),
            user.as_ref().map(|u| u.password_hash.clone()),
        )
        .await;
    let Some(user) = user.filter(|_| ok) else {
        record_failure(state, &email).await?;
        return Err(ApiError::non_field(messages::BAD_CREDENTIALS));
    };
    Ok(user)
}

/// The sign-in steps after the password: state checks, then a temporary or full session.
pub(crate) async fn sign_in(
    state: &AppState,
    headers: &HeaderMap,
    user: UserRow,
) -> ApiResult<Response> {
    if !user.is_email_verified {
        return Err(ApiError::non_field(messages::EMAIL_NOT_VERIFIED));
    }
    if !user.is_approved || user.role.is_none() {
        let body = PendingApproval {
            message: messages::USER_CREATED.into(),
        };
        return Ok((StatusCode::ACCEPTED, axum::Json(body)).into_response());
    }
    if !user.is_active {
        return Err(ApiError::non_field("This account is inactive."));
    }
    let role = user.role().ok_or(ApiError::Forbidden)?;
    if role.needs_organization() && user.organization_id.is_none() {
        return Err(ApiError::non_field(messages::NO_ORGANIZATION));
    }
    if let Site::Org(name) = site(headers, state)
        && role != Role::Admin
    {
        let member = match orgs::by_name(&state.db, &name).await? {
            Some(o) => users::is_member(&state.db, user.id, o.id).await?,
            None => false,
        };
        if !member {
            return Err(ApiError::non_field(
                "You do not belong to this organization.",
            ));
        }
    }
    let sid = random_token();
    let full = !user.require_otp;
    let ttl = if full {
        state.settings.refresh_token_ttl_secs as i64 * 1000
    } else {
        PENDING_TTL_MS
    };
    tokens::create_session(&state.db, &sid, user.id, full, ttl).await?;
    if full {
        tokens::clear_failures(&state.db, &user.email).await?;
    }
    let answer = login_answer(state, &user, &sid, full).await?;
    Ok(axum::Json(answer).into_response())
}

/// Sign in with e-mail and password.
///
/// Answers the user with a full session, or with a temporary token and
/// `require_otp: true` when a one-time code is required; 202 with
/// 'User created successfully' for an account awaiting approval; 429 after too many
/// failures.
#[utoipa::path(post, path = "/account/login_v2", tag = "account", request_body = LoginRequest,
    responses((status = 200, body = LoginUser), (status = 202, body = PendingApproval),
        (status = 400, description = "non_field_errors"), (status = 429, description = "locked")))]
pub async fn login_v2(
    State(state): State<AppState>,
    headers: HeaderMap,
    Json(req): Json<LoginRequest>,
) -> ApiResult<Response> {
    req.check_lengths()?;
    let user = check_credentials(&state, &req).await?;
    sign_in(&state, &headers, user).await
}

/// The admin host's sign-in: super admins only.
#[utoipa::path(post, path = "/account/admin-login/", tag = "account", request_body = LoginRequest,
    responses((status = 200, body = LoginUser), (status = 400, description = "non_field_errors")))]
pub async fn admin_login(
    State(state): State<AppState>,
    headers: HeaderMap,
    Json(req): Json<LoginRequest>,
) -> ApiResult<Response> {
    req.check_lengths()?;
    let user = check_credentials(&state, &req).await?;
    if user.role() != Some(Role::Admin) {
        return Err(ApiError::non_field("Only super admins can sign in here."));
    }
    sign_in(&state, &headers, user).await
}

/// Trade a refresh token for a new access and refresh token (the old one is spent).
#[utoipa::path(post, path = "/account/token/refresh/", tag = "account", request_body = RefreshRequest,
    responses((status = 200, body = TokenPair), (status = 401, description = "invalid, expired or reused")))]
pub async fn token_refresh(
    State(state): State<AppState>,
    Json(req): Json<RefreshRequest>,
) -> ApiResult<axum::Json<TokenPair>> {
    req.check_lengths()?;
    match tokens::use_refresh(&state.db, &token_hash(req.refresh.trim())).await? {
        tokens::RefreshUse::Ok(session) => {
            let user = users::by_id(&state.db, session.user_id)
                .await?
                .filter(|u| u.is_active)
                .ok_or(ApiError::Unauthorized("User not found or inactive."))?;
            Ok(axum::Json(TokenPair {
                access: access_token(&state, user.id, &session.id, true)?,
                refresh: new_refresh(&state, &session.id).await?,
            }))
        }
        tokens::RefreshUse::Invalid => Err(ApiError::Unauthorized("Token is invalid or expired")),
        tokens::RefreshUse::Reused => {
            tracing::warn!("refresh token reused; session revoked");
            Err(ApiError::Unauthorized("Token is invalid or expired"))
        }
    }
}

/// Sign out: the session's access and refresh tokens stop working.
#[utoipa::path(patch, path = "/account/logout/", tag = "account",
    responses((status = 200, body = gemba_shared::api::v1::Msg)))]
pub async fn logout(
    State(state): State<AppState>,
    StaleUser(me): StaleUser,
) -> ApiResult<axum::Json<gemba_shared::api::v1::Msg>> {
    tokens::revoke_session(&state.db, &me.session).await?;
    Ok(axum::Json(gemba_shared::api::v1::Msg::new(
        "Logged out successfully.",
    )))
}
