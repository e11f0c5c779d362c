//! Push notifications to the portal (spec section 7 "Generic, files and others":
//! `POST firebase/topic_subscription/ (topic, tokens, action)` and the unsubscribe),
//! over the standard Web Push protocol (RFC 8030, its messages encrypted by RFC 8291,
//! the cloud identified by VAPID, RFC 8292). A browser subscribes with the cloud's
//! VAPID public key (`GET firebase/vapid_public_key/`) and hands its subscription over
//! as one of `tokens`; a `topic` is an event type of the event notifications, and when
//! the organisation's notification for that event fires, its recipients' subscribed
//! browsers get the message as well as the e-mail.

use serde::{Deserialize, Serialize};

/// `action` of `firebase/topic_subscription/`: add the tokens to the topic.
pub const SUBSCRIBE: &str = "subscribe";
/// `action` of `firebase/topic_subscription/`: take the tokens off the topic.
pub const UNSUBSCRIBE: &str = "unsubscribe";
/// Most tokens in one `firebase/topic_subscription/` call.
pub const MAX_TOKENS: usize = 10;
/// Longest push endpoint URL taken (push services' are about 200 characters).
pub const MAX_ENDPOINT_CHARS: usize = 2048;
/// Most subscriptions one user keeps (browsers × topics).
pub const MAX_SUBSCRIPTIONS_PER_USER: i64 = 50;

/// The browser's keys of a push subscription (`PushSubscription.toJSON().keys`):
/// base64url, `p256dh` an uncompressed P-256 point, `auth` 16 bytes.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PushKeys {
    #[cfg_attr(feature = "openapi", schema(max_length = 200))]
    pub p256dh: String,
    #[cfg_attr(feature = "openapi", schema(max_length = 200))]
    pub auth: String,
}

/// A browser's push subscription, as `PushSubscription.toJSON()` gives it (its
/// `expirationTime`, when sent, is ignored).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PushToken {
    /// The push service's URL for this browser (`https://…`).
    #[cfg_attr(feature = "openapi", schema(max_length = 2048))]
    pub endpoint: String,
    pub keys: PushKeys,
}

/// `POST firebase/topic_subscription/`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TopicSubscription {
    /// An event type of the event notifications: 'Task Update' or 'Device Health'.
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub topic: String,
    /// The browsers' subscriptions (at most [`MAX_TOKENS`]).
    pub tokens: Vec<PushToken>,
    /// `subscribe` or `unsubscribe`.
    #[cfg_attr(feature = "openapi", schema(max_length = 20))]
    pub action: String,
}

/// One of the caller's subscriptions: a browser's endpoint on a topic of the
/// organisation.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PushSubscription {
    pub id: i64,
    pub topic: String,
    pub endpoint: String,
    pub organization: i64,
    /// When it was made (ms since the epoch).
    pub created_at: i64,
}

/// The answer of `POST firebase/topic_subscription/`: what the call did and the
/// caller's subscriptions on the organisation's topics after it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TopicSubscriptionResult {
    pub msg: String,
    pub subscriptions: Vec<PushSubscription>,
}

/// `GET firebase/vapid_public_key/`: the cloud's VAPID public key (base64url of the
/// uncompressed P-256 point), the `applicationServerKey` of `pushManager.subscribe`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct VapidPublicKey {
    pub public_key: String,
}

/// What a push message carries (the plaintext the service worker reads): shown as a
/// notification titled `title`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PushMessage {
    /// The event type.
    pub topic: String,
    pub title: String,
    pub body: String,
    /// The organisation the event happened in.
    pub organization: i64,
}
