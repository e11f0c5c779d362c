//! `/api/feature_control/…` (spec section 7 "Feature control"): features and the
//! organisations subscribed to them (super admin), event notifications (an
//! organisation's admins for their own organisation, the super admin for any), and
//! `send_email`.
//!
//! Tenancy: a user other than the super admin only ever reaches rows of the
//! organisation the request acts in ([`AuthUser::org`]); another organisation's ids
//! answer 404, as unknown ones do.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::feature_control::{
    EventNotification, EventNotificationCreate, EventNotificationPatch, Feature, FeatureCreate,
    SendEmail, SendEmailResult, SubscribedFeature, SubscribedFeatureCreate,
};
use gemba_shared::validate::Bounded;
use gemba_shared::{Permission, validate};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::{features, orgs, users};
use crate::http::client_ip::ClientIp;
use crate::http::error::{ApiError, ApiResult, is_unique_violation};
use crate::http::extract::{AuthUser, Json, Query};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(feature_list, feature_create, feature_delete))
        .routes(routes!(
            subscribed_feature_list,
            subscribed_feature_create,
            subscribed_feature_delete
        ))
        .routes(routes!(event_notification_list, event_notification_create))
        .routes(routes!(
            event_notification_get,
            event_notification_patch,
            event_notification_delete
        ))
        .routes(routes!(get_event_notification))
        .routes(routes!(send_email))
}

const DELETED: &str = "Data deleted successfully!";

/// A required integer query parameter, with field errors in the API's shape.
fn int_param(field: &str, value: Option<&str>) -> ApiResult<i64> {
    let v = value
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| ApiError::field(field, "This field is required."))?;
    v.parse()
        .map_err(|_| ApiError::field(field, "A valid integer is required."))
}

/// An id in the path: anything that is not one is simply not found.
fn path_id(raw: &str) -> ApiResult<i64> {
    raw.parse().map_err(|_| ApiError::NotFound)
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct IdQuery {
    /// The id of the row to delete.
    #[serde(default)]
    #[param(value_type = i64)]
    pub id: Option<String>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct OrgQuery {
    /// Super admin: only this organisation's (all when absent). Others: may only name
    /// the organisation the request acts in.
    #[serde(default)]
    #[param(value_type = Option<i64>)]
    pub organization: Option<String>,
}

/// The organisations a list call covers: `None` is all (super admin only). An
/// organisation that does not exist is a 404, as in `linked_users_list/`.
async fn list_scope(state: &AppState, me: &AuthUser, q: &OrgQuery) -> ApiResult<Option<i64>> {
    let asked = match q.organization.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(v) => Some(int_param("organization", Some(v))?),
    };
    if me.is_admin() {
        if let Some(o) = asked {
            orgs::by_id(&state.db, o).await?.ok_or(ApiError::NotFound)?;
        }
        return Ok(asked);
    }
    let own = me.org()?;
    match asked {
        Some(o) if o != own => Err(ApiError::NotFound),
        _ => Ok(Some(own)),
    }
}

/// May `me` reach rows of organisation `org`: the super admin always, others only in
/// the organisation the request acts in.
fn in_scope(me: &AuthUser, org: i64) -> bool {
    me.is_admin() || me.org == Some(org)
}

// ----- features -------------------------------------------------------------------------

/// Every feature (any signed-in user).
#[utoipa::path(get, path = "/feature_control/feature/", tag = "feature_control",
    responses((status = 200, body = Vec<Feature>)))]
pub async fn feature_list(
    State(state): State<AppState>,
    me: AuthUser,
) -> ApiResult<axum::Json<Vec<Feature>>> {
    me.require(Permission::ViewFeatures)?;
    Ok(axum::Json(features::list(&state.db).await?))
}

/// Super admin: add a feature.
#[utoipa::path(post, path = "/feature_control/feature/", tag = "feature_control",
    request_body = FeatureCreate,
    responses((status = 201, body = Feature), (status = 400), (status = 403)))]
