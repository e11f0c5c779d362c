//! The cloud's files are for the service alone (issue 28): the data folder (database,
//! keys, device credentials, the e-mail outbox with its one-time codes and links, media)
//! is made 0700, or tightened to it, and every file the process creates afterwards is
//! 0600 and every folder 0700 (file mode creation mask 077). Files an older version left
//! readable (the database, the key) are tightened too.

use std::fs::Permissions;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use anyhow::Context;
use rustix::fs::Mode;

/// Files of the data folder older versions made with the default mask.
const SECRETS: [&str; 5] = [
    "gemba.db",
    "gemba.db-wal",
    "gemba.db-shm",
    "jwt.key",
    "totp.key",
];

/// Sets the process's creation mask to 077 and makes `data` (and the secrets already in
/// it) private to this user.
pub fn keep_private(data: &Path) -> anyhow::Result<()> {
    rustix::process::umask(Mode::from_raw_mode(0o077));
    std::fs::create_dir_all(data)
        .with_context(|| format!("creating data folder {}", data.display()))?;
    tighten(data, 0o700)?;
    for name in SECRETS {
        let f = data.join(name);
        if f.exists() {
            tighten(&f, 0o600)?;
        }
    }
    Ok(())
}

/// Takes group and other permissions away from `path` (keeping at most `mode`).
fn tighten(path: &Path, mode: u32) -> anyhow::Result<()> {
    let now = std::fs::metadata(path)?.permissions().mode() & 0o777;
    if now & !mode != 0 {
        std::fs::set_permissions(path, Permissions::from_mode(now & mode))
            .with_context(|| format!("making {} private", path.display()))?;
        tracing::info!(path = %path.display(), from = format!("{now:o}"), "made private");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_readable_data_folder_and_its_secrets_are_tightened() {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        std::fs::create_dir(&data).unwrap();
        std::fs::set_permissions(&data, Permissions::from_mode(0o755)).unwrap();
        for (name, m) in [
            ("gemba.db", 0o644),
            ("jwt.key", 0o640),
            ("other.txt", 0o644),
        ] {
            std::fs::write(data.join(name), "x").unwrap();
            std::fs::set_permissions(data.join(name), Permissions::from_mode(m)).unwrap();
        }
        keep_private(&data).unwrap();
        assert_eq!(mode(&data), 0o700);
        assert_eq!(mode(&data.join("gemba.db")), 0o600);
        assert_eq!(mode(&data.join("jwt.key")), 0o600);
        // Not one of the secrets: left as it was (the folder already hides it).
        assert_eq!(mode(&data.join("other.txt")), 0o644);
        // What is made from now on is private.
        std::fs::write(data.join("new.eml"), "x").unwrap();
        std::fs::create_dir(data.join("sub")).unwrap();
        assert_eq!(mode(&data.join("new.eml")), 0o600);
        assert_eq!(mode(&data.join("sub")), 0o700);
        // An owner-only mode stays as it is.
        std::fs::set_permissions(data.join("jwt.key"), Permissions::from_mode(0o400)).unwrap();
        keep_private(&data).unwrap();
        assert_eq!(mode(&data.join("jwt.key")), 0o400);
    }
}
