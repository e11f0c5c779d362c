//! Agent releases (issue 30): what a release's Ed25519 signature covers, how it is made
//! and checked, and the names a release may carry. The cloud checks an upload's
//! signature against the release key the deployment trusts and gives that key to each
//! device at enrolment; the device checks every release again before it runs it, so a
//! binary changed in storage or in transit is refused on the device itself.
//!
//! The signature covers the target, the version, the size and the SHA-256 of the
//! binary together: a signed binary cannot be offered under another version or for
//! another target.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ring::signature::{ED25519, Ed25519KeyPair, KeyPair, UnparsedPublicKey};

/// The targets a release is built for (Rust's `std::env::consts::ARCH` names).
pub const TARGETS: [&str; 2] = ["x86_64", "aarch64"];

/// The environments (channels) a release is in and a device follows.
pub const ENVIRONMENTS: [&str; 2] = ["dev", "prod"];

/// The target this program was built for.
pub fn this_target() -> &'static str {
    std::env::consts::ARCH
}

/// What is signed: one line per field, so no field can run into another.
pub fn signed_message(target: &str, version: &str, size_bytes: i64, sha256: &str) -> Vec<u8> {
    format!("gemba-release/v1\n{target}\n{version}\n{size_bytes}\n{sha256}\n").into_bytes()
}

/// Checks `signature` (base64) of the release against `public_key` (base64 of the 32
/// raw bytes): `Err` says what is wrong, in an operator's words.
pub fn verify(
    public_key: &str,
    signature: &str,
    target: &str,
    version: &str,
    size_bytes: i64,
    sha256: &str,
) -> Result<(), String> {
    let key = STANDARD
        .decode(public_key.trim())
        .ok()
        .filter(|k| k.len() == 32)
        .ok_or("the release key is not an Ed25519 public key (32 bytes, base64)")?;
    let sig = STANDARD
        .decode(signature.trim())
        .ok()
        .filter(|s| s.len() == 64)
        .ok_or("the signature is not an Ed25519 signature (64 bytes, base64)")?;
    UnparsedPublicKey::new(&ED25519, key)
        .verify(&signed_message(target, version, size_bytes, sha256), &sig)
        .map_err(|_| "the signature does not match the release key".to_string())
}

/// A release signing key: made once, kept secret by whoever publishes releases.
pub struct SigningKey {
    pair: Ed25519KeyPair,
    pkcs8: Vec<u8>,
}

impl SigningKey {
    /// A new random key.
    pub fn generate() -> Result<SigningKey, String> {
        let rng = ring::rand::SystemRandom::new();
        let doc = Ed25519KeyPair::generate_pkcs8(&rng).map_err(|_| "no random numbers")?;
        SigningKey::from_pkcs8(doc.as_ref())
    }

    /// The key from its PKCS#8 bytes.
    pub fn from_pkcs8(pkcs8: &[u8]) -> Result<SigningKey, String> {
        let pair = Ed25519KeyPair::from_pkcs8_maybe_unchecked(pkcs8)
            .map_err(|_| "not an Ed25519 private key (PKCS#8)")?;
        Ok(SigningKey {
            pair,
            pkcs8: pkcs8.to_vec(),
        })
    }

    /// The key as kept in a file: base64 of its PKCS#8 bytes on one line.
    pub fn to_text(&self) -> String {
        STANDARD.encode(&self.pkcs8)
    }

    /// The key from [`SigningKey::to_text`]'s form.
    pub fn from_text(text: &str) -> Result<SigningKey, String> {
        let bytes = STANDARD
            .decode(text.trim())
            .map_err(|_| "the release signing key is not base64")?;
        SigningKey::from_pkcs8(&bytes)
    }

    /// The public key, base64 of its 32 bytes (what devices and the cloud trust).
    pub fn public_key(&self) -> String {
        STANDARD.encode(self.pair.public_key().as_ref())
    }

    /// The release's signature, base64.
    pub fn sign(&self, target: &str, version: &str, size_bytes: i64, sha256: &str) -> String {
        STANDARD.encode(
            self.pair
                .sign(&signed_message(target, version, size_bytes, sha256))
                .as_ref(),
        )
    }
}

/// A release's version: 1 to 64 of letters, digits and `.-+_`, starting with a letter
/// or digit (it names a folder on the device).
pub fn check_version(v: &str) -> Result<(), String> {
    check_name("version", v)
}

/// A release's branch: the same characters as a version, plus `/`.
pub fn check_branch(b: &str) -> Result<(), String> {
    if b.is_empty() || b.len() > 64 {
        return Err("A branch is 1 to 64 characters.".into());
    }
    check_name("branch", &b.replace('/', "-"))
}

fn check_name(what: &str, v: &str) -> Result<(), String> {
    let ok = !v.is_empty()
        && v.len() <= 64
        && v.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || ".-+_".contains(c));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "A {what} is 1 to 64 letters, digits and . - + _, starting with a letter or digit."
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    #[test]
    fn a_signature_holds_for_its_release_only() {
        let key = SigningKey::generate().unwrap();
        let public = key.public_key();
        let sig = key.sign("x86_64", "1.2.0", 1000, SHA);
        assert_eq!(verify(&public, &sig, "x86_64", "1.2.0", 1000, SHA), Ok(()));
        // Any field changed: refused.
        for (t, v, n, h) in [
            ("aarch64", "1.2.0", 1000, SHA),
            ("x86_64", "1.2.1", 1000, SHA),
            ("x86_64", "1.2.0", 1001, SHA),
            ("x86_64", "1.2.0", 1000, &SHA.replace('9', "8")[..]),
        ] {
            assert!(
                verify(&public, &sig, t, v, n, h)
                    .unwrap_err()
                    .contains("does not match")
            );
        }
        // Another key: refused.
        let other = SigningKey::generate().unwrap().public_key();
        assert!(verify(&other, &sig, "x86_64", "1.2.0", 1000, SHA).is_err());
        // Not a key, not a signature: said so.
        assert!(
            verify("abc", &sig, "x86_64", "1.2.0", 1000, SHA)
                .unwrap_err()
                .contains("release key")
        );
        assert!(
            verify(&public, "AAAA", "x86_64", "1.2.0", 1000, SHA)
                .unwrap_err()
                .contains("signature is not")
        );
    }

    #[test]
    fn a_key_survives_its_text_form() {
        let key = SigningKey::generate().unwrap();
        let again = SigningKey::from_text(&key.to_text()).unwrap();
        assert_eq!(again.public_key(), key.public_key());
        assert!(SigningKey::from_text("not base64!").is_err());
        assert!(SigningKey::from_text("AAAA").is_err());
    }

    #[test]
    fn versions_and_branches_are_folder_safe() {
        for ok in ["1.2.0", "0.3.0-rc.1+build7", "v2"] {
            assert_eq!(check_version(ok), Ok(()), "{ok}");
        }
        for bad in ["", "../x", ".hidden", "a b", "1/2", &"9".repeat(65)] {
            assert!(check_version(bad).is_err(), "{bad}");
        }
        assert_eq!(check_branch("release/1.x"), Ok(()));
        assert!(check_branch("/main").is_err());
        assert!(check_branch("").is_err());
    }
}
