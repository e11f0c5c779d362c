//! A device's and its cameras' faults as the agent reports them in its status (issue
//! 30): each with the time it began on the device's clock, reported while it lasts. The
//! cloud turns each into an event with a start and an end (`device_camera_events`),
//! and mails the organisation's event notification rules once per event.

use serde::{Deserialize, Serialize};

use crate::api::v1::device::CameraEventKind;

/// One fault, while it lasts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Fault {
    /// Any kind but `unsure` (the drift figures report that one).
    pub kind: CameraEventKind,
    /// Since then, on the device's clock.
    pub since_ms: i64,
    /// What a technician needs to know (the error, the figures), at most 1000 bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub detail: Option<String>,
}

/// Most faults of one camera or of the device.
pub const MAX_FAULTS: usize = 8;

/// Faults are few, of kinds other than `unsure`, each kind once, details bounded.
pub fn check_faults(faults: &[Fault]) -> Result<(), String> {
    let kinds: std::collections::BTreeSet<&str> = faults.iter().map(|f| f.kind.as_str()).collect();
    if faults.len() > MAX_FAULTS
        || kinds.len() != faults.len()
        || faults.iter().any(|f| {
            f.kind == CameraEventKind::Unsure || f.detail.as_ref().is_some_and(|d| d.len() > 1000)
        })
    {
        return Err(
            "bad faults: at most 8, each kind once, not unsure, details ≤ 1000 bytes".into(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(kind: CameraEventKind) -> Fault {
        Fault {
            kind,
            since_ms: 1,
            detail: None,
        }
    }

    #[test]
    fn faults_are_each_kind_once_and_never_unsure() {
        assert!(check_faults(&[f(CameraEventKind::Offline), f(CameraEventKind::Frozen)]).is_ok());
        assert!(check_faults(&[f(CameraEventKind::Offline), f(CameraEventKind::Offline)]).is_err());
        assert!(check_faults(&[f(CameraEventKind::Unsure)]).is_err());
        let long = Fault {
            detail: Some("x".repeat(1001)),
            ..f(CameraEventKind::DiskLow)
        };
        assert!(check_faults(&[long]).is_err());
    }
}
