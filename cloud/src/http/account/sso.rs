//! Single sign-on (OpenID Connect, issue 28): `azure-signin/`, `azure-signup/`,
//! `google-sso/`, `refresh-azure-token/`, and `register_for_aws_subscription`.
//!
//! The portal sends the browser to the provider (authorization code with PKCE) and
//! posts the code it comes back with, its PKCE verifier and nonce; the cloud redeems the
//! code at the provider (a client that already holds an ID token may post that
//! instead) and checks the ID token against the provider's published keys
//! (`crate::oidc`). An identity is the provider's `sub`, linked to one user
//! (`db::sso`). A first sign-in links an existing account by its address only when the
//! provider says it verified the address (`email_verified` true) and the account's own
//! address was confirmed. A linked, approved account then signs in exactly as with its
//! password (the same checks, session and one-time code); a sign-up makes an account
//! awaiting the super admin's approval. A provider that is not configured answers 501.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::account::{LoginUser, PendingApproval, messages};
use gemba_shared::api::v1::sso::{SsoRefresh, SsoSignIn};
use gemba_shared::validate::Bounded;

use super::login::sign_in;
use super::signup::notify_admins;
use crate::db::{UserRow, sso, users};
use crate::http::error::{ApiError, ApiResult, is_unique_violation};
use crate::http::extract::Json;
use crate::oidc::{Identity, Provider, SsoError, Which};
use crate::state::AppState;

const NOT_VERIFIED: &str = "The identity provider has not verified this e-mail address, so it \
                            cannot be used to sign in.";
const ALREADY_EXISTS: &str = "user with this email already exists.";

fn provider(state: &AppState, which: Which) -> ApiResult<&Provider> {
    state
        .sso
        .get(which)
        .ok_or(ApiError::NotImplemented(messages::SSO_NOT_CONFIGURED))
}

fn label(which: Which) -> &'static str {
    match which {
        Which::Azure => "Microsoft",
        Which::Google => "Google",
    }
}

impl From<SsoError> for ApiError {
    fn from(e: SsoError) -> ApiError {
        match e {
            SsoError::Refused(r) => ApiError::non_field(r.to_string()),
            SsoError::Code(m) => {
                ApiError::non_field(format!("The identity provider refused the sign-in: {m}"))
            }
            SsoError::Unavailable(why) => {
                tracing::warn!("single sign-on: {why}");
                ApiError::Status(
                    StatusCode::BAD_GATEWAY,
                    "The identity provider could not be reached. Please try again later.".into(),
                )
            }
        }
    }
}

/// The identity the request proves, with a verified address.
async fn identity(state: &AppState, which: Which, req: &SsoSignIn) -> ApiResult<Identity> {
    // Lengths first: a refusal names the field whether or not the provider is set up.
    req.check_lengths()?;
    let p = provider(state, which)?;
    let blank = |v: &Option<String>| v.as_deref().is_none_or(|s| s.trim().is_empty());
    if req.nonce.trim().is_empty() {
        return Err(ApiError::field("nonce", "This field may not be blank."));
    }
    let token = if !blank(&req.id_token) {
        req.id_token.clone().unwrap_or_default()
    } else if !blank(&req.code) {
        for (name, v) in [
            ("code_verifier", &req.code_verifier),
            ("redirect_uri", &req.redirect_uri),
        ] {
            if blank(v) {
                return Err(ApiError::field(name, "This field may not be blank."));
            }
        }
        state
            .sso
            .redeem(
                p,
                req.code.as_deref().unwrap_or_default(),
                req.code_verifier.as_deref().unwrap_or_default(),
                req.redirect_uri.as_deref().unwrap_or_default(),
            )
            .await?
    } else {
        return Err(ApiError::field("id_token", "This field may not be blank."));
    };
    let id = state.sso.verify(p, &token, req.nonce.trim()).await?;
    match &id.email {
        Some(_) if id.email_verified => Ok(id),
        _ => Err(ApiError::non_field(NOT_VERIFIED)),
    }
}

