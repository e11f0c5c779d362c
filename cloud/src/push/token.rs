//! A browser's push subscription as the portal hands it over (`tokens` of
//! `firebase/topic_subscription/`), checked before it is stored: the endpoint a URL
//! the cloud will POST to, the keys ones RFC 8291 can encrypt to.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use gemba_shared::api::v1::push::{MAX_ENDPOINT_CHARS, PushToken};
use reqwest::Url;

/// A checked subscription: the endpoint as given, the keys' bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    pub endpoint: String,
    pub p256dh: Vec<u8>,
    pub auth: Vec<u8>,
}

/// base64url with or without padding (browsers give it without).
pub fn b64(v: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(v.trim().trim_end_matches('=')).ok()
}

/// Is `url` a push endpoint the cloud will send to: `https://`, or plain `http://` to
/// this machine only (a push service under test; nothing readable leaves over it).
pub fn endpoint(url: &str) -> Result<Url, String> {
    let bad = || "Enter a valid push endpoint (an https:// URL).".to_string();
    if url.is_empty() || url.chars().count() > MAX_ENDPOINT_CHARS {
        return Err(bad());
    }
    let u = Url::parse(url).map_err(|_| bad())?;
    if !u.username().is_empty() || u.password().is_some() {
        return Err(bad());
    }
    let host = u.host_str().ok_or_else(bad)?;
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = match bare.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => bare == "localhost",
    };
    match u.scheme() {
        "https" => Ok(u),
        "http" if loopback => Ok(u),
        _ => Err(bad()),
    }
}

/// Checks `t`; the message names what is wrong.
pub fn check(t: &PushToken) -> Result<Checked, String> {
    endpoint(&t.endpoint)?;
    let p256dh = b64(&t.keys.p256dh)
        .filter(|k| k.len() == 65 && p256::PublicKey::from_sec1_bytes(k).is_ok())
        .ok_or("keys.p256dh is not a P-256 public key (base64url, uncompressed).")?;
    let auth = b64(&t.keys.auth)
        .filter(|a| a.len() == 16)
        .ok_or("keys.auth is not a 16-byte secret (base64url).")?;
    Ok(Checked {
        endpoint: t.endpoint.clone(),
        p256dh,
        auth,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gemba_shared::api::v1::push::PushKeys;
    use p256::elliptic_curve::sec1::ToEncodedPoint;

    fn token(endpoint: &str) -> PushToken {
        let secret = p256::SecretKey::from_slice(&[7u8; 32]).unwrap();
        let point = secret.public_key().as_affine().to_encoded_point(false);
        PushToken {
            endpoint: endpoint.into(),
            keys: PushKeys {
                p256dh: URL_SAFE_NO_PAD.encode(point.as_bytes()),
                auth: URL_SAFE_NO_PAD.encode([1u8; 16]),
            },
        }
    }

    #[test]
    fn https_endpoints_and_plain_http_to_this_machine_only() {
        for ok in [
            "https://fcm.googleapis.com/fcm/send/abc",
            "https://updates.push.services.mozilla.com/wpush/v2/x",
            "http://127.0.0.1:8089/push/1",
            "http://localhost/p",
            "http://[::1]:9/p",
        ] {
            assert!(check(&token(ok)).is_ok(), "{ok}");
        }
        let long = format!("https://push.example/{}", "a".repeat(MAX_ENDPOINT_CHARS));
        for bad in [
            "",
            "not a url",
            "http://push.example/p",
            "http://10.0.0.1/p",
            "ftp://push.example/p",
            "https://user:pw@push.example/p",
            long.as_str(),
        ] {
            assert_eq!(
                check(&token(bad)).unwrap_err(),
                "Enter a valid push endpoint (an https:// URL).",
                "{bad}"
            );
        }
    }

    #[test]
    fn keys_must_be_a_curve_point_and_a_16_byte_secret() {
        let good = token("https://push.example/p");
        let c = check(&good).unwrap();
        assert_eq!((c.p256dh.len(), c.auth.len()), (65, 16));
        // Padded base64url is taken too.
        let mut padded = good.clone();
        padded.keys.auth.push_str("==");
        assert!(check(&padded).is_ok());

        let mut off_curve = good.clone();
        let mut raw = c.p256dh.clone();
        raw[64] ^= 1;
        off_curve.keys.p256dh = URL_SAFE_NO_PAD.encode(raw);
        assert!(check(&off_curve).unwrap_err().starts_with("keys.p256dh"));
        let mut not_b64 = good.clone();
        not_b64.keys.p256dh = "x".into();
        assert!(check(&not_b64).unwrap_err().starts_with("keys.p256dh"));
        let mut short = good;
        short.keys.auth = URL_SAFE_NO_PAD.encode([1u8; 8]);
        assert!(check(&short).unwrap_err().starts_with("keys.auth"));
    }
}
