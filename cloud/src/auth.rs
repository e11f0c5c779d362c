//! Authentication primitives: argon2id password hashes, HS256 access tokens,
//! opaque refresh and e-mail tokens (stored only as SHA-256 hashes), one-time codes
//! and TOTP. No database access here.

use std::sync::Arc;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{DecodingKey, EncodingKey, Header, Validation};
use rand::{Rng, RngCore};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio::sync::Semaphore;

use crate::config::Kdf;

/// Hashes and checks passwords. Work runs on the blocking pool: it is slow by design,
/// and each one holds `memory_kib` of memory, so at most one per core runs at a time
/// (the others wait their turn): a flood of sign-ins costs time, not memory.
#[derive(Clone)]
pub struct Passwords {
    params: Params,
    /// A hash of a random password, checked when the user does not exist so that
    /// both paths take the same time.
    dummy: String,
    /// One permit per hash or check that may run at once.
    permits: Arc<Semaphore>,
}

impl Passwords {
    /// At most one hash or check per core at a time.
    pub fn new(kdf: &Kdf) -> anyhow::Result<Passwords> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Passwords::with_limit(kdf, cores)
    }

    /// At most `at_once` hashes or checks at a time.
    pub fn with_limit(kdf: &Kdf, at_once: usize) -> anyhow::Result<Passwords> {
        let params = Params::new(kdf.memory_kib, kdf.iterations, kdf.parallelism, None)
            .map_err(|e| anyhow::anyhow!("invalid kdf parameters: {e}"))?;
        let mut p = Passwords {
            params,
            dummy: String::new(),
            permits: Arc::new(Semaphore::new(at_once.max(1))),
        };
        p.dummy = p.hash_now(&random_token())?;
        Ok(p)
    }

    fn argon(&self) -> Argon2<'static> {
        Argon2::new(Algorithm::Argon2id, Version::V0x13, self.params.clone())
    }

    fn hash_now(&self, password: &str) -> anyhow::Result<String> {
        let salt = SaltString::generate(&mut rand::rngs::OsRng);
        self.argon()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| anyhow::anyhow!("hashing password: {e}"))
    }

    pub async fn hash(&self, password: String) -> anyhow::Result<String> {
        let _turn = self.permits.acquire().await?;
        let me = self.clone();
        tokio::task::spawn_blocking(move || me.hash_now(&password)).await?
    }

    /// Checks `password` against `hash`; with `None`, checks against a dummy and fails.
    pub async fn verify(&self, password: String, hash: Option<String>) -> bool {
        let me = self.clone();
        let real = hash.is_some();
        let hash = hash.unwrap_or_else(|| self.dummy.clone());
        let Ok(_turn) = self.permits.acquire().await else {
            return false;
        };
        let ok = tokio::task::spawn_blocking(move || {
            PasswordHash::new(&hash)
                .map(|h| me.argon().verify_password(password.as_bytes(), &h).is_ok())
                .unwrap_or(false)
        })
        .await
        .unwrap_or(false);
        ok && real
    }
}

/// Claims of an access token.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    /// User id.
    pub sub: i64,
    /// Auth session id (the client's `SessionKey`).
    pub sid: String,
    /// False for the temporary token of a sign-in that still needs its one-time code.
    pub full: bool,
    pub iat: i64,
    pub exp: i64,
}

/// Claims of a signed media URL: one object of one organisation, until `exp`. Its
/// audience is `media`, and it has none of an access token's fields, so neither passes
/// for the other.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MediaClaims {
    /// The object's key within the organisation (`videos/7/video`).
    pub key: String,
    pub org: i64,
    pub exp: i64,
    pub aud: String,
    /// A media URL of the portal: the auth session it was made for, which must still be
    /// open when it is used (sign-out ends it). None in the tokens devices get.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sid: Option<String>,
}

const MEDIA_AUDIENCE: &str = "media";
const UPLOAD_AUDIENCE: &str = "file-upload";
const RELEASE_AUDIENCE: &str = "release";

#[derive(Clone)]
pub struct Keys {
    enc: EncodingKey,
    dec: DecodingKey,
}

impl Keys {
    pub fn new(secret: &[u8]) -> Keys {
        Keys {
            enc: EncodingKey::from_secret(secret),
            dec: DecodingKey::from_secret(secret),
        }
    }

    pub fn sign(&self, claims: &Claims) -> anyhow::Result<String> {
        Ok(jsonwebtoken::encode(&Header::default(), claims, &self.enc)?)
    }

