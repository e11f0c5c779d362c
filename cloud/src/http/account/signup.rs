//! Sign-up: register, e-mail verification (and resend), the admin notification of
//! accounts awaiting approval.

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::account::{
    EmailRequest, EmailVerifiedFlag, RegisterRequest, UserSummary, messages,
};
use gemba_shared::validate::Bounded;
use gemba_shared::{Permission, validate};

use super::users::summary;
use crate::auth::{random_token, token_hash};
use crate::db::{UserRow, tokens, users};
use crate::http::client_ip::ClientIp;
use crate::http::error::{ApiError, ApiResult, is_unique_violation};
use crate::http::extract::{AuthUser, Json, Path};
use crate::state::AppState;

pub const VERIFY_TTL_MS: i64 = 3 * 24 * 3600 * 1000;

/// Mails a fresh verification link.
pub(crate) async fn send_verification(state: &AppState, user: &UserRow) -> ApiResult<()> {
    let token = random_token();
    tokens::store_email_token(
        &state.db,
        &token_hash(&token),
        user.id,
        "verify",
        None,
        VERIFY_TTL_MS,
    )
    .await?;
    let link = format!("{}/verify-email/{token}", state.settings.public_url());
    let body = format!(
        "Hello {},\n\nconfirm your e-mail address for gemba by opening this link:\n\n{link}\n\n\
         The link is valid for 3 days. If you did not sign up, ignore this message.\n",
        user.name
    );
    state
        .mailer
        .send(
            std::slice::from_ref(&user.email),
            "Verify your e-mail address",
            &body,
        )
        .await?;
    Ok(())
}

/// Tells the super admins that an account awaits approval.
pub(crate) async fn notify_admins(state: &AppState, user: &UserRow) -> ApiResult<()> {
    let admins = users::admin_emails(&state.db).await?;
    if admins.is_empty() {
        tracing::warn!(user = user.id, "no super admin to approve a new account");
        return Ok(());
    }
    let body = format!(
        "{} {} <{}> has signed up and awaits approval.\n\nApprove the account with a role, then \
         assign an organisation: {}/admin/pending-users\n",
        user.name,
        user.lastname,
        user.email,
        state.settings.public_url()
    );
    state
        .mailer
        .send(&admins, "A new gemba account awaits approval", &body)
        .await?;
    Ok(())
}

/// Create an account; a verification e-mail is sent.
#[utoipa::path(post, path = "/account/register", tag = "account", request_body = RegisterRequest,
    responses((status = 201, body = Msg), (status = 400, description = "field errors"),
        (status = 429, description = "too many e-mails")))]
pub async fn register(
    State(state): State<AppState>,
    client: ClientIp,
    Json(req): Json<RegisterRequest>,
) -> ApiResult<(StatusCode, axum::Json<Msg>)> {
    req.check_lengths()?;
    validate::person_name("Name", &req.name).map_err(|m| ApiError::field("name", m))?;
    if !req.lastname.trim().is_empty() {
        validate::person_name("Last name", &req.lastname)
            .map_err(|m| ApiError::field("lastname", m))?;
    }
    validate::email(&req.email).map_err(|m| ApiError::field("email", m))?;
    validate::password(&req.password).map_err(|m| ApiError::field("password", m))?;
    client.may_mail(&state, &[&req.email])?;
    let hash = state.passwords.hash(req.password.clone()).await?;
    let new = users::NewUser {
        email: &req.email,
        name: &req.name,
        lastname: &req.lastname,
        password_hash: &hash,
        role: None,
        is_active: false,
        is_email_verified: false,
        is_approved: false,
        require_otp: state.settings.require_otp,
    };
    let id = match users::insert(&state.db, &new).await {
        Ok(id) => id,
        Err(e) if is_unique_violation(&e) => {
            return Err(ApiError::field(
                "email",
                "user with this email already exists.",
            ));
        }
        Err(e) => return Err(e.into()),
    };
    let user = users::by_id(&state.db, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    send_verification(&state, &user).await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(Msg::new(messages::VERIFICATION_SENT)),
    ))
}

