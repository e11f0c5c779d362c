//! Self-update (issue 30). The agent runs under `gemba-agent supervise`, the one
//! process the service manager starts; the supervisor runs `gemba-agent run` (the
//! installed binary, or the release it was told to run) and starts it again when it
//! exits. A release is taken in four moves:
//!
//! 1. The running agent gets `Command::Update`, checks the release's signature against
//!    the release key of its enrolment, downloads it (size and SHA-256 checked), puts
//!    it under `{data}/update/bin/{version}/`, writes the [`Record`] as `staged` and
//!    exits with [`UPDATE_EXIT`] once its cameras closed their cycles (the outbox keeps
//!    what is not sent).
//! 2. The supervisor makes it `trying` with a deadline and runs the new version.
//! 3. The new version, once linked to the broker and up for a while, marks it
//!    `healthy` and reports `done`.
//! 4. If the new version exits first, or the deadline passes, the supervisor goes back
//!    to the binary that ran before (`rolled_back`, with why) and that one reports it.
//!
//! The folder's files:
//! - `update/update.json`: the latest [`Record`];
//! - `update/current`: the version the supervisor runs (absent: the installed binary);
//! - `update/bin/{version}/gemba-agent`: the releases taken (the running one and the
//!   one before are kept).

pub mod install;
pub mod supervise;
pub mod supervisor;
pub mod version;

use std::path::{Path, PathBuf};

use gemba_shared::mqtt::v1::{UpdateReport, UpdateState};
use serde::{Deserialize, Serialize};

/// The exit code of an agent that staged a release for the supervisor to run (EX_TEMPFAIL).
pub const UPDATE_EXIT: i32 = 75;

/// Set by the supervisor for the agent it runs: a self-update can restart it.
pub const SUPERVISED_ENV: &str = "GEMBA_AGENT_SUPERVISED";

/// The latest release the device took, and how far it got.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The release's id on the cloud.
    pub release: i64,
    pub version: String,
    /// What ran before: a version under `bin/`, or `None` for the installed binary.
    pub previous: Option<String>,
    #[serde(flatten)]
    pub phase: Phase,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum Phase {
    /// Checked and in place: the agent exits for the supervisor to run it.
    Staged,
    /// The supervisor runs it; it must be healthy before `deadline_ms` (this device's
    /// clock).
    Trying { deadline_ms: i64 },
    /// It came back healthy: the device runs it.
    Healthy,
    /// It did not come back healthy: the device went back to `previous`.
    RolledBack { why: String },
    /// Refused before anything changed (a bad signature, hash or target, a failed
    /// download): the device runs what it ran.
    Failed { why: String },
}

impl Record {
    /// The record as the status reports it.
    pub fn report(&self) -> UpdateReport {
        let (state, detail) = match &self.phase {
            Phase::Staged | Phase::Trying { .. } => (UpdateState::Restarting, None),
            Phase::Healthy => (UpdateState::Done, None),
            Phase::RolledBack { why } => (UpdateState::RolledBack, Some(why.clone())),
            Phase::Failed { why } => (UpdateState::Failed, Some(why.clone())),
        };
        UpdateReport {
            release: self.release,
            version: self.version.clone(),
            state,
            detail,
        }
    }
}

/// The update folder of data folder `data`.
pub fn dir(data: &Path) -> PathBuf {
    data.join("update")
}

/// Where release `version`'s binary is kept.
pub fn binary(data: &Path, version: &str) -> PathBuf {
    dir(data).join("bin").join(version).join("gemba-agent")
}

/// The latest record, if any (one that cannot be read counts as none).
pub fn load(data: &Path) -> Option<Record> {
    let b = std::fs::read(dir(data).join("update.json")).ok()?;
    match serde_json::from_slice(&b) {
        Ok(r) => Some(r),
        Err(e) => {
            tracing::warn!(error = %e, "update.json cannot be read: ignored");
            None
        }
    }
}

/// Writes the record whole (a temporary file renamed over it).
pub fn save(data: &Path, r: &Record) -> anyhow::Result<()> {
    write_whole(&dir(data).join("update.json"), &serde_json::to_vec(r)?)
}

/// The version the supervisor runs (`None`: the installed binary).
pub fn current(data: &Path) -> Option<String> {
    let v = std::fs::read_to_string(dir(data).join("current")).ok()?;
    let v = v.trim();
    (!v.is_empty() && gemba_shared::release::check_version(v).is_ok()).then(|| v.to_string())
}

/// Makes `version` (`None`: the installed binary) the one the supervisor runs.
pub fn set_current(data: &Path, version: Option<&str>) -> anyhow::Result<()> {
    let path = dir(data).join("current");
    match version {
        Some(v) => write_whole(&path, v.as_bytes()),
        None => match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.into()),
            _ => Ok(()),
        },
    }
}

/// `bytes` to `path`, whole or not at all, and on disk before it returns.
fn write_whole(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d)?;
    }
    let tmp = path.with_extension("tmp");
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_record_and_the_current_version_survive_on_disk() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(load(d.path()), None);
        assert_eq!(current(d.path()), None);
        let r = Record {
            release: 4,
            version: "1.2.0".into(),
            previous: None,
            phase: Phase::Trying { deadline_ms: 99 },
        };
        save(d.path(), &r).unwrap();
        assert_eq!(load(d.path()), Some(r.clone()));
        assert_eq!(r.report().state, UpdateState::Restarting);
        set_current(d.path(), Some("1.2.0")).unwrap();
        assert_eq!(current(d.path()).as_deref(), Some("1.2.0"));
        set_current(d.path(), None).unwrap();
        set_current(d.path(), None).unwrap();
        assert_eq!(current(d.path()), None);
        // A current file naming no version is the installed binary.
        std::fs::write(dir(d.path()).join("current"), "../../bin/sh").unwrap();
        assert_eq!(current(d.path()), None);
        let back = Record {
            phase: Phase::RolledBack {
                why: "exited".into(),
            },
            ..r
        };
        assert_eq!(back.report().state, UpdateState::RolledBack);
        assert_eq!(back.report().detail.as_deref(), Some("exited"));
    }
}
