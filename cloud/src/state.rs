//! Shared application state, cheap to clone.

use std::ops::Deref;
use std::sync::Arc;

use crate::auth::{Keys, Passwords};
use crate::config::Settings;
use crate::db::Db;
use crate::mail::Mailer;

#[derive(Clone)]
pub struct AppState(Arc<Inner>);

pub struct Inner {
    pub db: Db,
    pub settings: Settings,
    pub keys: Keys,
    /// Seals and opens the users' authenticator-app secrets.
    pub totp: crate::totp_seal::TotpKey,
    pub passwords: Passwords,
    pub mailer: Mailer,
    /// Bounds on the calls that mail an address the caller names.
    pub mail_limits: crate::limits::MailLimits,
    /// The single sign-on providers (OpenID Connect) and their kept keys.
    pub sso: crate::oidc::Providers,
    /// The cloud's MQTT link: connection, ingestion counts, device keys.
    pub mqtt: crate::mqtt::Link,
    /// Live events for the device stream (`/api/ws`).
    pub events: crate::events::Events,
    /// Media and model files (`{data}/objects` by default).
    pub objects: crate::objects::Objects,
    /// Videos a part is being written to right now (one part at a time per video).
    pub uploads: std::sync::Mutex<std::collections::HashSet<i64>>,
    /// The job queue (training runs).
    pub jobs: crate::jobs::Queue,
    /// Live view's TURN relay, once started (`turn_port`).
    pub relay: std::sync::OnceLock<crate::live::turn::Relay>,
    /// The secret of the relay's credentials (from the token secret, so replicas
    /// share it).
    pub relay_secret: Vec<u8>,
    /// The Ed25519 public key (base64) agent releases are signed for
    /// (`crate::release_key`).
    pub release_key: String,
    /// The VAPID key Web Push messages are signed with (`crate::push::vapid`).
    pub vapid: crate::push::Vapid,
    /// The assistant's passage embedder (`embedding_model`), loaded on first use.
    pub semantic: crate::assistant::embed::Semantic,
}

impl AppState {
    pub fn new(inner: Inner) -> AppState {
        AppState(Arc::new(inner))
    }
}

impl Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}
