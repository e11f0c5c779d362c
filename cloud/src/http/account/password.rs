//! Passwords and e-mail address: forgot/reset, change (also when required: 303),
//! a workstation user's password set by an organisation admin, change of e-mail.

use axum::extract::State;
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::account::{
    ChangeEmailRequest, ChangePasswordRequest, EmailRequest, ResetPasswordRequest, TokenRequest,
    WorkstationPasswordRequest, messages,
};
use gemba_shared::validate::Bounded;
use gemba_shared::{Permission, Role, validate};

use super::login::{check_not_locked, record_failure};
use crate::auth::{random_token, token_hash};
use crate::db::{tokens, users};
use crate::http::client_ip::ClientIp;
use crate::http::error::{ApiError, ApiResult, is_unique_violation};
use crate::http::extract::{AuthUser, Json, StaleUser};
use crate::state::AppState;

const RESET_TTL_MS: i64 = 3600 * 1000;
/// How long `forgot_password` takes at least, known address or not: the reset link's
/// token and mail (a few milliseconds) fit well inside it, so the answer's timing does
/// not tell which addresses have accounts (`docs/benchmarks.md`, "forgot_password").
const FORGOT_FLOOR: std::time::Duration = std::time::Duration::from_millis(250);
const CHANGE_EMAIL_TTL_MS: i64 = 24 * 3600 * 1000;

/// Stores a new password. `set_by_other`: someone else chose it (an organisation
/// admin), so its owner must change it before anything else (303 on every other call).
async fn set_password(
    state: &AppState,
    user: i64,
    password: &str,
    set_by_other: bool,
) -> ApiResult<()> {
    validate::password(password).map_err(|m| ApiError::field("password", m))?;
    let hash = state.passwords.hash(password.to_string()).await?;
    users::set_password(&state.db, user, &hash, set_by_other).await?;
    Ok(())
}

/// Mail a password-reset link. Answers the same, in the same time, whether or not the
/// address is known.
#[utoipa::path(patch, path = "/account/forgot_password/", tag = "account",
    request_body = EmailRequest, responses((status = 200, body = Msg), (status = 429, description = "too many e-mails")))]
pub async fn forgot_password(
    State(state): State<AppState>,
    client: ClientIp,
    Json(req): Json<EmailRequest>,
) -> ApiResult<axum::Json<Msg>> {
    req.check_lengths()?;
    validate::email(&req.email).map_err(|m| ApiError::field("email", m))?;
    client.may_mail(&state, &[&req.email])?;
    let floor = tokio::time::Instant::now() + FORGOT_FLOOR;
    let sent = mail_reset_link(&state, &req.email).await;
    tokio::time::sleep_until(floor).await;
    sent?;
    Ok(axum::Json(Msg::new(
        "If the address belongs to an account, a reset link has been sent.",
    )))
}

/// The reset link to `email`'s account, if it has one.
async fn mail_reset_link(state: &AppState, email: &str) -> ApiResult<()> {
    if let Some(user) = users::by_email(&state.db, email).await? {
        let token = random_token();
        tokens::store_email_token(
            &state.db,
            &token_hash(&token),
            user.id,
            "reset",
            None,
            RESET_TTL_MS,
        )
        .await?;
        let link = format!("{}/reset-password/{token}", state.settings.public_url());
        let body = format!(
            "Hello {},\n\nset a new gemba password by opening this link (valid for one hour):\n\n\
             {link}\n\nIf you did not ask for this, ignore this message.\n",
            user.name
        );
        state
            .mailer
            .send(
                std::slice::from_ref(&user.email),
                "Reset your password",
                &body,
            )
            .await?;
    }
    Ok(())
}

/// Set a new password with the mailed token; every session of the user ends.
#[utoipa::path(patch, path = "/account/reset_password/", tag = "account",
    request_body = ResetPasswordRequest, responses((status = 200, body = Msg), (status = 400)))]
pub async fn reset_password(
    State(state): State<AppState>,
    Json(req): Json<ResetPasswordRequest>,
) -> ApiResult<axum::Json<Msg>> {
    req.check_lengths()?;
    validate::password(&req.password).map_err(|m| ApiError::field("password", m))?;
    let (uid, _) = tokens::use_email_token(&state.db, &token_hash(&req.token), "reset")
        .await?
        .ok_or_else(|| ApiError::field("token", messages::TOKEN_INVALID))?;
    set_password(&state, uid, &req.password, false).await?;
    // Other reset links mailed earlier die with this one.
    tokens::spend_user_email_tokens(&state.db, uid, "reset").await?;
    tokens::revoke_user_sessions(&state.db, uid, None).await?;
    tokens::clear_failures(
        &state.db,
        &users::by_id(&state.db, uid)
            .await?
            .map(|u| u.email)
            .unwrap_or_default(),
    )
    .await?;
    Ok(axum::Json(Msg::new(
        "Your password has been reset. Please sign in.",
    )))
}

/// Change one's own password (also reachable while a change is required); other
/// sessions end.
#[utoipa::path(patch, path = "/account/request_change_password/", tag = "account",
    request_body = ChangePasswordRequest, responses((status = 200, body = Msg), (status = 400)))]
