//! One's own account: admin permission check, terms, deletion, activity sessions;
//! and the super admin's lockout list.

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::account::{SessionCreate, SessionEnd, TermsRequest, UserSummary};
use gemba_shared::validate::Bounded;
use serde::Deserialize;

use super::users::summary;
use crate::db::tokens::LoginAttempts;
use crate::db::users::ActivitySession;
use crate::db::{tokens, users};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path, Query, StaleUser};
use crate::state::AppState;

/// The text `true` for a super admin; 403 for everyone else.
#[utoipa::path(get, path = "/account/get-permissions/", tag = "account",
    responses((status = 200, body = bool), (status = 403)))]
pub async fn get_permissions(me: AuthUser) -> ApiResult<&'static str> {
    me.require(Permission::AdminArea)?;
    Ok("true")
}

/// Accept (or withdraw) the terms and conditions.
#[utoipa::path(patch, path = "/account/update-delete/{id}/", tag = "account",
    params(("id" = i64, Path)), request_body = TermsRequest,
    responses((status = 200, body = UserSummary), (status = 404)))]
pub async fn accept_terms(
    State(state): State<AppState>,
    StaleUser(me): StaleUser,
    Path(id): Path<i64>,
    Json(req): Json<TermsRequest>,
) -> ApiResult<axum::Json<UserSummary>> {
    if me.user.id != id {
        return Err(ApiError::NotFound);
    }
    users::set_flag(
        &state.db,
        id,
        "is_policy_accepted",
        req.terms_and_conditions_accepted,
    )
    .await?;
    let u = users::by_id(&state.db, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(axum::Json(summary(&u)))
}

/// Delete an account: one's own, or (for a super admin or organisation admin) a user's.
///
/// An organisation admin deletes only accounts all of whose organisations are theirs
/// too (403 otherwise), never a super admin's; the last super admin cannot be deleted.
#[utoipa::path(delete, path = "/account/update-delete/{id}/", tag = "account",
    params(("id" = i64, Path)), responses((status = 204), (status = 403), (status = 404), (status = 409)))]
pub async fn delete_account(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    if me.user.id != id {
        me.may_manage_user(&state, id).await?;
    }
    let target = users::by_id(&state.db, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    let target_is_admin = target.role() == Some(gemba_shared::Role::Admin);
    if target_is_admin && !me.is_admin() {
        return Err(ApiError::Forbidden);
    }
    if target_is_admin && users::admin_emails(&state.db).await?.len() <= 1 {
        return Err(ApiError::Status(
            StatusCode::CONFLICT,
            "The last super admin cannot be deleted.".into(),
        ));
    }
    if !users::delete(&state.db, id).await? {
        return Err(ApiError::NotFound);
    }
    Ok(StatusCode::NO_CONTENT)
}

/// Super admin: addresses locked out after failed sign-ins.
#[utoipa::path(get, path = "/account/lockout_list-delete/", tag = "account",
    responses((status = 200, body = Vec<LoginAttempts>), (status = 403)))]
pub async fn lockout_list(
    State(state): State<AppState>,
    me: AuthUser,
) -> ApiResult<axum::Json<Vec<LoginAttempts>>> {
    me.require(Permission::ManageLockouts)?;
    Ok(axum::Json(tokens::lockouts(&state.db).await?))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct LockoutQuery {
    /// The locked e-mail address.
    pub user: String,
}

/// Super admin: lift a lockout.
#[utoipa::path(delete, path = "/account/lockout_list-delete/", tag = "account", params(LockoutQuery),
    responses((status = 200, body = Msg), (status = 403), (status = 404)))]
pub async fn lockout_delete(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<LockoutQuery>,
) -> ApiResult<axum::Json<Msg>> {
    me.require(Permission::ManageLockouts)?;
    if !tokens::clear_failures(&state.db, &q.user.trim().to_lowercase()).await? {
        return Err(ApiError::NotFound);
    }
    Ok(axum::Json(Msg::new("Data deleted successfully!")))
}

/// Start an activity session (the portal calls this when it has focus).
#[utoipa::path(post, path = "/account/session/create/", tag = "account", request_body = SessionCreate,
    responses((status = 201, body = ActivitySession), (status = 400)))]
pub async fn session_create(
    State(state): State<AppState>,
    StaleUser(me): StaleUser,
    Json(req): Json<SessionCreate>,
) -> ApiResult<(StatusCode, axum::Json<ActivitySession>)> {
    req.check_lengths()?;
    if req.user != me.user.id {
        return Err(ApiError::field(
            "user",
            "A session can only be created for yourself.",
        ));
    }
    let (browser, version) = (req.browser.trim(), req.browser_version.trim());
    if browser.is_empty() {
        return Err(ApiError::field("browser", "This field may not be blank."));
    }
    let s = users::create_activity(&state.db, me.user.id, browser, version).await?;
    Ok((StatusCode::CREATED, axum::Json(s)))
}

/// Extend an activity session to now.
#[utoipa::path(patch, path = "/account/session/update/{id}/", tag = "account",
    params(("id" = i64, Path)), responses((status = 200, body = SessionEnd), (status = 404)))]
pub async fn session_update(
    State(state): State<AppState>,
    StaleUser(me): StaleUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<SessionEnd>> {
    let end = users::touch_activity(&state.db, id, me.user.id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(axum::Json(SessionEnd { end_time: end }))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct RetrieveSession {
    pub email: String,
    #[serde(rename = "sessionKey")]
    pub session_key: String,
}

/// The latest activity session of the signed-in user, named by e-mail and session key.
#[utoipa::path(get, path = "/account/retrieve-session/", tag = "account", params(RetrieveSession),
    responses((status = 200, body = ActivitySession), (status = 404)))]
pub async fn retrieve_session(
    State(state): State<AppState>,
    StaleUser(me): StaleUser,
    Query(q): Query<RetrieveSession>,
) -> ApiResult<axum::Json<ActivitySession>> {
    if q.email.trim().to_lowercase() != me.user.email || q.session_key != me.session {
        return Err(ApiError::NotFound);
    }
    Ok(axum::Json(
        users::latest_activity(&state.db, me.user.id)
            .await?
            .ok_or(ApiError::NotFound)?,
    ))
}
