//! Agent releases and their roll-outs (the spec's section 7 "Binary deployment", issue
//! 30): the super admin uploads signed agent builds per target, a release in an
//! environment rolls out to the devices following that environment, in waves.

use serde::{Deserialize, Serialize};

use crate::mqtt::v1::UpdateState;

/// A release's `currentState`.
pub mod state {
    /// Uploaded; its roll-out has not begun (no device follows its environment and
    /// target, or a newer release took over before it began).
    pub const UPLOADED: &str = "uploaded";
    /// Going to its devices, wave by wave.
    pub const ROLLING_OUT: &str = "rolling_out";
    /// Every device that follows it runs it (or was up to date).
    pub const DEPLOYED: &str = "deployed";
    /// Stopped: by a device that failed to take it, or by the super admin.
    pub const STOPPED: &str = "stopped";
    /// A newer release of its environment and target took over.
    pub const SUPERSEDED: &str = "superseded";
    pub const ALL: [&str; 5] = [UPLOADED, ROLLING_OUT, DEPLOYED, STOPPED, SUPERSEDED];
}

/// The share of a roll-out's devices in its first wave (at least one device); the rest
/// follow once every device of the first wave runs the release.
pub const FIRST_WAVE_SHARE: f64 = 0.1;

/// A release: one agent binary of one target, in an environment.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Release {
    pub id: i64,
    /// `dev` or `prod`: the devices following it get it.
    pub running_environment: String,
    pub branch: String,
    pub version_number: String,
    /// `x86_64` or `aarch64`.
    pub target: String,
    pub size_bytes: i64,
    /// Of the binary, lower-case hex.
    pub sha256: String,
    /// Ed25519, base64 (`gemba_shared::release`).
    pub signature: String,
    /// When it was uploaded (ms since the epoch).
    pub uploaded_at: i64,
    /// When its latest roll-out began and ended (ms), if it did.
    pub start_time: Option<i64>,
    pub end_time: Option<i64>,
    /// One of [`state::ALL`].
    #[serde(rename = "currentState")]
    pub current_state: String,
    /// Why it stopped, when it did.
    pub reason: Option<String>,
    /// Its roll-out's devices: all, those that run it, those that failed to.
    pub devices_total: i64,
    pub devices_done: i64,
    pub devices_failed: i64,
}

/// One device of a roll-out.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ReleaseDevice {
    pub device: i64,
    pub display_name: String,
    pub organization: i64,
    /// 1: the first wave; 2: the rest.
    pub wave: i32,
    pub state: UpdateState,
    pub detail: Option<String>,
    /// The version the device last said it runs.
    pub agent_version: String,
    pub updated_at: i64,
}

/// `GET binary_deployment/{id}/latest_deployment/`: a release and its devices.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ReleaseDeployment {
    pub release: Release,
    pub devices: Vec<ReleaseDevice>,
}

/// `PATCH binary_deployment/move_binaries_to_prod/`: the releases of `version` go to
/// `environment` (`prod`, or back to `dev`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MoveRelease {
    pub version: String,
    pub environment: String,
}

/// `PATCH binary_deployment/{id}/`: stop a roll-out (`stopped`) or go on with it
/// (`rolling_out`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ReleasePatch {
    #[serde(rename = "currentState")]
    pub current_state: String,
}

/// `GET binary_deployment/get_latest_deployable_branch/`: the newest release of each
/// branch, environment and target.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LatestBranch {
    pub id: i64,
    pub branch: String,
    pub running_environment: String,
    pub target: String,
    pub version_number: String,
}

/// A device as the fleet sees it (the admin's Instances and All Devices screens).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Instance {
    pub device: i64,
    pub display_name: String,
    pub organization: i64,
    pub organization_name: String,
    pub online: bool,
    pub agent_version: String,
    /// Empty until the agent says.
    pub target: String,
    /// The environment the device follows: `dev` or `prod`.
    pub update_channel: String,
    /// Its agent runs under `gemba-agent supervise` and can update itself.
    pub updatable: bool,
    /// Its latest self-update, as the device reported it.
    pub update: Option<crate::mqtt::v1::UpdateReport>,
}