fn email(id: &Identity) -> &str {
    id.email.as_deref().unwrap_or_default()
}

fn link_of<'a>(which: Which, id: &'a Identity) -> sso::Identity<'a> {
    sso::Identity {
        provider: which.name(),
        subject: &id.subject,
        issuer: &id.issuer,
        email: email(id),
    }
}

/// The account the identity belongs to: its link, else (linking it now) the account
/// with the verified address.
async fn linked_user(state: &AppState, which: Which, id: &Identity) -> ApiResult<Option<UserRow>> {
    if let Some(uid) = sso::user_for(&state.db, which.name(), &id.subject).await? {
        sso::touch(&state.db, which.name(), &id.subject).await?;
        return Ok(users::by_id(&state.db, uid).await?);
    }
    let Some(user) = users::by_email(&state.db, email(id)).await? else {
        return Ok(None);
    };
    if !user.is_email_verified {
        // Someone may have registered the address without owning it: confirming it
        // by the mailed link comes first.
        return Err(ApiError::non_field(messages::EMAIL_NOT_VERIFIED));
    }
    match sso::link(&state.db, &link_of(which, id), user.id).await? {
        sso::Linked::Yes => {
            tracing::info!(
                user = user.id,
                provider = which.name(),
                "single sign-on identity linked"
            );
            Ok(Some(user))
        }
        sso::Linked::OtherIdentity => Err(ApiError::non_field(format!(
            "This account is already linked to another {} identity.",
            label(which)
        ))),
    }
}

/// A name for the new account from the provider's claims.
fn names(id: &Identity) -> (String, String) {
    let clip = |s: &str| s.trim().chars().take(100).collect::<String>();
    let given = id.given_name.as_deref().map(clip).filter(|s| !s.is_empty());
    let family = id.family_name.as_deref().map(clip).unwrap_or_default();
    match given {
        Some(g) => (g, family),
        None => match id.name.as_deref().map(clip).filter(|s| !s.is_empty()) {
            Some(n) => (n, family),
            None => (clip(email(id).split('@').next().unwrap_or("User")), family),
        },
    }
}

/// Makes an account awaiting approval for the identity and tells the super admins.
async fn sign_up(state: &AppState, which: Which, id: &Identity) -> ApiResult<()> {
    let (name, lastname) = names(id);
    let new = sso::PendingUser {
        email: email(id),
        name: &name,
        lastname: &lastname,
        require_otp: state.settings.require_otp,
    };
    let uid = match sso::create_pending(&state.db, &new, &link_of(which, id)).await {
        Ok(uid) => uid,
        Err(e) if is_unique_violation(&e) => return Err(ApiError::field("email", ALREADY_EXISTS)),
        Err(e) => return Err(e.into()),
    };
    let user = users::by_id(&state.db, uid)
        .await?
        .ok_or(ApiError::NotFound)?;
    notify_admins(state, &user).await
}

/// Sign in with Microsoft: the ID token of a linked account (or one with the verified
/// address, linked now) gives the same answer as `login_v2`.
#[utoipa::path(post, path = "/account/azure-signin/", tag = "account", request_body = SsoSignIn,
    responses((status = 200, body = LoginUser), (status = 202, body = PendingApproval),
        (status = 400, description = "token refused, address not verified, or no account"),
        (status = 501, description = "single sign-on is not configured"),
        (status = 502, description = "the identity provider could not be reached")))]
pub async fn azure_signin(
    State(state): State<AppState>,
    headers: HeaderMap,
    Json(req): Json<SsoSignIn>,
) -> ApiResult<Response> {
    let id = identity(&state, Which::Azure, &req).await?;
    match linked_user(&state, Which::Azure, &id).await? {
        Some(user) => sign_in(&state, &headers, user).await,
        None => Err(ApiError::non_field(format!(
            "No account uses {}. Sign up with Microsoft first.",
            email(&id)
        ))),
    }
}

