//! Self-update on the wire (issue 30): the release the cloud asks a device to run
//! ([`super::Command::Update`]) and how the device reports where it is with it
//! ([`UpdateReport`] in its status). The device checks a release's size, SHA-256 and
//! signature (`crate::release`) before it runs it; the new version must come back
//! healthy within a time limit or the device rolls back to the binary it had.

use serde::{Deserialize, Serialize};

/// Where a device is with a release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum UpdateState {
    /// Asked; not begun (the cloud's state only).
    Pending,
    /// Sent to the device (the cloud's state only).
    Sent,
    /// Downloading and checking the release.
    Downloading,
    /// Checked and in place: the agent restarts into it.
    Restarting,
    /// The new version runs and came back healthy.
    Done,
    /// Refused before anything changed (a bad hash or signature, another target, a
    /// download that failed): the device runs what it ran.
    Failed,
    /// The new version did not come back healthy in time: the device went back to
    /// the binary it had.
    RolledBack,
}

impl UpdateState {
    /// The device is done with the release, one way or the other.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            UpdateState::Done | UpdateState::Failed | UpdateState::RolledBack
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            UpdateState::Pending => "pending",
            UpdateState::Sent => "sent",
            UpdateState::Downloading => "downloading",
            UpdateState::Restarting => "restarting",
            UpdateState::Done => "done",
            UpdateState::Failed => "failed",
            UpdateState::RolledBack => "rolled_back",
        }
    }

    pub fn parse(s: &str) -> Option<UpdateState> {
        [
            UpdateState::Pending,
            UpdateState::Sent,
            UpdateState::Downloading,
            UpdateState::Restarting,
            UpdateState::Done,
            UpdateState::Failed,
            UpdateState::RolledBack,
        ]
        .into_iter()
        .find(|x| x.as_str() == s)
    }
}

/// The device's latest update, in its status until another begins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct UpdateReport {
    /// The release's id on the cloud.
    pub release: i64,
    pub version: String,
    pub state: UpdateState,
    /// Why it failed or rolled back, in an operator's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub detail: Option<String>,
}

impl UpdateReport {
    pub(super) fn check(&self) -> Result<(), String> {
        if self.version.len() > 64 || self.detail.as_ref().is_some_and(|d| d.len() > 1000) {
            return Err("an update report's version or detail is too long".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_read_back_and_three_are_final() {
        for s in [
            UpdateState::Pending,
            UpdateState::Sent,
            UpdateState::Downloading,
            UpdateState::Restarting,
            UpdateState::Done,
            UpdateState::Failed,
            UpdateState::RolledBack,
        ] {
            assert_eq!(UpdateState::parse(s.as_str()), Some(s));
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(json, format!("\"{}\"", s.as_str()));
        }
        assert_eq!(UpdateState::parse("gone"), None);
        let finals = [
            UpdateState::Done,
            UpdateState::Failed,
            UpdateState::RolledBack,
        ];
        assert!(finals.iter().all(|s| s.is_final()));
        assert!(!UpdateState::Restarting.is_final());
    }
}
