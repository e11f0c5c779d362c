//! Push notifications to the portal over Web Push (issue 31; spec section 7
//! `firebase/topic_subscription/`): when an organisation's event notification fires
//! (`Task Update`, `Device Health`), its recipients get the e-mail and, in each browser
//! they subscribed to that event (a topic), a push message: its JSON
//! ([`PushMessage`]) encrypted to the browser's keys (RFC 8291, `aes128gcm`), POSTed to
//! the browser's push service (RFC 8030) with the cloud's VAPID signature (RFC 8292,
//! [`vapid`]).
//!
//! Sending happens in the background: the call that raised the event is not held up,
//! and a push service that fails is logged, never the event's failure. An endpoint the
//! push service answers 404 or 410 for is gone (the browser unsubscribed or the
//! subscription expired): its subscription is removed.

pub mod token;
pub mod vapid;

use std::sync::OnceLock;
use std::time::Duration;

use gemba_shared::api::v1::push::PushMessage;
use web_push_native::Auth;

use crate::db::push::{self as db, Target};
use crate::state::AppState;

pub use vapid::Vapid;

/// How long a push service keeps a message for a browser that is away (seconds).
pub const TTL_SECS: u64 = 24 * 3600;

/// One HTTP client for every push service: no redirects (an endpoint is used as
/// given), a time limit per request.
fn client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(15))
            .build()
            .expect("a client with these settings builds")
    })
}

/// The VAPID contact (`sub`): the portal's `https://` address, else the first super
/// admin's e-mail address as a `mailto:` URL.
pub fn contact(state: &AppState) -> String {
    match &state.settings.public_url {
        Some(u) if u.starts_with("https://") => u.trim_end_matches('/').to_string(),
        _ => format!(
            "mailto:{}",
            state
                .settings
                .admin_email
                .as_deref()
                .unwrap_or("admin@gemba.local")
        ),
    }
}

/// The subscriptions of `all` whose user is among `recipients` (addresses compared
/// without case).
pub fn for_recipients(all: Vec<Target>, recipients: &[String]) -> Vec<Target> {
    all.into_iter()
        .filter(|t| recipients.iter().any(|r| r.eq_ignore_ascii_case(&t.email)))
        .collect()
}

/// What became of one push.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    /// The push service took it (2xx).
    Sent,
    /// The subscription no longer exists (404, 410).
    Gone,
    /// Anything else: the status, or the error.
    Failed(String),
}

/// The outcome of a push service's answer `status`.
pub fn outcome_of(status: u16) -> Outcome {
    match status {
        200..=299 => Outcome::Sent,
        404 | 410 => Outcome::Gone,
        s => Outcome::Failed(format!("push service answered {s}")),
    }
}

/// Encrypts `payload` to `t`'s keys and POSTs it to its endpoint, signed by `vapid`.
pub async fn deliver(vapid: &Vapid, sub: &str, t: &Target, payload: &[u8]) -> Outcome {
    let (Ok(url), Some(p256dh), Some(auth)) = (
        token::endpoint(&t.endpoint),
        token::b64(&t.p256dh),
        token::b64(&t.auth).filter(|a| a.len() == 16),
    ) else {
        return Outcome::Failed("stored subscription unreadable".into());
    };
    let Ok(ua_public) = p256::PublicKey::from_sec1_bytes(&p256dh) else {
        return Outcome::Failed("stored subscription key unreadable".into());
    };
    let mut ua_auth = Auth::default();
    ua_auth.copy_from_slice(&auth);
    let body = match web_push_native::encrypt(payload.to_vec(), &ua_public, &ua_auth) {
        Ok(b) => b,
        Err(e) => return Outcome::Failed(format!("encrypting: {e}")),
    };
    let origin = url.origin().ascii_serialization();
    let now = chrono::Utc::now().timestamp();
    let r = client()
        .post(url)
        .header("TTL", TTL_SECS.to_string())
        .header("Content-Encoding", "aes128gcm")
        .header("Content-Type", "application/octet-stream")
        .header("Urgency", "normal")
        .header("Authorization", vapid.authorization(&origin, sub, now))
        .body(body)
        .send()
        .await;
    match r {
        Ok(r) => outcome_of(r.status().as_u16()),
        Err(e) => Outcome::Failed(e.to_string()),
    }
}

/// Pushes `title` and `body` of event `topic` of organisation `org` to the browsers
/// the `recipients` subscribed to it, in the background.
pub fn notify(
    state: &AppState,
    org: i64,
    topic: &str,
    recipients: &[String],
    title: &str,
    body: &str,
) {
    let state = state.clone();
    let recipients = recipients.to_vec();
    let message = PushMessage {
        topic: topic.to_string(),
        title: title.to_string(),
        body: body.to_string(),
        organization: org,
    };
    tokio::spawn(async move { send_all(&state, &recipients, &message).await });
}

async fn send_all(state: &AppState, recipients: &[String], m: &PushMessage) {
    let targets = match db::targets(&state.db, m.organization, &m.topic).await {
        Ok(t) => for_recipients(t, recipients),
        Err(e) => {
            tracing::error!(error = %e, "push subscriptions lookup");
            return;
        }
    };
    if targets.is_empty() {
        return;
    }
    let payload = serde_json::to_vec(m).expect("a message serialises");
    let sub = contact(state);
    for t in &targets {
        match deliver(&state.vapid, &sub, t, &payload).await {
            Outcome::Sent => {
                tracing::info!(subscription = t.id, topic = %m.topic, "push sent");
            }
            Outcome::Gone => {
                tracing::info!(
                    subscription = t.id,
                    "push endpoint gone; subscription removed"
                );
                if let Err(e) = db::remove(&state.db, t.id).await {
                    tracing::error!(error = %e, "removing a gone push subscription");
                }
            }
            Outcome::Failed(why) => {
                tracing::warn!(subscription = t.id, %why, "push not sent");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(id: i64, email: &str) -> Target {
        Target {
            id,
            endpoint: format!("https://push.example/{id}"),
            p256dh: String::new(),
            auth: String::new(),
            email: email.into(),
        }
    }

    #[test]
    fn only_the_recipients_browsers_get_the_push() {
        let all = vec![
            target(1, "Boss@Org.test"),
            target(2, "other@org.test"),
            target(3, "boss@org.test"),
        ];
        let got = for_recipients(all, &["boss@org.test".into()]);
        let ids: Vec<i64> = got.iter().map(|t| t.id).collect();
        assert_eq!(ids, vec![1, 3]);
        assert!(for_recipients(vec![target(1, "a@b.c")], &[]).is_empty());
    }

    #[test]
    fn gone_endpoints_are_404_and_410_only() {
        assert_eq!(outcome_of(201), Outcome::Sent);
        assert_eq!(outcome_of(410), Outcome::Gone);
        assert_eq!(outcome_of(404), Outcome::Gone);
        assert!(matches!(outcome_of(413), Outcome::Failed(_)));
        assert!(matches!(outcome_of(429), Outcome::Failed(_)));
    }
}
