//! The release key (issue 30): the Ed25519 public key agent releases must be signed for.
//! The cloud refuses an upload whose signature it does not verify, and gives the key to
//! every device at enrolment, which checks each release again before it runs it.
//!
//! `release_public_key` names it; the private key then stays with whoever builds
//! releases. Unset, the cloud makes a signing key once in its data folder
//! (`release-signing.key`, base64 PKCS#8, mode 0600) and trusts its public key, so a
//! one-machine deployment and the demo sign their own releases
//! (`gemba-cloud sign-release`).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use gemba_shared::release::SigningKey;

use crate::config::Settings;

/// The signing key's file in the data folder.
pub const KEY_FILE: &str = "release-signing.key";

/// Where the data folder's signing key is.
pub fn key_path(data: &Path) -> PathBuf {
    data.join(KEY_FILE)
}

/// The signing key at `path`, made (and written, readable by its owner only) when the
/// file is missing.
pub fn signing_key(path: &Path) -> anyhow::Result<SigningKey> {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            SigningKey::from_text(&text).map_err(|m| anyhow::anyhow!("{}: {m}", path.display()))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let key = SigningKey::generate().map_err(anyhow::Error::msg)?;
            if let Some(dir) = path.parent() {
                // The data folder, private as `crate::private` keeps it.
                use std::os::unix::fs::DirBuilderExt;
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
            }
            write_private(path, &key.to_text())?;
            tracing::info!(file = %path.display(), "made the release signing key");
            Ok(key)
        }
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

/// The public key the deployment trusts: `release_public_key`, checked, else the data
/// folder's signing key's (made when missing).
pub fn public_key(settings: &Settings) -> anyhow::Result<String> {
    match &settings.release_public_key {
        Some(k) => {
            let bytes = STANDARD
                .decode(k.trim())
                .ok()
                .filter(|b| b.len() == 32)
                .context(
                    "release_public_key is not an Ed25519 public key (32 bytes in base64, \
                     as `gemba-cloud release-key` prints it)",
                )?;
            Ok(STANDARD.encode(bytes))
        }
        None => Ok(signing_key(&key_path(&settings.data))?.public_key()),
    }
}

/// The signing key in `path`, which must exist (`sign-release --key`).
pub fn signing_key_at(path: &Path) -> anyhow::Result<SigningKey> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    SigningKey::from_text(&text).map_err(|m| anyhow::anyhow!("{}: {m}", path.display()))
}

/// The SHA-256 (lower-case hex) and size of the file at `path`, read in blocks.
pub fn digest(path: &Path) -> anyhow::Result<(String, i64)> {
    use sha2::{Digest, Sha256};
    use std::io::Read;
    let mut f = std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
    let mut sha = Sha256::new();
    let mut size = 0i64;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        sha.update(&buf[..n]);
        size += n as i64;
    }
    Ok((gemba_shared::hex(&sha.finalize()), size))
}

fn write_private(path: &Path, text: &str) -> anyhow::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("writing {}", path.display()))?;
    f.write_all(text.as_bytes())?;
    f.write_all(b"\n")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_key_is_made_once_private_and_its_public_key_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let settings = Settings {
            data: dir.path().join("data"),
            ..Settings::default()
        };
        let public = public_key(&settings).unwrap();
        let path = key_path(&settings.data);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        // The same key again, not a new one.
        assert_eq!(public_key(&settings).unwrap(), public);
        assert_eq!(signing_key(&path).unwrap().public_key(), public);
        // A configured key is trusted as given, and a bad one refused.
        let other = SigningKey::generate().unwrap().public_key();
        let configured = Settings {
            release_public_key: Some(other.clone()),
            ..settings.clone()
        };
        assert_eq!(public_key(&configured).unwrap(), other);
        let bad = Settings {
            release_public_key: Some("not a key".into()),
            ..settings
        };
        assert!(public_key(&bad).is_err());
    }
}