    pub fn verify(&self, token: &str) -> Option<Claims> {
        let v = Validation {
            leeway: 5,
            ..Validation::default()
        };
        jsonwebtoken::decode::<Claims>(token, &self.dec, &v)
            .ok()
            .map(|d| d.claims)
    }

    /// A token for object `key` of `org`, good until `exp` (unix seconds).
    pub fn sign_media(&self, org: i64, key: &str, exp: i64) -> anyhow::Result<String> {
        self.sign_for(MEDIA_AUDIENCE, org, key, exp)
    }

    /// [`Keys::sign_media`] for auth session `sid`: good only while it stays open.
    pub fn sign_session_media(
        &self,
        sid: &str,
        org: i64,
        key: &str,
        exp: i64,
    ) -> anyhow::Result<String> {
        let claims = MediaClaims {
            sid: Some(sid.into()),
            ..media_claims(MEDIA_AUDIENCE, org, key, exp)
        };
        Ok(jsonwebtoken::encode(
            &Header::default(),
            &claims,
            &self.enc,
        )?)
    }

    pub fn verify_media(&self, token: &str) -> Option<MediaClaims> {
        self.verify_for(MEDIA_AUDIENCE, token)
    }

    /// A token for the agent binary at `key` of the platform's objects (a release's
    /// download, issue 30), good until `exp`: no organisation's, and not a media token.
    pub fn sign_release(&self, key: &str, exp: i64) -> anyhow::Result<String> {
        self.sign_for(RELEASE_AUDIENCE, 0, key, exp)
    }

    pub fn verify_release(&self, token: &str) -> Option<MediaClaims> {
        self.verify_for(RELEASE_AUDIENCE, token)
    }

    /// A token that uploads object `key` of `org` (`/api/files/{token}`, the local
    /// object folder's upload URL), good until `exp`: not a media token.
    pub fn sign_upload(&self, org: i64, key: &str, exp: i64) -> anyhow::Result<String> {
        self.sign_for(UPLOAD_AUDIENCE, org, key, exp)
    }

    pub fn verify_upload(&self, token: &str) -> Option<MediaClaims> {
        self.verify_for(UPLOAD_AUDIENCE, token)
    }

    fn sign_for(&self, aud: &str, org: i64, key: &str, exp: i64) -> anyhow::Result<String> {
        let claims = media_claims(aud, org, key, exp);
        Ok(jsonwebtoken::encode(
            &Header::default(),
            &claims,
            &self.enc,
        )?)
    }

    fn verify_for(&self, aud: &str, token: &str) -> Option<MediaClaims> {
        let mut v = Validation {
            leeway: 5,
            ..Validation::default()
        };
        v.set_audience(&[aud]);
        jsonwebtoken::decode::<MediaClaims>(token, &self.dec, &v)
            .ok()
            .map(|d| d.claims)
    }
}

fn media_claims(aud: &str, org: i64, key: &str, exp: i64) -> MediaClaims {
    MediaClaims {
        key: key.to_string(),
        org,
        exp,
        aud: aud.into(),
        sid: None,
    }
}

pub fn random_token() -> String {
    let mut b = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut b);
    URL_SAFE_NO_PAD.encode(b)
}

/// SHA-256 of a token, hex; only this is stored.
pub fn token_hash(token: &str) -> String {
    let d = Sha256::digest(token.as_bytes());
    gemba_shared::hex(&d)
}

/// A one-time enrolment code for a device: 12 characters of an alphabet without
/// look-alikes, in groups of four (about 60 bits).
pub fn enrolment_code() -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
    let mut rng = rand::rngs::OsRng;
    let chars: Vec<char> = (0..12)
        .map(|_| ALPHABET[rng.gen_range(0..ALPHABET.len())] as char)
        .collect();
    chars
        .chunks(4)
        .map(|c| c.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join("-")
}

