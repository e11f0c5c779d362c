//! Second factor: choose a method (e-mail, authenticator app, SMS), send and verify
//! 6-digit codes. These calls take the temporary token of a sign-in in progress.
//!
//! Invariants:
//! - the method can be chosen with a temporary token only while none is set up;
//!   changing a method that exists needs a full session (else a stolen password
//!   alone could redirect the codes);
//! - every wrong code counts as a failed sign-in of the address (the same lockout as
//!   wrong passwords, answered with 429), so codes cannot be guessed at leisure; an
//!   e-mail/SMS code also dies after 5 wrong guesses;
//! - an authenticator code is accepted once: its time step is spent;
//! - authenticator secrets are stored sealed (`crate::totp_seal`), never in plain.

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::account::{LoginUser, OtpRequest, SmsMethodRequest, messages};
use gemba_shared::validate;
use gemba_shared::validate::Bounded;

use super::login::{check_not_locked, login_answer, record_failure};
use crate::auth::{TOTP_STEP_SECS, new_totp_secret, otp_code, token_hash, totp};
use crate::db::{UserRow, now_ms, tokens, users};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{Json, PendingUser};
use crate::state::AppState;

const OTP_TTL_MS: i64 = 10 * 60 * 1000;
/// Most codes sent to one user in ten minutes.
const OTP_SENDS_PER_10_MIN: i64 = 5;

pub const EMAIL: &str = "email";
pub const AUTHENTICATOR: &str = "authenticator_app";
pub const SMS: &str = "sms";

fn may_choose_method(me: &PendingUser) -> ApiResult<()> {
    if me.user.mfa_method.is_some() && !me.full {
        return Err(ApiError::non_field(
            "A verification method is already set up. Sign in fully to change it.",
        ));
    }
    Ok(())
}

/// 429 once a user has been sent as many codes as allowed in ten minutes.
async fn check_send_limit(state: &AppState, user: i64) -> ApiResult<()> {
    if tokens::otp_sent_since(&state.db, user, now_ms() - OTP_TTL_MS).await? >= OTP_SENDS_PER_10_MIN
    {
        return Err(ApiError::TooMany(
            "Too many codes requested. Please try again later.".into(),
        ));
    }
    Ok(())
}

/// Generates, records and sends a code over the user's method.
async fn send_code(state: &AppState, user: &UserRow, method: &str) -> ApiResult<()> {
    check_send_limit(state, user.id).await?;
    let code = otp_code();
    tokens::store_otp(&state.db, user.id, &token_hash(&code), method, OTP_TTL_MS).await?;
    let text = format!("Your gemba verification code is {code}. It expires in 10 minutes.");
    match method {
        EMAIL => {
            state
                .mailer
                .send(
                    std::slice::from_ref(&user.email),
                    "Your verification code",
                    &text,
                )
                .await?;
        }
        SMS => {
            let number = user
                .mobile_number
                .as_deref()
                .ok_or_else(|| ApiError::field("mobile_number", "Add a mobile number first."))?;
            state.mailer.send_sms(number, &text).await?;
        }
        _ => {
            return Err(ApiError::non_field(
                "Use the code shown in your authenticator app.",
            ));
        }
    }
    Ok(())
}

async fn send_for_method(state: &AppState, me: &PendingUser) -> ApiResult<axum::Json<Msg>> {
    let method = me
        .user
        .mfa_method
        .as_deref()
        .ok_or_else(|| ApiError::non_field("Choose how to receive your code first."))?;
    send_code(state, &me.user, method).await?;
    Ok(axum::Json(Msg::new(messages::OTP_SENT)))
}

/// Send a code over the chosen method (e-mail or SMS).
#[utoipa::path(get, path = "/account/send_otp_code/", tag = "account",
    responses((status = 200, body = Msg), (status = 400), (status = 429)))]
pub async fn send_otp_code(
    State(state): State<AppState>,
    me: PendingUser,
) -> ApiResult<axum::Json<Msg>> {
    send_for_method(&state, &me).await
}

