//! Authenticator-app (TOTP) secrets sealed at rest (issue 28): whoever reads the
//! database (a backup, a stolen file) cannot mint a user's codes without the key.
//!
//! A sealed secret is text in the same column: `v1:` then base64 (standard, padded) of
//! a 12-byte random nonce and the ChaCha20-Poly1305 ciphertext with its 16-byte tag
//! (ring's AEAD, already the TLS stack's). The associated data binds it to its user
//! (`gemba totp {user id}`), so a sealed secret copied onto another row does not open.
//!
//! The key is 32 bytes, given as base64: `totp_key` in the settings, or else
//! `{data}/totp.key`, made on first start like `jwt.key` (mode 0600 from the creation
//! mask [`crate::private::keep_private`] set). At start [`seal_stored`] seals every
//! plaintext secret an older version stored, in one transaction, and checks that the
//! key opens every sealed one: a wrong or missing key stops the start with a clear
//! error instead of locking each user out at sign-in.
//!
//! Invariant: after start, the `users.totp_secret` and `users.totp_pending_secret`
//! columns hold only sealed secrets (or NULL); [`TotpKey::open`] refuses anything else.

use std::path::Path;

use anyhow::Context;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rand::RngCore;
use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};

use crate::db::Db;

/// What a sealed secret starts with.
pub const PREFIX: &str = "v1:";
/// The key file's name in the data folder, used when `totp_key` is not set.
pub const KEY_FILE: &str = "totp.key";
const KEY_LEN: usize = 32;

/// Why a stored secret did not open.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    #[error("the stored TOTP secret is not sealed (no `v1:` prefix)")]
    NotSealed,
    #[error("the stored TOTP secret is not valid base64 or too short")]
    Malformed,
    #[error("the TOTP key does not open the stored secret (another key, or the row was changed)")]
    WrongKey,
}

/// The key that seals and opens TOTP secrets.
pub struct TotpKey(LessSafeKey);

impl std::fmt::Debug for TotpKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TotpKey(<redacted>)")
    }
}

impl TotpKey {
    /// The key of `text`: base64 of 32 bytes.
    pub fn parse(text: &str) -> anyhow::Result<TotpKey> {
        let bytes = STANDARD
            .decode(text.trim())
            .ok()
            .filter(|b| b.len() == KEY_LEN)
            .context(
                "a TOTP key is 32 bytes in base64, e.g. the output of `openssl rand -base64 32`",
            )?;
        let key = UnboundKey::new(&CHACHA20_POLY1305, &bytes)
            .map_err(|_| anyhow::anyhow!("the TOTP key was refused"))?;
        Ok(TotpKey(LessSafeKey::new(key)))
    }

    /// A new random key, as base64.
    pub fn generate() -> String {
        let mut k = [0u8; KEY_LEN];
        rand::rngs::OsRng.fill_bytes(&mut k);
        STANDARD.encode(k)
    }

    /// `secret` of user `user` sealed: `v1:…`, a new nonce each time.
    pub fn seal(&self, user: i64, secret: &str) -> String {
        let mut nonce = [0u8; NONCE_LEN];
        rand::rngs::OsRng.fill_bytes(&mut nonce);
        let mut data = secret.as_bytes().to_vec();
        self.0
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(aad(user)),
                &mut data,
            )
            .expect("ChaCha20-Poly1305 seals any secret shorter than 256 GiB");
        let mut out = nonce.to_vec();
        out.extend_from_slice(&data);
        format!("{PREFIX}{}", STANDARD.encode(out))
    }

    /// The secret of user `user` in `stored`, which [`TotpKey::seal`] made.
    pub fn open(&self, user: i64, stored: &str) -> Result<String, OpenError> {
        let b64 = stored.strip_prefix(PREFIX).ok_or(OpenError::NotSealed)?;
        let mut data = STANDARD.decode(b64).map_err(|_| OpenError::Malformed)?;
        if data.len() < NONCE_LEN + CHACHA20_POLY1305.tag_len() {
            return Err(OpenError::Malformed);
        }
        let mut body = data.split_off(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(&data).map_err(|_| OpenError::Malformed)?;
        let plain = self
            .0
            .open_in_place(nonce, Aad::from(aad(user)), &mut body)
            .map_err(|_| OpenError::WrongKey)?;
        String::from_utf8(plain.to_vec()).map_err(|_| OpenError::Malformed)
    }
}