pub async fn feature_create(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<FeatureCreate>,
) -> ApiResult<(StatusCode, axum::Json<Feature>)> {
    req.check_lengths()?;
    me.require(Permission::ManageFeatures)?;
    let name = validate::feature_name(&req.name).map_err(|m| ApiError::field("name", m))?;
    match features::insert(&state.db, name).await {
        Ok(f) => Ok((StatusCode::CREATED, axum::Json(f))),
        Err(e) if is_unique_violation(&e) => Err(ApiError::field(
            "name",
            "feature with this name already exists.",
        )),
        Err(e) => Err(e.into()),
    }
}

/// Super admin: delete a feature (`?id=`) and every subscription to it.
#[utoipa::path(delete, path = "/feature_control/feature/", tag = "feature_control",
    params(IdQuery), responses((status = 200, body = Msg), (status = 400), (status = 403), (status = 404)))]
pub async fn feature_delete(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<IdQuery>,
) -> ApiResult<axum::Json<Msg>> {
    me.require(Permission::ManageFeatures)?;
    let id = int_param("id", q.id.as_deref())?;
    if !features::delete(&state.db, id).await? {
        return Err(ApiError::NotFound);
    }
    Ok(axum::Json(Msg::new(DELETED)))
}

// ----- subscribed features --------------------------------------------------------------

/// The features organisations are subscribed to: the super admin sees all (or one
/// organisation's with `?organization=`), others their own organisation's.
#[utoipa::path(get, path = "/feature_control/subscribed_feature/", tag = "feature_control",
    params(OrgQuery), responses((status = 200, body = Vec<SubscribedFeature>), (status = 400), (status = 404)))]
pub async fn subscribed_feature_list(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<OrgQuery>,
) -> ApiResult<axum::Json<Vec<SubscribedFeature>>> {
    me.require(Permission::ViewFeatures)?;
    let scope = list_scope(&state, &me, &q).await?;
    Ok(axum::Json(features::subscriptions(&state.db, scope).await?))
}

/// Super admin: subscribe an organisation to a feature. Posting an existing pair sets
/// its `is_suppressed` (200) instead of creating it (201).
#[utoipa::path(post, path = "/feature_control/subscribed_feature/", tag = "feature_control",
    request_body = SubscribedFeatureCreate,
    responses((status = 201, body = SubscribedFeature), (status = 200, body = SubscribedFeature),
        (status = 400), (status = 403)))]
pub async fn subscribed_feature_create(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<SubscribedFeatureCreate>,
) -> ApiResult<(StatusCode, axum::Json<SubscribedFeature>)> {
    me.require(Permission::ManageFeatures)?;
    features::by_id(&state.db, req.feature)
        .await?
        .ok_or_else(|| ApiError::field("Feature", "Unknown feature."))?;
    orgs::by_id(&state.db, req.organization)
        .await?
        .ok_or_else(|| ApiError::field("Organization", "Unknown organization."))?;
    let (s, created) =
        features::subscribe(&state.db, req.feature, req.organization, req.is_suppressed).await?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, axum::Json(s)))
}

/// Super admin: end a subscription (`?id=`); the feature is off again for that
/// organisation.
#[utoipa::path(delete, path = "/feature_control/subscribed_feature/", tag = "feature_control",
    params(IdQuery), responses((status = 200, body = Msg), (status = 400), (status = 403), (status = 404)))]
pub async fn subscribed_feature_delete(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<IdQuery>,
) -> ApiResult<axum::Json<Msg>> {
    me.require(Permission::ManageFeatures)?;
    let id = int_param("id", q.id.as_deref())?;
    if !features::unsubscribe(&state.db, id).await? {
        return Err(ApiError::NotFound);
    }
    Ok(axum::Json(Msg::new(DELETED)))
}

// ----- event notifications --------------------------------------------------------------

fn check_event_type(v: &str) -> ApiResult<()> {
    validate::event_type(v).map_err(|m| ApiError::field("event_type", m))
}