/// Sign up with Microsoft: an account awaiting approval, its address verified by the
/// provider; the super admins are told.
#[utoipa::path(post, path = "/account/azure-signup/", tag = "account", request_body = SsoSignIn,
    responses((status = 201, body = Msg),
        (status = 400, description = "token refused, address not verified, or taken"),
        (status = 501, description = "single sign-on is not configured"),
        (status = 502, description = "the identity provider could not be reached")))]
pub async fn azure_signup(
    State(state): State<AppState>,
    Json(req): Json<SsoSignIn>,
) -> ApiResult<(StatusCode, axum::Json<Msg>)> {
    let id = identity(&state, Which::Azure, &req).await?;
    sign_up(&state, Which::Azure, &id).await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(Msg::new(messages::ADMIN_NOTIFIED)),
    ))
}

/// Sign in (or up) with Google: a known identity or verified address signs in as with
/// `login_v2`; a new one makes an account awaiting approval, answered 202
/// 'User created successfully'.
#[utoipa::path(post, path = "/account/google-sso/", tag = "account", request_body = SsoSignIn,
    responses((status = 200, body = LoginUser), (status = 202, body = PendingApproval),
        (status = 400, description = "token refused or address not verified"),
        (status = 501, description = "single sign-on is not configured"),
        (status = 502, description = "the identity provider could not be reached")))]
pub async fn google_sso(
    State(state): State<AppState>,
    headers: HeaderMap,
    Json(req): Json<SsoSignIn>,
) -> ApiResult<Response> {
    let id = identity(&state, Which::Google, &req).await?;
    match linked_user(&state, Which::Google, &id).await? {
        Some(user) => sign_in(&state, &headers, user).await,
        None => {
            sign_up(&state, Which::Google, &id).await?;
            let body = PendingApproval {
                message: messages::USER_CREATED.into(),
            };
            Ok((StatusCode::ACCEPTED, axum::Json(body)).into_response())
        }
    }
}

/// The portal's silent renewal (a 498): a fresh Microsoft access token, which the
/// provider itself checks (its userinfo endpoint), of a linked account gives a new
/// sign-in as `azure-signin/` does.
#[utoipa::path(post, path = "/account/refresh-azure-token/", tag = "account", request_body = SsoRefresh,
    responses((status = 200, body = LoginUser),
        (status = 401, description = "the provider refused the token, or it is no linked account's"),
        (status = 501, description = "single sign-on is not configured"),
        (status = 502, description = "the identity provider could not be reached")))]
pub async fn refresh_azure_token(
    State(state): State<AppState>,
    headers: HeaderMap,
    Json(req): Json<SsoRefresh>,
) -> ApiResult<Response> {
    req.check_lengths()?;
    let p = provider(&state, Which::Azure)?;
    if req.access_token.trim().is_empty() {
        return Err(ApiError::field(
            "access_token",
            "This field may not be blank.",
        ));
    }
    let refused = ApiError::Unauthorized("The identity provider did not accept the token.");
    let Some(subject) = state
        .sso
        .userinfo_subject(p, req.access_token.trim())
        .await?
    else {
        return Err(refused);
    };
    let Some(uid) = sso::user_for(&state.db, Which::Azure.name(), &subject).await? else {
        return Err(refused);
    };
    let user = users::by_id(&state.db, uid).await?.ok_or(refused)?;
    sso::touch(&state.db, Which::Azure.name(), &subject).await?;
    sign_in(&state, &headers, user).await
}

/// AWS Marketplace sign-up: needs the marketplace's registration token resolved with
/// AWS (ResolveCustomer), which this deployment is not set up for; answers 501 with
/// the reason in `error` (the spec: "error in response").
#[utoipa::path(post, path = "/account/register_for_aws_subscription", tag = "account",
    responses((status = 501, description = "AWS Marketplace is not configured; `error` says so")))]
pub async fn register_for_aws_subscription() -> Response {
    let msg = "AWS Marketplace subscriptions are not configured on this server.";
    (
        StatusCode::NOT_IMPLEMENTED,
        axum::Json(serde_json::json!({"error": msg, "detail": msg, "msg": msg})),
    )
        .into_response()
}
