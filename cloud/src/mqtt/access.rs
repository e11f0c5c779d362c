//! Who may connect to the broker. The embedded broker asks [`allows`] about every
//! connection (its auth handler, on both listeners): the cloud's own login (made afresh
//! at each start, see [`Login::random`]) or a device's, derived from its key
//! (`gemba_shared::broker`), with the device's own client id. Anonymous clients, wrong
//! passwords, unknown, revoked and archived devices, and a device using another's client
//! id are refused, each with a warning naming why. [`Link::kick`] ends a connection that
//! is already up: the cloud connects under its client id, which takes it over.
//!
//! On an external broker the same logins apply (the cloud's from the settings); with
//! `mqtt_dynsec` the cloud keeps Mosquitto's dynamic security in step (`dynsec.rs`).

use std::time::Duration;

use gemba_shared::broker;
use rumqttc::MqttOptions;
use subtle::ConstantTimeEq;

use crate::mqtt::link::Link;
use crate::state::AppState;

/// A username and password on the broker.
#[derive(Clone)]
pub struct Login {
    pub username: String,
    pub password: String,
}

impl std::fmt::Debug for Login {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Login({:?}, <redacted>)", self.username)
    }
}

impl Login {
    /// The cloud's login on the embedded broker: random, known only to this process.
    pub fn random() -> Login {
        Login {
            username: "gemba-cloud".into(),
            password: crate::auth::random_token(),
        }
    }

    /// Sets these credentials on a client's options.
    pub fn apply(&self, opts: &mut MqttOptions) {
        opts.set_credentials(self.username.clone(), self.password.clone());
    }
}

/// Who a login claims to be.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Claim {
    Cloud,
    Device(i64),
}

/// Who `username` with `password` claims to be; the cloud's login is checked here,
/// a device's against its key by [`device_may`].
pub(super) fn claim(cloud: &Login, username: &str, password: &str) -> Result<Claim, String> {
    if username == cloud.username {
        return if same(password, &cloud.password) {
            Ok(Claim::Cloud)
        } else {
            Err("wrong password for the cloud's login".into())
        };
    }
    broker::device_of(username)
        .map(Claim::Device)
        .ok_or_else(|| format!("{username:?} is not a device's username"))
}

/// Whether device `device`, whose key is `key` (`None`: unknown, revoked or archived),
/// may connect as `client_id` with `password`.
pub(super) fn device_may(
    device: i64,
    key: Option<&[u8]>,
    client_id: &str,
    password: &str,
) -> Result<(), String> {
    let key = key.ok_or_else(|| format!("device {device} is unknown or revoked"))?;
    if !same(password, &broker::password(key)) {
        return Err(format!("wrong password for device {device}"));
    }
    // Its one client id: another device's would cut that one off, and any other would
    // keep a connection the cloud cannot end on revocation (`Link::kick`).
    if client_id != broker::client_id(device, key) {
        return Err(format!("client id {client_id:?} is not device {device}'s"));
    }
    Ok(())
}

fn same(a: &str, b: &str) -> bool {
    a.as_bytes().ct_eq(b.as_bytes()).into()
}

/// The embedded broker's question: may this connection in? Refusals are logged with
/// why (the client only sees its connection closed). A listener that is not for
/// `devices` (the cloud's own, beside TLS ones) takes the cloud only.
pub(super) async fn allows(
    state: &AppState,
    cloud: &Login,
    devices: bool,
    client_id: &str,
    username: &str,
    password: &str,
) -> bool {
    let verdict = match claim(cloud, username, password) {
        Ok(Claim::Cloud) => Ok(()),
        Ok(Claim::Device(id)) if !devices => Err(format!(
            "device {id} on the cloud's own listener (devices use TLS)"
        )),
        Ok(Claim::Device(id)) => match state.mqtt.key(&state.db, id).await {
            Ok(k) => device_may(
                id,
                k.as_ref().map(|k| k.key.as_slice()),
                client_id,
                password,
            ),
            Err(e) => Err(format!("reading device {id}: {e}")),
        },
        Err(why) => Err(why),
    };
    match verdict {
        Ok(()) => true,
        Err(why) => {
            tracing::warn!(client_id, username, why, "MQTT connection refused");
            false
        }
    }
}

impl Link {
    /// The client id device `device` is connected under now, if it has credentials
    /// (read before a change that ends them, to [`Link::kick`] it after).
    pub async fn connection_of(&self, db: &crate::db::Db, device: i64) -> Option<String> {
        self.forget(device);
        let k = self.key(db, device).await.ok()??;
        let id = broker::client_id(device, &k.key);
        // Under TLS the broker knows a device's connection as `{tenant}.{client id}`.
        Some(if self.tenants() {
            format!("{}.{id}", broker::tenant(device))
        } else {
            id
        })
    }

    /// Ends the connection of `client_id` (if any) by taking it over with the cloud's
    /// login, then leaving: the device's next connection meets the broker's check.
    pub fn kick(&self, client_id: Option<String>) {
        let (Some(client_id), Some((host, port, login))) = (client_id, self.target()) else {
            return;
        };
        tokio::spawn(async move {
            let mut opts = MqttOptions::new(client_id.clone(), host, port);
            if let Some(l) = &login {
                l.apply(&mut opts);
            }
            let took = super::broker::connects(opts, Duration::from_secs(5)).await;
            tracing::info!(
                client_id,
                ended = took,
                "MQTT connection of a revoked device"
            );
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cloud() -> Login {
        Login {
            username: "gemba-cloud".into(),
            password: "s3cret".into(),
        }
    }

    #[test]
    fn the_cloud_is_known_by_its_password() {
        assert_eq!(claim(&cloud(), "gemba-cloud", "s3cret"), Ok(Claim::Cloud));
        assert!(claim(&cloud(), "gemba-cloud", "s3cre").is_err());
        assert!(claim(&cloud(), "gemba-cloud", "").is_err());
        assert!(claim(&cloud(), "", "").is_err(), "anonymous");
        assert!(claim(&cloud(), "admin", "s3cret").is_err());
        assert_eq!(
            claim(&cloud(), "gemba-device-7", "anything"),
            Ok(Claim::Device(7))
        );
    }

    #[test]
    fn a_device_connects_with_its_own_key_and_client_id() {
        let key = [5u8; 32];
        let id = broker::client_id(7, &key);
        let pw = broker::password(&key);
        assert_eq!(device_may(7, Some(&key), &id, &pw), Ok(()));
        assert!(
            device_may(7, None, &id, &pw)
                .unwrap_err()
                .contains("revoked")
        );
        assert!(
            device_may(7, Some(&key), &id, "x")
                .unwrap_err()
                .contains("wrong")
        );
        // Another enrolment's password (the device enrolled again since).
        let old = broker::password(&[6u8; 32]);
        assert!(device_may(7, Some(&key), &id, &old).is_err());
        // Device 7 cannot take device 8's connection over.
        let other = broker::client_id(8, &key);
        assert!(
            device_may(7, Some(&key), &other, &pw)
                .unwrap_err()
                .contains("client id")
        );
    }
}
