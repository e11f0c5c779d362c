//! A release taken by the running agent: checked (supervised, the target, the
//! signature against the enrolment's release key), downloaded (size and SHA-256),
//! put in place and staged for the supervisor. Nothing that fails a check is kept.

use std::path::Path;

use anyhow::{Context, bail};
use gemba_shared::release;

use super::{Phase, Record, binary, current, dir, save, version::version};

/// A release the cloud offers.
#[derive(Debug, Clone)]
pub struct Offer {
    pub release: i64,
    pub version: String,
    pub target: String,
    pub url: String,
    pub sha256: String,
    pub size_bytes: i64,
    pub signature: String,
}

/// What taking an offer came to.
#[derive(Debug, PartialEq)]
pub enum Taken {
    /// This agent is that version already: nothing to do.
    Already,
    /// Checked and in place, staged: the agent exits for the supervisor to run it.
    Staged,
}

/// Checks `offer` and, when it holds, downloads and stages it in data folder `data`;
/// `Err` says why it was refused, and the device runs what it ran.
pub async fn take(
    data: &Path,
    http: &reqwest::Client,
    release_key: Option<&str>,
    supervised: bool,
    offer: &Offer,
) -> anyhow::Result<Taken> {
    release::check_version(&offer.version).map_err(anyhow::Error::msg)?;
    if offer.version == version() {
        return Ok(Taken::Already);
    }
    if !supervised {
        bail!(
            "this agent was not started by `gemba-agent supervise`, so it cannot restart \
             into a new version (run it as the package's service does)"
        );
    }
    if offer.target != release::this_target() {
        bail!(
            "release {} is built for {}; this device is {}",
            offer.version,
            offer.target,
            release::this_target()
        );
    }
    let Some(key) = release_key else {
        bail!("this device's enrolment has no release key: enrol it again to take releases");
    };
    release::verify(
        key,
        &offer.signature,
        &offer.target,
        &offer.version,
        offer.size_bytes,
        &offer.sha256,
    )
    .map_err(|why| anyhow::anyhow!("release {} is refused: {why}", offer.version))?;
    let dest = binary(data, &offer.version);
    let part = dir(data)
        .join("bin")
        .join(format!(".{}.part", offer.version));
    let got = crate::http::download_checked(
        http,
        &offer.url,
        &part,
        &dest,
        &offer.sha256,
        offer.size_bytes,
        "the release",
    )
    .await;
    if got.is_err()
        && let Some(folder) = dest.parent()
    {
        // Its folder, made for it, goes too.
        let _ = std::fs::remove_dir(folder);
    }
    got.with_context(|| format!("downloading release {}", offer.version))?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dest, std::fs::Permissions::from_mode(0o755))?;
    }
    save(
        data,
        &Record {
            release: offer.release,
            version: offer.version.clone(),
            previous: current(data),
            phase: Phase::Staged,
        },
    )?;
    Ok(Taken::Staged)
}

/// Notes a refused offer, so the status says so until another begins.
pub fn refused(data: &Path, offer: &Offer, why: &str) -> Record {
    let r = Record {
        release: offer.release,
        version: offer.version.clone(),
        previous: current(data),
        phase: Phase::Failed {
            why: why.to_string(),
        },
    };
    if let Err(e) = save(data, &r) {
        tracing::error!(error = %e, "noting the refused release");
    }
    r
}

/// Removes the releases under `bin/` but `keep` (the running one and the one before).
pub fn prune(data: &Path, keep: &[Option<&str>]) {
    let Ok(entries) = std::fs::read_dir(dir(data).join("bin")) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if !keep.contains(&Some(name.as_str())) {
            let _ = std::fs::remove_dir_all(e.path()).or_else(|_| std::fs::remove_file(e.path()));
        }
    }
}