pub async fn request_change_password(
    State(state): State<AppState>,
    StaleUser(me): StaleUser,
    Json(req): Json<ChangePasswordRequest>,
) -> ApiResult<axum::Json<Msg>> {
    req.check_lengths()?;
    // A stolen access token must not buy unlimited guesses at the password.
    check_not_locked(&state, &me.user.email).await?;
    if !state
        .passwords
        .verify(
            req.old_password.clone(),
            Some(me.user.password_hash.clone()),
        )
        .await
    {
        record_failure(&state, &me.user.email).await?;
        return Err(ApiError::field(
            "old_password",
            "Your old password is not correct.",
        ));
    }
    if req.old_password == req.new_password {
        return Err(ApiError::field(
            "new_password",
            "The new password must differ from the old one.",
        ));
    }
    validate::password(&req.new_password).map_err(|m| ApiError::field("new_password", m))?;
    set_password(&state, me.user.id, &req.new_password, false).await?;
    tokens::revoke_user_sessions(&state.db, me.user.id, Some(&me.session)).await?;
    Ok(axum::Json(Msg::new("Your changes have been saved!")))
}

/// An organisation admin sets a workstation user's password (the device signs in with it).
/// The user's sessions end, and since someone else chose the password, the user must
/// change it at the next sign-in (every other call answers 303 until then).
#[utoipa::path(patch, path = "/account/reset_workstation_user_password/", tag = "account",
    request_body = WorkstationPasswordRequest,
    responses((status = 200, body = Msg), (status = 400), (status = 403), (status = 404)))]
pub async fn reset_workstation_user_password(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<WorkstationPasswordRequest>,
) -> ApiResult<axum::Json<Msg>> {
    req.check_lengths()?;
    me.require(Permission::ManageOrgUsers)?;
    let target = users::by_id(&state.db, req.user)
        .await?
        .ok_or(ApiError::NotFound)?;
    me.may_manage_user(&state, target.id).await?;
    if target.role() != Some(Role::WorkstationUser) {
        return Err(ApiError::field(
            "user",
            "Only a workstation user's password can be set here.",
        ));
    }
    set_password(&state, target.id, &req.password, true).await?;
    tokens::revoke_user_sessions(&state.db, target.id, None).await?;
    Ok(axum::Json(Msg::new("Your changes have been saved!")))
}

/// Ask to change one's e-mail address: a link goes to the new address.
#[utoipa::path(post, path = "/account/request_change_email/", tag = "account",
    request_body = ChangeEmailRequest, responses((status = 200, body = Msg), (status = 400),
        (status = 429, description = "too many e-mails")))]
pub async fn request_change_email(
    State(state): State<AppState>,
    me: AuthUser,
    client: ClientIp,
    Json(req): Json<ChangeEmailRequest>,
) -> ApiResult<axum::Json<Msg>> {
    req.check_lengths()?;
    validate::email(&req.email).map_err(|m| ApiError::field("email", m))?;
    check_not_locked(&state, &me.user.email).await?;
    if !state
        .passwords
        .verify(req.password.clone(), Some(me.user.password_hash.clone()))
        .await
    {
        record_failure(&state, &me.user.email).await?;
        return Err(ApiError::field("password", "Your password is not correct."));
    }
    let new_email = req.email.trim().to_lowercase();
    if users::by_email(&state.db, &new_email).await?.is_some() {
        return Err(ApiError::field(
            "email",
            "user with this email already exists.",
        ));
    }
    client.may_mail(&state, &[&new_email])?;
    let token = random_token();
    tokens::store_email_token(
        &state.db,
        &token_hash(&token),
        me.user.id,
        "change_email",
        Some(&new_email),
        CHANGE_EMAIL_TTL_MS,
    )
    .await?;
    // Profile Setting is the labeler area's own screen for a labeler (spec section 2).
    let setting = if me.role == gemba_shared::Role::Labeler {
        "labeler/setting"
    } else {
        "user/setting"
    };
    let body = format!(
        "Hello {},\n\nconfirm {new_email} as your new gemba address with this code:\n\n{token}\n\n\
         or open {}/{setting}?verify-email-change={token}\n",
        me.user.name,
        state.settings.public_url()
    );
    state
        .mailer
        .send(
            std::slice::from_ref(&new_email),
            "Confirm your new e-mail address",
            &body,
        )
        .await?;
    Ok(axum::Json(Msg::new(
        "A confirmation link has been sent to the new address.",
    )))
}

/// Confirm the new e-mail address with the mailed token.
#[utoipa::path(patch, path = "/account/verify-email-change/", tag = "account",
    request_body = TokenRequest, responses((status = 200, body = Msg), (status = 400)))]
pub async fn verify_email_change(
    State(state): State<AppState>,
    Json(req): Json<TokenRequest>,
) -> ApiResult<axum::Json<Msg>> {
    req.check_lengths()?;
    let (uid, new_email) =
        tokens::use_email_token(&state.db, &token_hash(&req.token), "change_email")
            .await?
            .ok_or_else(|| ApiError::field("token", messages::TOKEN_INVALID))?;
    let new_email = new_email.ok_or_else(|| ApiError::field("token", messages::TOKEN_INVALID))?;
    if users::by_email(&state.db, &new_email).await?.is_some() {
        return Err(ApiError::field(
            "email",
            "user with this email already exists.",
        ));
    }
    match users::set(&state.db, uid, "email", new_email).await {
        Ok(()) => {}
        // Taken between the check and the update.
        Err(e) if is_unique_violation(&e) => {
            return Err(ApiError::field(
                "email",
                "user with this email already exists.",
            ));
        }
        Err(e) => return Err(e.into()),
    }
    Ok(axum::Json(Msg::new(
        "Your e-mail address has been changed.",
    )))
}
