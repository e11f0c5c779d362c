//! The cloud's TURN relay (webrtc-rs's `turn` server, UDP): live view works when the
//! browser and the device cannot reach each other, each reaching the cloud instead.
//! Credentials are per live session and short-lived, in the time-limited form of the
//! TURN REST convention: the user name is `{expiry}:{session}`, the password the
//! base64 of its HMAC-SHA1 under the relay's secret, so any replica holding the secret
//! checks them without asking the others.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Context;
use base64::Engine;
use base64::prelude::BASE64_STANDARD;
use gemba_shared::mqtt::v1::IceServer;
use turn::auth::{AuthHandler, generate_auth_key};
use turn::relay::relay_static::RelayAddressGeneratorStatic;
use turn::server::Server;
use turn::server::config::{ConnConfig, ServerConfig};

/// The relay's realm.
const REALM: &str = "gemba";
/// How long a session's credentials hold: a live view left open keeps its relay this
/// long (the portal starts a new session when a stream fails).
pub const CREDENTIAL_SECS: u64 = 3600;

/// The relay's secret and where peers reach it.
#[derive(Clone)]
pub struct Relay {
    secret: Vec<u8>,
    /// `host:port` as browsers and devices reach it.
    pub public: String,
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn password(secret: &[u8], username: &str) -> String {
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY, secret);
    BASE64_STANDARD.encode(ring::hmac::sign(&key, username.as_bytes()).as_ref())
}

impl Relay {
    pub fn new(secret: Vec<u8>, public: String) -> Relay {
        Relay { secret, public }
    }

    /// The ICE server of `session`: the relay, with credentials for it alone until
    /// `CREDENTIAL_SECS` from now.
    pub fn ice_server(&self, session: &str) -> IceServer {
        self.ice_server_until(session, now_secs() + CREDENTIAL_SECS)
    }

    fn ice_server_until(&self, session: &str, expiry: u64) -> IceServer {
        let username = format!("{expiry}:{session}");
        IceServer {
            urls: vec![format!("turn:{}?transport=udp", self.public)],
            credential: password(&self.secret, &username),
            username,
        }
    }

    /// The key of `username` (RFC 5389's long-term credential), or why none.
    fn key(&self, username: &str, realm: &str, now: u64) -> Result<Vec<u8>, String> {
        let (expiry, session) = username
            .split_once(':')
            .ok_or_else(|| format!("{username:?} is not a live session's"))?;
        let expiry: u64 = expiry
            .parse()
            .map_err(|_| format!("{username:?} is not a live session's"))?;
        if expiry < now {
            return Err(format!("the credentials of session {session} expired"));
        }
        Ok(generate_auth_key(
            username,
            realm,
            &password(&self.secret, username),
        ))
    }
}

struct Auth(Relay);

impl AuthHandler for Auth {
    fn auth_handle(
        &self,
        username: &str,
        realm: &str,
        src: SocketAddr,
    ) -> Result<Vec<u8>, turn::Error> {
        self.0.key(username, realm, now_secs()).map_err(|e| {
            tracing::debug!(%src, error = e, "a relay allocation refused");
            turn::Error::Other(e)
        })
    }
}

/// Starts the relay on UDP `bind`; relayed addresses are on `relay_ip` (as peers
/// reach it). Answers the server and the address it listens on.
pub async fn serve(
    relay: Relay,
    bind: SocketAddr,
    relay_ip: IpAddr,
) -> anyhow::Result<(Server, SocketAddr)> {
    let conn = tokio::net::UdpSocket::bind(bind)
        .await
        .with_context(|| format!("the TURN relay's port ({bind})"))?;
    let local = conn.local_addr()?;
    let server = Server::new(ServerConfig {
        conn_configs: vec![ConnConfig {
            conn: Arc::new(conn),
            relay_addr_generator: Box::new(RelayAddressGeneratorStatic {
                relay_address: relay_ip,
                address: bind.ip().to_string(),
                net: Arc::new(webrtc_util::vnet::net::Net::new(None)),
            }),
        }],
        realm: REALM.into(),
        auth_handler: Arc::new(Auth(relay)),
        channel_bind_timeout: Duration::ZERO,
        alloc_close_notify: None,
    })
    .await
    .context("starting the TURN relay")?;
    Ok((server, local))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sessions_credentials_hold_until_they_expire_and_for_this_secret_only() {
        let relay = Relay::new(b"secret".to_vec(), "cloud.example:3478".into());
        let s = relay.ice_server_until("abc", 2_000);
        assert_eq!(s.urls, vec!["turn:cloud.example:3478?transport=udp"]);
        assert_eq!(s.username, "2000:abc");
        let key = relay.key(&s.username, REALM, 1_999).unwrap();
        assert_eq!(key, generate_auth_key(&s.username, REALM, &s.credential));
        assert!(
            relay
                .key(&s.username, REALM, 2_001)
                .unwrap_err()
                .contains("expired")
        );
        assert!(relay.key("2000", REALM, 0).is_err());
        assert!(relay.key("soon:abc", REALM, 0).is_err());
        let other = Relay::new(b"other".to_vec(), relay.public.clone());
        assert_ne!(other.key(&s.username, REALM, 0).unwrap(), key);
    }
}
