//! The cloud's VAPID key (RFC 8292): a P-256 key the push services know the cloud by.
//! Browsers subscribe with its public key (`applicationServerKey`); each push request
//! carries `Authorization: vapid t=<JWT>, k=<public key>`, the JWT (ES256) naming the
//! push service's origin (`aud`), an expiry (`exp`) and a contact (`sub`).
//!
//! The key is derived from the token secret (HMAC-SHA256 under a label of its own), as
//! the TURN relay's secret is: replicas share it without a file or a table, and it is
//! as private as the secret that signs the sessions. A new token secret makes a new
//! key; browsers subscribed under the old one are refused by their push service, and
//! their subscriptions are dropped on the first send (see `super::deliver`).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use p256::elliptic_curve::sec1::ToEncodedPoint;

/// How long a VAPID JWT is good for (RFC 8292 allows at most 24 hours).
pub const JWT_SECS: i64 = 12 * 3600;

pub struct Vapid {
    key: SigningKey,
    /// base64url of the uncompressed public point (65 bytes).
    public: String,
}

impl std::fmt::Debug for Vapid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vapid")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

impl Vapid {
    /// The key of token secret `secret`: the first HMAC-SHA256 of the label and a
    /// counter that is a valid P-256 scalar (almost always the first).
    pub fn derive(secret: &[u8]) -> Vapid {
        let mac = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, secret);
        for counter in 0u32.. {
            let mut label = b"gemba vapid key ".to_vec();
            label.extend_from_slice(&counter.to_be_bytes());
            let bytes = ring::hmac::sign(&mac, &label);
            if let Ok(key) = SigningKey::from_slice(bytes.as_ref()) {
                return Vapid::from_key(key);
            }
        }
        unreachable!("some counter gives a scalar")
    }

    fn from_key(key: SigningKey) -> Vapid {
        let point = key.verifying_key().as_affine().to_encoded_point(false);
        Vapid {
            public: URL_SAFE_NO_PAD.encode(point.as_bytes()),
            key,
        }
    }

    /// The public key as browsers take it (base64url, uncompressed point).
    pub fn public_key(&self) -> &str {
        &self.public
    }

    /// The ES256 JWT for a push service at `origin` (`https://host[:port]`), expiring
    /// `JWT_SECS` after `now` (seconds), with contact `sub`.
    pub fn jwt(&self, origin: &str, sub: &str, now: i64) -> String {
        let header = URL_SAFE_NO_PAD.encode(br#"{"typ":"JWT","alg":"ES256"}"#);
        let claims = serde_json::json!({"aud": origin, "exp": now + JWT_SECS, "sub": sub});
        let claims = URL_SAFE_NO_PAD.encode(claims.to_string());
        let input = format!("{header}.{claims}");
        let sig: Signature = self.key.sign(input.as_bytes());
        format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig.to_bytes()))
    }

    /// The `Authorization` header's value of a push request to `origin`.
    pub fn authorization(&self, origin: &str, sub: &str, now: i64) -> String {
        format!("vapid t={}, k={}", self.jwt(origin, sub, now), self.public)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use p256::ecdsa::VerifyingKey;
    use p256::ecdsa::signature::Verifier;

    #[test]
    fn the_key_follows_the_secret_and_only_it() {
        let a = Vapid::derive(b"secret one");
        assert_eq!(a.public_key(), Vapid::derive(b"secret one").public_key());
        assert_ne!(a.public_key(), Vapid::derive(b"secret two").public_key());
        let raw = URL_SAFE_NO_PAD.decode(a.public_key()).unwrap();
        assert_eq!(raw.len(), 65);
        assert_eq!(raw[0], 4, "uncompressed point");
        assert!(
            !format!("{a:?}").contains("key:"),
            "the private key stays out of logs"
        );
    }

    #[test]
    fn the_jwt_is_es256_over_its_claims_and_verifies_with_the_public_key() {
        let v = Vapid::derive(b"secret");
        let t = v.jwt("https://push.example:8443", "mailto:ops@example.com", 1000);
        let parts: Vec<&str> = t.split('.').collect();
        assert_eq!(parts.len(), 3);
        let header: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[0]).unwrap()).unwrap();
        assert_eq!(header["alg"], "ES256");
        let claims: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
        assert_eq!(claims["aud"], "https://push.example:8443");
        assert_eq!(claims["exp"], 1000 + JWT_SECS);
        assert_eq!(claims["sub"], "mailto:ops@example.com");
        let key = VerifyingKey::from_sec1_bytes(&URL_SAFE_NO_PAD.decode(v.public_key()).unwrap())
            .unwrap();
        let sig = Signature::from_slice(&URL_SAFE_NO_PAD.decode(parts[2]).unwrap()).unwrap();
        let input = format!("{}.{}", parts[0], parts[1]);
        key.verify(input.as_bytes(), &sig).unwrap();
        assert!(key.verify(b"another input", &sig).is_err());
        let auth = v.authorization("https://push.example", "mailto:a@b.c", 0);
        assert!(auth.starts_with("vapid t=ey"), "{auth}");
        assert!(auth.ends_with(&format!(", k={}", v.public_key())), "{auth}");
    }
}