/// Send a new code (the previous one stops working).
#[utoipa::path(get, path = "/account/resend_otp/", tag = "account",
    responses((status = 200, body = Msg), (status = 400), (status = 429)))]
pub async fn resend_otp(
    State(state): State<AppState>,
    me: PendingUser,
) -> ApiResult<axum::Json<Msg>> {
    send_for_method(&state, &me).await
}

/// Receive codes by e-mail; a code is sent at once.
#[utoipa::path(patch, path = "/account/set_mfa_method_email/", tag = "account",
    responses((status = 200, body = Msg)))]
pub async fn set_mfa_method_email(
    State(state): State<AppState>,
    me: PendingUser,
) -> ApiResult<axum::Json<Msg>> {
    may_choose_method(&me)?;
    check_send_limit(&state, me.user.id).await?;
    users::set(&state.db, me.user.id, "mfa_method", EMAIL).await?;
    send_code(&state, &me.user, EMAIL).await?;
    Ok(axum::Json(Msg::new(messages::OTP_SENT)))
}

/// Receive codes by SMS at `mobile_number`; a code is sent at once.
#[utoipa::path(patch, path = "/account/set_mfa_method_sms/", tag = "account",
    request_body = SmsMethodRequest, responses((status = 200, body = Msg)))]
pub async fn set_mfa_method_sms(
    State(state): State<AppState>,
    me: PendingUser,
    Json(req): Json<SmsMethodRequest>,
) -> ApiResult<axum::Json<Msg>> {
    req.check_lengths()?;
    may_choose_method(&me)?;
    let number = validate::mobile_number(&req.mobile_number)
        .map_err(|m| ApiError::field("mobile_number", m))?;
    check_send_limit(&state, me.user.id).await?;
    users::set(&state.db, me.user.id, "mobile_number", number.clone()).await?;
    users::set(&state.db, me.user.id, "mfa_method", SMS).await?;
    let user = UserRow {
        mobile_number: Some(number),
        ..me.user.clone()
    };
    send_code(&state, &user, SMS).await?;
    Ok(axum::Json(Msg::new(messages::OTP_SENT)))
}

/// The same as `PATCH set_mfa_method_sms/`.
#[utoipa::path(post, path = "/account/set_mfa_method_sms/", tag = "account",
    request_body = SmsMethodRequest, responses((status = 200, body = Msg)))]
pub async fn set_mfa_method_sms_post(
    state: State<AppState>,
    me: PendingUser,
    req: Json<SmsMethodRequest>,
) -> ApiResult<axum::Json<Msg>> {
    set_mfa_method_sms(state, me, req).await
}

/// A new authenticator-app secret as a QR code (PNG) to scan; confirm it with
/// `set_mfa_method_authenticator_app/`.
#[utoipa::path(patch, path = "/account/get_qr_code/", tag = "account",
    responses((status = 200, content_type = "image/png", description = "QR code")))]
pub async fn get_qr_code(State(state): State<AppState>, me: PendingUser) -> ApiResult<Response> {
    may_choose_method(&me)?;
    let secret = new_totp_secret();
    let sealed = state.totp.seal(me.user.id, &secret);
    users::set(&state.db, me.user.id, "totp_pending_secret", sealed).await?;
    let png = totp(&secret, &me.user.email)?
        .get_qr_png()
        .map_err(|e| anyhow::anyhow!("qr code: {e}"))?;
    Ok((
        [
            (header::CONTENT_TYPE, "image/png"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        png,
    )
        .into_response())
}

/// Confirm the authenticator app with a code it shows; completes the sign-in.
#[utoipa::path(patch, path = "/account/set_mfa_method_authenticator_app/", tag = "account",
    request_body = OtpRequest, responses((status = 200, body = LoginUser), (status = 400)))]
