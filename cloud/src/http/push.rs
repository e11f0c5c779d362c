//! `/api/firebase/…` (spec section 7 "Generic, files and others"): a browser's Web Push
//! subscription on the organisation's topics, `POST firebase/topic_subscription/`
//! (topic, tokens, action), the list of the caller's, the unsubscribe (the spec's
//! "DELETE on a separate serverless URL": `DELETE firebase/unsubscribe/`), and the
//! cloud's VAPID public key the browser subscribes with. Sending is `crate::push`.
//!
//! Tenancy: every signed-in user of an organisation may subscribe their own browsers,
//! in the organisation the request acts in; rows are reached only through the
//! caller's own user id. Whether a push is sent is the event notification's: only its
//! recipients' browsers get it.

use axum::extract::State;
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::push::{
    MAX_SUBSCRIPTIONS_PER_USER, MAX_TOKENS, PushSubscription, SUBSCRIBE, TopicSubscription,
    TopicSubscriptionResult, UNSUBSCRIBE, VapidPublicKey,
};
use gemba_shared::validate;
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::push::{self as db, New};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Query};
use crate::push::token;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(vapid_public_key))
        .routes(routes!(topic_subscription, subscriptions))
        .routes(routes!(unsubscribe))
}

/// The cloud's VAPID public key: the `applicationServerKey` a browser subscribes with.
#[utoipa::path(get, path = "/firebase/vapid_public_key/", tag = "push",
    responses((status = 200, body = VapidPublicKey)))]
pub async fn vapid_public_key(
    State(state): State<AppState>,
    _me: AuthUser,
) -> axum::Json<VapidPublicKey> {
    axum::Json(VapidPublicKey {
        public_key: state.vapid.public_key().to_string(),
    })
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct EndpointQuery {
    /// A browser's push endpoint: only its subscriptions.
    #[serde(default)]
    pub endpoint: Option<String>,
}

/// The caller's subscriptions in the organisation (of one browser with `?endpoint=`).
#[utoipa::path(get, path = "/firebase/topic_subscription/", tag = "push",
    params(EndpointQuery),
    responses((status = 200, body = Vec<PushSubscription>), (status = 400)))]
pub async fn subscriptions(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<EndpointQuery>,
) -> ApiResult<axum::Json<Vec<PushSubscription>>> {
    let org = me.org()?;
    let endpoint = q.endpoint.as_deref().filter(|e| !e.is_empty());
    Ok(axum::Json(
        db::of_user(&state.db, org, me.user.id, endpoint).await?,
    ))
}

/// Subscribe (or unsubscribe) browsers to a topic: an event type of the event
/// notifications. While subscribed, a browser gets a push message whenever the
/// organisation's notification for that event mails the caller.
#[utoipa::path(post, path = "/firebase/topic_subscription/", tag = "push",
    request_body = TopicSubscription,
    responses((status = 200, body = TopicSubscriptionResult), (status = 400)))]
pub async fn topic_subscription(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<TopicSubscription>,
) -> ApiResult<axum::Json<TopicSubscriptionResult>> {
    validate::event_type(&req.topic).map_err(|m| ApiError::field("topic", m))?;
    if req.action != SUBSCRIBE && req.action != UNSUBSCRIBE {
        return Err(ApiError::field(
            "action",
            format!("\"{}\" is not a valid choice.", req.action),
        ));
    }
    if req.tokens.is_empty() {
        return Err(ApiError::field("tokens", "This field is required."));
    }
    if req.tokens.len() > MAX_TOKENS {
        return Err(ApiError::field(
            "tokens",
            format!("Ensure this field has no more than {MAX_TOKENS} elements."),
        ));
    }
    let checked = req
        .tokens
        .iter()
        .map(token::check)
        .collect::<Result<Vec<_>, String>>()
        .map_err(|m| ApiError::field("tokens", m))?;
    let org = me.org()?;
    let msg = if req.action == SUBSCRIBE {
        let mine = db::of_user(&state.db, org, me.user.id, None).await?;
        let new = checked
            .iter()
            .filter(|c| {
                !mine
                    .iter()
                    .any(|s| s.topic == req.topic && s.endpoint == c.endpoint)
            })
            .count() as i64;
        if db::count_of_user(&state.db, me.user.id).await? + new > MAX_SUBSCRIPTIONS_PER_USER {
            return Err(ApiError::field(
                "tokens",
                format!("A user keeps at most {MAX_SUBSCRIPTIONS_PER_USER} push subscriptions."),
            ));
        }
        let keys: Vec<(String, String)> = req
            .tokens
            .iter()
            .map(|t| {
                (
                    t.keys.p256dh.trim_end_matches('=').to_string(),
                    t.keys.auth.trim_end_matches('=').to_string(),
                )
            })
            .collect();
        let rows: Vec<New> = checked
            .iter()
            .zip(&keys)
            .map(|(c, (p256dh, auth))| New {
                org,
                user: me.user.id,
                topic: &req.topic,
                endpoint: &c.endpoint,
                p256dh,
                auth,
            })
            .collect();
        db::subscribe(&state.db, &rows).await?;
        "Subscribed successfully!"
    } else {
        let endpoints: Vec<&str> = checked.iter().map(|c| c.endpoint.as_str()).collect();
        db::unsubscribe(&state.db, org, me.user.id, &req.topic, &endpoints).await?;
        "Unsubscribed successfully!"
    };
    Ok(axum::Json(TopicSubscriptionResult {
        msg: msg.into(),
        subscriptions: db::of_user(&state.db, org, me.user.id, None).await?,
    }))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct UnsubscribeQuery {
    /// The browser's push endpoint.
    #[serde(default)]
    pub endpoint: Option<String>,
}

/// Unsubscribe a browser from every topic: all the caller's subscriptions of that
/// endpoint, in every organisation (the browser left its push service).
#[utoipa::path(delete, path = "/firebase/unsubscribe/", tag = "push",
    params(UnsubscribeQuery),
    responses((status = 200, body = Msg), (status = 400), (status = 404)))]
pub async fn unsubscribe(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<UnsubscribeQuery>,
) -> ApiResult<axum::Json<Msg>> {
    let endpoint = q
        .endpoint
        .filter(|e| !e.trim().is_empty())
        .ok_or_else(|| ApiError::field("endpoint", "This field is required."))?;
    if db::remove_endpoint(&state.db, me.user.id, &endpoint).await? == 0 {
        return Err(ApiError::NotFound);
    }
    Ok(axum::Json(Msg::new("Data deleted successfully!")))
}