/// An enrolment code as typed: case and separators do not matter.
fn normal_enrolment_code(code: &str) -> String {
    code.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// Could `code` be an enrolment code (12 letters or digits, however typed)?
pub fn is_enrolment_code(code: &str) -> bool {
    normal_enrolment_code(code).len() == 12
}

/// What is stored of an enrolment code: the hash of its normal form.
pub fn enrolment_code_hash(code: &str) -> String {
    token_hash(&normal_enrolment_code(code))
}

/// A 6-digit one-time code.
pub fn otp_code() -> String {
    format!("{:06}", rand::rngs::OsRng.gen_range(0..1_000_000u32))
}

/// Seconds per authenticator-app time step.
pub const TOTP_STEP_SECS: u64 = 30;

/// TOTP (RFC 6238, SHA-1, 6 digits, 30 s) for the authenticator-app method. It checks
/// one exact step (no skew): the caller tries the neighbouring steps itself, so it
/// knows which step a code belonged to and can refuse its replay.
pub fn totp(secret_b32: &str, account: &str) -> anyhow::Result<totp_rs::TOTP> {
    let secret = totp_rs::Secret::Encoded(secret_b32.to_string())
        .to_bytes()
        .map_err(|e| anyhow::anyhow!("bad totp secret: {e:?}"))?;
    totp_rs::TOTP::new(
        totp_rs::Algorithm::SHA1,
        6,
        0,
        TOTP_STEP_SECS,
        secret,
        Some("gemba".to_string()),
        account.to_string(),
    )
    .map_err(|e| anyhow::anyhow!("totp: {e}"))
}

/// A new random TOTP secret, base32.
pub fn new_totp_secret() -> String {
    totp_rs::Secret::generate_secret().to_encoded().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fast_kdf() -> Kdf {
        Kdf {
            memory_kib: 1024,
            iterations: 1,
            parallelism: 1,
        }
    }

    #[tokio::test]
    async fn password_round_trip() {
        let p = Passwords::new(&fast_kdf()).unwrap();
        let h = p.hash("s3cret-pass".into()).await.unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(p.verify("s3cret-pass".into(), Some(h.clone())).await);
        assert!(!p.verify("wrong".into(), Some(h)).await);
        assert!(!p.verify("s3cret-pass".into(), None).await);
    }

    #[tokio::test]
    async fn a_hash_waits_while_every_turn_is_taken() {
        let p = Passwords::with_limit(&fast_kdf(), 1).unwrap();
        let turn = p.permits.clone().acquire_owned().await.unwrap();
        let (p2, p3) = (p.clone(), p.clone());
        let hash = tokio::spawn(async move { p2.hash("s3cret-pass".into()).await });
        let check = tokio::spawn(async move { p3.verify("s3cret-pass".into(), None).await });
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        assert!(!hash.is_finished() && !check.is_finished());
        drop(turn);
        assert!(hash.await.unwrap().is_ok());
        assert!(!check.await.unwrap());
    }

    #[test]
    fn media_tokens_and_access_tokens_do_not_pass_for_each_other() {
        let k = Keys::new(b"0123456789abcdef0123456789abcdef");
        let now = crate::db::now_ms() / 1000;
        let m = k.sign_media(3, "videos/1/video", now + 60).unwrap();
        let got = k.verify_media(&m).unwrap();
        assert_eq!((got.org, got.key.as_str()), (3, "videos/1/video"));
        assert!(k.verify(&m).is_none());
        // A release's download and a media URL are not each other.
        let r = k.sign_release("releases/1/gemba-agent", now + 60).unwrap();
        assert_eq!(k.verify_release(&r).unwrap().key, "releases/1/gemba-agent");
        assert!(k.verify_media(&r).is_none());
        assert!(k.verify_release(&m).is_none());
        let access = k
            .sign(&Claims {
                sub: 7,
                sid: "s".into(),
                full: true,
                iat: now,
                exp: now + 60,
            })
            .unwrap();
        assert!(k.verify_media(&access).is_none());
        let old = k.sign_media(3, "videos/1/video", now - 60).unwrap();
        assert!(k.verify_media(&old).is_none());
        let other = Keys::new(b"another secret, 32 bytes long!!!");
        assert!(other.verify_media(&m).is_none());
    }

    #[test]
    fn tokens_sign_and_reject_tampering() {
        let k = Keys::new(b"0123456789abcdef0123456789abcdef");
        let now = crate::db::now_ms() / 1000;
        let c = Claims {
            sub: 7,
            sid: "s".into(),
            full: true,
            iat: now,
            exp: now + 60,
        };
        let t = k.sign(&c).unwrap();
        assert_eq!(k.verify(&t).unwrap().sub, 7);
        assert!(
            Keys::new(b"another-key-another-key-another!!")
                .verify(&t)
                .is_none()
        );
        let expired = Claims {
            exp: now - 3600,
            ..c
        };
        assert!(k.verify(&k.sign(&expired).unwrap()).is_none());
    }

    #[test]
    fn otp_codes_are_six_digits() {
        for _ in 0..100 {
            assert!(gemba_shared::validate::otp(&otp_code()).is_ok());
        }
    }

    #[test]
    fn totp_generates_checkable_codes() {
        let s = new_totp_secret();
        let t = totp(&s, "a@b.co").unwrap();
        let code = t.generate_current().unwrap();
        assert!(t.check_current(&code).unwrap());
    }
}