/// The shared rule, and each address must also be one the mailer can send to.
fn check_recipients(v: &[String]) -> ApiResult<Vec<String>> {
    let list = validate::recipients(v).map_err(|m| ApiError::field("recipients", m))?;
    if let Some(bad) = list.iter().find(|a| a.parse::<lettre::Address>().is_err()) {
        return Err(ApiError::field(
            "recipients",
            format!("Enter a valid email address: \"{bad}\"."),
        ));
    }
    Ok(list)
}

/// Is `address` a user `me` may mail: a member of the request's organisation, or for a
/// super admin any user?
async fn may_be_mailed(state: &AppState, me: &AuthUser, address: &str) -> ApiResult<bool> {
    let Some(user) = users::by_email(&state.db, address).await? else {
        return Ok(false);
    };
    if me.is_admin() {
        return Ok(true);
    }
    Ok(users::is_member(&state.db, user.id, me.org()?).await?)
}

fn duplicate_event(e: sqlx::Error) -> ApiError {
    ApiError::unique_as(
        e,
        "event_type",
        "This organization already has a notification for this event.",
    )
}

/// A notification by id, if `me` may reach it.
async fn reachable(state: &AppState, me: &AuthUser, raw: &str) -> ApiResult<EventNotification> {
    me.require(Permission::ManageEventNotifications)?;
    let n = features::notification(&state.db, path_id(raw)?)
        .await?
        .ok_or(ApiError::NotFound)?;
    if !in_scope(me, n.organization) {
        return Err(ApiError::NotFound);
    }
    Ok(n)
}

/// Event notifications: the super admin sees all (or one organisation's with
/// `?organization=`), an organisation's admins their own.
#[utoipa::path(get, path = "/feature_control/event_notifications", tag = "feature_control",
    params(OrgQuery), responses((status = 200, body = Vec<EventNotification>), (status = 400), (status = 403), (status = 404)))]
pub async fn event_notification_list(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<OrgQuery>,
) -> ApiResult<axum::Json<Vec<EventNotification>>> {
    me.require(Permission::ManageEventNotifications)?;
    let scope = list_scope(&state, &me, &q).await?;
    Ok(axum::Json(features::notifications(&state.db, scope).await?))
}

/// Add an event notification: who is e-mailed when the event happens.
#[utoipa::path(post, path = "/feature_control/event_notifications", tag = "feature_control",
    request_body = EventNotificationCreate,
    responses((status = 201, body = EventNotification), (status = 400), (status = 403)))]
pub async fn event_notification_create(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<EventNotificationCreate>,
) -> ApiResult<(StatusCode, axum::Json<EventNotification>)> {
    req.check_lengths()?;
    me.require(Permission::ManageEventNotifications)?;
    check_event_type(&req.event_type)?;
    let recipients = check_recipients(&req.recipients)?;
    let org = match req.organization.or(me.org) {
        Some(o) => o,
        None => return Err(ApiError::field("Organization", "This field is required.")),
    };
    // Another tenant's organisation reads as an unknown one.
    if !in_scope(&me, org) || orgs::by_id(&state.db, org).await?.is_none() {
        return Err(ApiError::field("Organization", "Unknown organization."));
    }
    let n = features::insert_notification(&state.db, org, &req.event_type, &recipients)
        .await
        .map_err(duplicate_event)?;
    Ok((StatusCode::CREATED, axum::Json(n)))
}

/// One event notification.
#[utoipa::path(get, path = "/feature_control/event_notification/{id}", tag = "feature_control",
    params(("id" = i64, Path)),
    responses((status = 200, body = EventNotification), (status = 403), (status = 404)))]
pub async fn event_notification_get(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<EventNotification>> {
    Ok(axum::Json(reachable(&state, &me, &id).await?))
}

/// Change an event notification's event type or recipients.
#[utoipa::path(patch, path = "/feature_control/event_notification/{id}", tag = "feature_control",
    params(("id" = i64, Path)), request_body = EventNotificationPatch,
    responses((status = 200, body = EventNotification), (status = 400), (status = 403), (status = 404)))]