/// Confirm an e-mail address with the mailed token. An account awaiting approval
/// answers 'Admin has been notified…', and the super admins get an e-mail.
#[utoipa::path(patch, path = "/account/verify-email/{token}", tag = "account",
    params(("token" = String, Path)), responses((status = 200, body = Msg), (status = 400)))]
pub async fn verify_email(
    State(state): State<AppState>,
    Path(token): Path<String>,
) -> ApiResult<axum::Json<Msg>> {
    let (uid, _) = tokens::use_email_token(&state.db, &token_hash(&token), "verify")
        .await?
        .ok_or_else(|| ApiError::field("token", messages::TOKEN_INVALID))?;
    users::set_flag(&state.db, uid, "is_email_verified", true).await?;
    let user = users::by_id(&state.db, uid)
        .await?
        .ok_or(ApiError::NotFound)?;
    if !user.is_approved {
        notify_admins(&state, &user).await?;
        return Ok(axum::Json(Msg::new(messages::ADMIN_NOTIFIED)));
    }
    Ok(axum::Json(Msg::new("Your e-mail address is verified.")))
}

/// Send the verification e-mail again. Answers the same whether or not the address
/// is known, so it cannot be used to find accounts.
#[utoipa::path(post, path = "/account/resend-verification-email", tag = "account",
    request_body = EmailRequest, responses((status = 200, body = Msg), (status = 429, description = "too many e-mails")))]
pub async fn resend_verification_email(
    State(state): State<AppState>,
    client: ClientIp,
    Json(req): Json<EmailRequest>,
) -> ApiResult<axum::Json<Msg>> {
    req.check_lengths()?;
    validate::email(&req.email).map_err(|m| ApiError::field("email", m))?;
    client.may_mail(&state, &[&req.email])?;
    if let Some(user) = users::by_email(&state.db, &req.email).await?
        && !user.is_email_verified
    {
        send_verification(&state, &user).await?;
    }
    Ok(axum::Json(Msg::new(messages::VERIFICATION_SENT_AGAIN)))
}

/// Remind the super admins of an account awaiting approval.
#[utoipa::path(post, path = "/account/admin-verification-email", tag = "account",
    request_body = EmailRequest, responses((status = 200, body = Msg), (status = 429, description = "too many e-mails")))]
pub async fn admin_verification_email(
    State(state): State<AppState>,
    client: ClientIp,
    Json(req): Json<EmailRequest>,
) -> ApiResult<axum::Json<Msg>> {
    req.check_lengths()?;
    validate::email(&req.email).map_err(|m| ApiError::field("email", m))?;
    // Counted against the account's address: the reminder goes to the super admins.
    client.may_mail(&state, &[&req.email])?;
    if let Some(user) = users::by_email(&state.db, &req.email).await?
        && user.is_email_verified
        && !user.is_approved
    {
        notify_admins(&state, &user).await?;
    }
    Ok(axum::Json(Msg::new(messages::ADMIN_NOTIFIED)))
}

/// Super admin: mark a user's e-mail verified (or not).
#[utoipa::path(patch, path = "/account/admin-verification-email/{id}/", tag = "account",
    params(("id" = i64, Path)), request_body = EmailVerifiedFlag,
    responses((status = 200, body = UserSummary), (status = 403), (status = 404)))]
pub async fn set_email_verified(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<EmailVerifiedFlag>,
) -> ApiResult<axum::Json<UserSummary>> {
    me.require(Permission::ManageAllUsers)?;
    users::by_id(&state.db, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    users::set_flag(&state.db, id, "is_email_verified", req.is_email_verified).await?;
    let user = users::by_id(&state.db, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(axum::Json(summary(&user)))
}