/// Whether `stored` is a sealed secret (not one an older version stored in plain).
pub fn is_sealed(stored: &str) -> bool {
    stored.starts_with(PREFIX)
}

fn aad(user: i64) -> Vec<u8> {
    format!("gemba totp {user}").into_bytes()
}

/// The key from `configured` (`totp_key`), else from `{data}/totp.key`. The file is
/// made when missing, unless `sealed_exist` (the database already holds sealed secrets:
/// a new key could not open them, so the key must be restored instead).
pub fn load_key(
    configured: Option<&str>,
    data: &Path,
    sealed_exist: bool,
) -> anyhow::Result<TotpKey> {
    if let Some(k) = configured {
        return TotpKey::parse(k).context("totp_key");
    }
    let path = data.join(KEY_FILE);
    match std::fs::read_to_string(&path) {
        Ok(k) => TotpKey::parse(&k).with_context(|| format!("{}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if sealed_exist {
                anyhow::bail!(
                    "the database holds sealed TOTP secrets but {} is missing and `totp_key` \
                     is not set: restore the key they were sealed with",
                    path.display()
                );
            }
            let k = TotpKey::generate();
            // 0600: written under the creation mask `private::keep_private` set.
            std::fs::write(&path, format!("{k}\n"))
                .with_context(|| format!("writing {}", path.display()))?;
            tracing::info!(path = %path.display(), "made a new TOTP key");
            TotpKey::parse(&k)
        }
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

/// Whether any user's TOTP secret is stored sealed.
pub async fn any_sealed(db: &Db) -> sqlx::Result<bool> {
    let n: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM users WHERE totp_secret LIKE 'v1:%' OR totp_pending_secret LIKE 'v1:%'",
    )
    .fetch_one(&db.pool)
    .await?;
    Ok(n > 0)
}

/// What [`seal_stored`] did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Sealed {
    /// Secrets that were plaintext and are now sealed.
    pub sealed: usize,
    /// Secrets already sealed, which the key opens.
    pub checked: usize,
}

/// Seals every plaintext TOTP secret, in one transaction, and checks that `key` opens
/// every sealed one; a secret it cannot open fails the whole (nothing is changed).
/// Running it again changes nothing.
pub async fn seal_stored(db: &Db, key: &TotpKey) -> anyhow::Result<Sealed> {
    let mut tx = db.begin_write().await?;
    let rows: Vec<(i64, Option<String>, Option<String>)> = sqlx::query_as(
        "SELECT id, totp_secret, totp_pending_secret FROM users \
         WHERE totp_secret IS NOT NULL OR totp_pending_secret IS NOT NULL ORDER BY id",
    )
    .fetch_all(&mut *tx)
    .await?;
    let mut done = Sealed::default();
    let mut unreadable = Vec::new();
    for (id, secret, pending) in rows {
        for (column, value) in [("totp_secret", secret), ("totp_pending_secret", pending)] {
            let Some(v) = value else { continue };
            if is_sealed(&v) {
                match key.open(id, &v) {
                    Ok(_) => done.checked += 1,
                    Err(_) => unreadable.push(id),
                }
                continue;
            }
            let q = format!("UPDATE users SET {column} = $1 WHERE id = $2 AND {column} = $3");
            sqlx::query(sqlx::AssertSqlSafe(q))
                .bind(key.seal(id, &v))
                .bind(id)
                .bind(&v)
                .execute(&mut *tx)
                .await?;
            done.sealed += 1;
        }
    }
    if !unreadable.is_empty() {
        unreadable.dedup();
        anyhow::bail!(
            "the TOTP key does not open the authenticator secrets of {} user(s) (ids {:?}): \
             set `totp_key` (or {KEY_FILE} in the data folder) to the key they were sealed with",
            unreadable.len(),
            unreadable
        );
    }
    tx.commit().await?;
    if done.sealed > 0 {
        tracing::info!(sealed = done.sealed, "sealed plaintext TOTP secrets");
    }
    Ok(done)
}

