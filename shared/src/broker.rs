//! How a device proves who it is to the MQTT broker: its username, password and client
//! id, all derived from the credentials it got at enrolment (no second secret to keep).
//! The broker (the cloud's auth handler on the embedded one, Mosquitto's dynamic
//! security on an external one) accepts a device's connection only with these, so an
//! anonymous client, a wrong secret or a revoked device is refused, and a device cannot
//! take another's connection over by using its client id.

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

#[cfg(feature = "broker-tls")]
pub mod tls;

/// The name the embedded broker's certificate is issued for, and the only one an agent
/// holding the cloud's pinned certificate authority accepts from it, whatever address
/// it reaches the broker at (the cloud cannot know every name of its host).
pub const BROKER_NAME: &str = "gemba-broker";

/// The embedded broker's tenant of device `device` (the organisation field of its
/// client certificate; letters and digits only, as the broker requires).
pub fn tenant(device: i64) -> String {
    format!("d{device}")
}

/// Whether `tenant` is the tenant of the device a topic names as `device` (its level
/// as written; per message, so without making the tenant's name).
pub fn is_tenant_of(tenant: &str, device: &str) -> bool {
    tenant.strip_prefix('d') == Some(device)
}

/// The topic prefix the embedded broker confines tenant `tenant` to.
pub fn tenant_prefix(tenant: &str) -> String {
    format!("/tenants/{tenant}/")
}

/// A topic's tenant (when it has one) and the topic without its tenant's prefix.
pub fn split_tenant(topic: &str) -> (Option<&str>, &str) {
    let Some(rest) = topic.strip_prefix("/tenants/") else {
        return (None, topic);
    };
    match rest.split_once('/') {
        Some((t, rest)) if !t.is_empty() => (Some(t), rest),
        _ => (None, topic),
    }
}

/// The username of device `device`.
pub fn username(device: i64) -> String {
    format!("gemba-device-{device}")
}

/// The device a username names, if it is a device's.
pub fn device_of(username: &str) -> Option<i64> {
    let id = username.strip_prefix("gemba-device-")?;
    // Only the canonical form: "07" or "+7" would name device 7 under another name.
    let n: i64 = id.parse().ok()?;
    (n > 0 && n.to_string() == id).then_some(n)
}

/// The password of a device whose signing key is `key`: an HMAC of a fixed label, so
/// the broker check needs only what the cloud already holds, and the key itself never
/// travels.
pub fn password(key: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(b"gemba mqtt password v1");
    crate::hex(&mac.finalize().into_bytes())
}

/// The client id of device `device` enrolled with `key`: the same for every connection
/// of one enrolment (a new connection takes over a stale one, so its last will cannot
/// say offline after the new one said online), and unlike any other enrolment's.
pub fn client_id(device: i64, key: &[u8]) -> String {
    let d = Sha256::digest([b"gemba-agent client id\0".as_slice(), key].concat());
    format!("gemba-agent-{device}-{}", crate::hex(&d[..6]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tenants_prefix_topics_and_come_off_again() {
        let t = tenant(7);
        assert_eq!(t, "d7");
        let topic = format!("{}gemba/v1/3/7/cycles", tenant_prefix(&t));
        assert_eq!(topic, "/tenants/d7/gemba/v1/3/7/cycles");
        assert_eq!(split_tenant(&topic), (Some("d7"), "gemba/v1/3/7/cycles"));
        assert!(is_tenant_of(&t, "7"));
        for other in ["8", "07", "", "d7"] {
            assert!(!is_tenant_of(&t, other), "{other}");
        }
        assert_eq!(
            split_tenant("gemba/v1/3/7/cycles"),
            (None, "gemba/v1/3/7/cycles")
        );
        assert_eq!(split_tenant("/tenants//x"), (None, "/tenants//x"));
        assert_eq!(split_tenant("/tenants/d7"), (None, "/tenants/d7"));
    }

    #[test]
    fn usernames_name_one_device_each() {
        assert_eq!(device_of(&username(7)), Some(7));
        for bad in [
            "gemba-device-07",
            "gemba-device-+7",
            "gemba-device-0",
            "gemba-device-",
            "gemba-device--7",
            "device-7",
            "gemba-cloud",
            "gemba-device-7 ",
        ] {
            assert_eq!(device_of(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_password_belongs_to_its_key() {
        let p = password(&[1; 32]);
        assert_eq!(p, password(&[1; 32]));
        assert_eq!(p.len(), 64);
        assert_ne!(p, password(&[2; 32]));
    }

    #[test]
    fn a_client_id_is_the_enrolments_own() {
        let a = client_id(7, &[1; 32]);
        assert_eq!(a, client_id(7, &[1; 32]), "stable across connections");
        assert!(a.starts_with("gemba-agent-7-") && a.len() == "gemba-agent-7-".len() + 12);
        assert_ne!(a, client_id(17, &[1; 32]), "not another device's");
        // Another enrolment of device 7 (another key) has another id.
        assert_ne!(a, client_id(7, &[2; 32]));
    }
}