pub async fn event_notification_patch(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<String>,
    Json(req): Json<EventNotificationPatch>,
) -> ApiResult<axum::Json<EventNotification>> {
    req.check_lengths()?;
    let cur = reachable(&state, &me, &id).await?;
    if req.organization.is_some_and(|o| o != cur.organization) {
        return Err(ApiError::field(
            "Organization",
            "The organization of an event notification cannot be changed.",
        ));
    }
    let event_type = req.event_type.unwrap_or(cur.event_type);
    check_event_type(&event_type)?;
    let recipients = match req.recipients {
        Some(r) => check_recipients(&r)?,
        None => cur.recipients,
    };
    let n = features::update_notification(&state.db, cur.id, &event_type, &recipients)
        .await
        .map_err(duplicate_event)?
        .ok_or(ApiError::NotFound)?;
    Ok(axum::Json(n))
}

/// Delete an event notification.
#[utoipa::path(delete, path = "/feature_control/event_notification/{id}", tag = "feature_control",
    params(("id" = i64, Path)),
    responses((status = 200, body = Msg), (status = 403), (status = 404)))]
pub async fn event_notification_delete(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<Msg>> {
    let cur = reachable(&state, &me, &id).await?;
    if !features::delete_notification(&state.db, cur.id).await? {
        return Err(ApiError::NotFound);
    }
    Ok(axum::Json(Msg::new(DELETED)))
}

/// The notification of organisation `org` for event `event` (e.g. `Task%20Update`):
/// who is e-mailed when it happens. 404 when none is set.
#[utoipa::path(get, path = "/feature_control/get_event_notification/{org}/{event}", tag = "feature_control",
    params(("org" = i64, Path), ("event" = String, Path, description = "an event type: 'Task Update'")),
    responses((status = 200, body = EventNotification), (status = 400), (status = 403), (status = 404)))]
pub async fn get_event_notification(
    State(state): State<AppState>,
    me: AuthUser,
    Path((org, event)): Path<(String, String)>,
) -> ApiResult<axum::Json<EventNotification>> {
    me.require(Permission::ManageEventNotifications)?;
    let org = path_id(&org)?;
    if !in_scope(&me, org) {
        return Err(ApiError::NotFound);
    }
    check_event_type(&event)?;
    let n = features::notification_for(&state.db, org, &event)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(axum::Json(n))
}

// ----- e-mail ---------------------------------------------------------------------------

/// Send a plain-text e-mail to users of the organisation (a super admin: to any user).
/// It is kept in the outbox (and as an `.eml` file) and, with SMTP configured, delivered
/// in the background; the outbox row records the result.
#[utoipa::path(post, path = "/feature_control/send_email", tag = "feature_control",
    request_body = SendEmail,
    responses((status = 200, body = SendEmailResult), (status = 400), (status = 403),
        (status = 429, description = "too many e-mails")))]
pub async fn send_email(
    State(state): State<AppState>,
    me: AuthUser,
    client: ClientIp,
    Json(req): Json<SendEmail>,
) -> ApiResult<axum::Json<SendEmailResult>> {
    req.check_lengths()?;
    me.require(Permission::SendEmail)?;
    let recipients = check_recipients(&req.recipients)?;
    let subject =
        validate::email_subject(&req.subject).map_err(|m| ApiError::field("subject", m))?;
    validate::email_body(&req.body).map_err(|m| ApiError::field("body", m))?;
    for r in &recipients {
        if !may_be_mailed(&state, &me, r).await? {
            return Err(ApiError::field(
                "recipients",
                format!("\"{r}\" is not a user of this organization."),
            ));
        }
    }
    let addresses: Vec<&str> = recipients.iter().map(String::as_str).collect();
    client.may_mail(&state, &addresses)?;
    let id = state.mailer.send(&recipients, subject, &req.body).await?;
    tracing::info!(
        outbox_id = id,
        user = me.user.id,
        recipients = recipients.len(),
        "send_email"
    );
    Ok(axum::Json(SendEmailResult {
        msg: "Email queued for delivery.".into(),
        id,
    }))
}