pub async fn set_mfa_method_authenticator_app(
    State(state): State<AppState>,
    me: PendingUser,
    Json(req): Json<OtpRequest>,
) -> ApiResult<axum::Json<LoginUser>> {
    req.check_lengths()?;
    may_choose_method(&me)?;
    let code = req.otp.trim();
    validate::otp(code).map_err(|m| ApiError::field("otp", m))?;
    let sealed = me
        .user
        .totp_pending_secret
        .clone()
        .ok_or_else(|| ApiError::non_field("Scan the QR code first."))?;
    check_not_locked(&state, &me.user.email).await?;
    if !check_totp(&state, &me.user, &sealed, code).await? {
        record_failure(&state, &me.user.email).await?;
        return Err(ApiError::field("otp", messages::OTP_INVALID));
    }
    users::set(&state.db, me.user.id, "totp_secret", sealed).await?;
    users::set(&state.db, me.user.id, "totp_pending_secret", None::<String>).await?;
    users::set(&state.db, me.user.id, "mfa_method", AUTHENTICATOR).await?;
    complete(&state, &me).await
}

/// Verify a 6-digit code; answers the full session.
#[utoipa::path(post, path = "/account/verify_otp_code/", tag = "account",
    request_body = OtpRequest, responses((status = 200, body = LoginUser), (status = 400)))]
pub async fn verify_otp_code(
    State(state): State<AppState>,
    me: PendingUser,
    Json(req): Json<OtpRequest>,
) -> ApiResult<axum::Json<LoginUser>> {
    req.check_lengths()?;
    let code = req.otp.trim();
    validate::otp(code).map_err(|m| ApiError::field("otp", m))?;
    if me.user.mfa_method.is_none() {
        return Err(ApiError::non_field(
            "Choose how to receive your code first.",
        ));
    }
    check_not_locked(&state, &me.user.email).await?;
    let ok = match me.user.mfa_method.as_deref() {
        Some(AUTHENTICATOR) => {
            let secret = me.user.totp_secret.as_deref().unwrap_or_default();
            check_totp(&state, &me.user, secret, code).await?
        }
        _ => tokens::check_otp(&state.db, me.user.id, &token_hash(code)).await?,
    };
    if !ok {
        record_failure(&state, &me.user.email).await?;
        return Err(ApiError::field("otp", messages::OTP_INVALID));
    }
    complete(&state, &me).await
}

/// Checks an authenticator code against the `sealed` secret for the current time step
/// and its neighbours (clock drift), and spends the step it matched: a code passes once.
/// A secret this server's key does not open is a clear 500 for the operator, not a
/// wrong code.
async fn check_totp(state: &AppState, user: &UserRow, sealed: &str, code: &str) -> ApiResult<bool> {
    let secret = state.totp.open(user.id, sealed).map_err(|e| {
        tracing::error!(user = user.id, error = %e, "cannot open an authenticator secret");
        ApiError::Status(
            axum::http::StatusCode::INTERNAL_SERVER_ERROR,
            "Your authenticator app cannot be checked: this server's TOTP key does not \
             open its secret. An administrator must restore the key (`totp_key`)."
                .into(),
        )
    })?;
    let t = totp(&secret, &user.email)?;
    let step = (now_ms() / 1000) as u64 / TOTP_STEP_SECS;
    for s in [step.saturating_sub(1), step, step + 1] {
        if t.check(code, s * TOTP_STEP_SECS) {
            return Ok(users::spend_totp_step(&state.db, user.id, s as i64).await?);
        }
    }
    Ok(false)
}

/// Marks the sign-in verified and answers the full session.
async fn complete(state: &AppState, me: &PendingUser) -> ApiResult<axum::Json<LoginUser>> {
    let ttl = state.settings.refresh_token_ttl_secs as i64 * 1000;
    tokens::mark_session_verified(&state.db, &me.session, ttl).await?;
    tokens::clear_failures(&state.db, &me.user.email).await?;
    let user = users::by_id(&state.db, me.user.id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(axum::Json(
        login_answer(state, &user, &me.session, true).await?,
    ))
}