/// Opens the TOTP key for `settings` and seals what an older version left in plain.
pub async fn open_for(db: &Db, settings: &crate::config::Settings) -> anyhow::Result<TotpKey> {
    let configured = settings.totp_key.as_ref().map(|s| s.0.as_str());
    let key = load_key(configured, &settings.data, any_sealed(db).await?)?;
    seal_stored(db, &key).await?;
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> TotpKey {
        TotpKey::parse(&TotpKey::generate()).unwrap()
    }

    #[test]
    fn a_sealed_secret_opens_to_itself_and_hides_it() {
        let k = key();
        let s = k.seal(7, "JBSWY3DPEHPK3PXP");
        assert!(
            s.starts_with("v1:") && !s.contains("JBSWY3DPEHPK3PXP"),
            "{s}"
        );
        assert_eq!(k.open(7, &s).unwrap(), "JBSWY3DPEHPK3PXP");
        // A new nonce each time: the same secret seals differently.
        assert_ne!(k.seal(7, "JBSWY3DPEHPK3PXP"), s);
    }

    #[test]
    fn tampering_another_key_or_another_user_fail() {
        let k = key();
        let s = k.seal(7, "JBSWY3DPEHPK3PXP");
        let mut raw = STANDARD.decode(&s[3..]).unwrap();
        for i in [0, NONCE_LEN, raw.len() - 1] {
            raw[i] ^= 1;
            let t = format!("v1:{}", STANDARD.encode(&raw));
            assert_eq!(k.open(7, &t), Err(OpenError::WrongKey), "byte {i}");
            raw[i] ^= 1;
        }
        assert_eq!(key().open(7, &s), Err(OpenError::WrongKey));
        assert_eq!(k.open(8, &s), Err(OpenError::WrongKey));
        assert_eq!(k.open(7, "JBSWY3DPEHPK3PXP"), Err(OpenError::NotSealed));
        assert_eq!(k.open(7, "v1:!!"), Err(OpenError::Malformed));
        assert_eq!(k.open(7, "v1:AAAA"), Err(OpenError::Malformed));
    }

    #[test]
    fn keys_are_32_bytes_of_base64() {
        assert!(TotpKey::parse(&STANDARD.encode([1u8; 32])).is_ok());
        for bad in [
            "",
            "hunter2",
            &STANDARD.encode([1u8; 31]),
            &STANDARD.encode([1u8; 33]),
        ] {
            assert!(TotpKey::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(format!("{:?}", key()), "TotpKey(<redacted>)");
    }

    #[test]
    fn the_key_file_is_made_once_and_not_when_sealed_secrets_exist() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        assert!(load_key(None, d, true).is_err());
        assert!(!d.join(KEY_FILE).exists());
        let a = load_key(None, d, false).unwrap();
        let s = a.seal(1, "S");
        let b = load_key(None, d, true).unwrap();
        assert_eq!(b.open(1, &s).unwrap(), "S");
        std::fs::write(d.join(KEY_FILE), "not a key").unwrap();
        let e = load_key(None, d, false).unwrap_err();
        assert!(format!("{e:#}").contains("32 bytes in base64"), "{e:#}");
        // The configured key wins over the file.
        let k = TotpKey::generate();
        let c = load_key(Some(&k), d, true).unwrap();
        assert_eq!(
            c.open(1, &TotpKey::parse(&k).unwrap().seal(1, "S"))
                .unwrap(),
            "S"
        );
    }
}
