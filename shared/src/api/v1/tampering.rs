//! Tampering requests (issue 31; the spec names only the admin screen
//! `/admin/tampering-requests`): a camera covered or moved, as the device reported it,
//! and a person's review of it (`telemetry/tampering_requests/`).

use serde::{Deserialize, Serialize};

use super::device::CameraEventKind;

/// A tampering request's review: open until a person accepts the new view or
/// dismisses it.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum TamperingState {
    Open,
    Resolved,
}

/// What a person decided of a tampering request.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum TamperingAction {
    /// The camera was moved on purpose: its view now becomes its reference (the
    /// device is sent `rebaseline`). Moved cameras only.
    AcceptView,
    /// Looked at, nothing to change (put back, uncovered, a false alarm).
    Dismiss,
}

impl TamperingAction {
    pub fn as_str(self) -> &'static str {
        match self {
            TamperingAction::AcceptView => "accept_view",
            TamperingAction::Dismiss => "dismiss",
        }
    }

    pub fn parse(s: &str) -> Option<TamperingAction> {
        [TamperingAction::AcceptView, TamperingAction::Dismiss]
            .into_iter()
            .find(|a| a.as_str() == s)
    }
}

/// The longest note of a review.
pub const TAMPERING_NOTE_MAX: usize = 1000;

/// `GET telemetry/tampering_requests/`: a camera covered or moved (an event of those
/// kinds, `id` its id), with a screenshot taken when it opened and its review.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TamperingRequest {
    pub id: i64,
    pub organization: i64,
    pub organization_name: String,
    pub device: i64,
    pub device_name: String,
    pub camera: String,
    /// `covered` or `moved`.
    pub kind: CameraEventKind,
    /// From and to, on the cloud's clock (`ended_at` `null` while it lasts).
    pub started_at: i64,
    pub ended_at: Option<i64>,
    /// What the device said of it.
    pub detail: Option<String>,
    /// The screenshot asked for when it opened (a signed URL), once the device sent it.
    pub screenshot: Option<String>,
    pub screenshot_taken_at: Option<i64>,
    pub state: TamperingState,
    pub action: Option<TamperingAction>,
    pub note: String,
    /// Who reviewed it (their e-mail) and when.
    pub reviewed_by: Option<String>,
    pub reviewed_at: Option<i64>,
}

/// `PATCH telemetry/tampering_requests/{id}/`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(deny_unknown_fields)]
pub struct TamperingReview {
    /// `accept_view` or `dismiss` ([`TamperingAction`]; a string here, so that another
    /// word is a field's error).
    #[cfg_attr(feature = "ts", ts(as = "TamperingAction"))]
    #[cfg_attr(feature = "openapi", schema(max_length = 32))]
    pub action: String,
    /// Why; required to dismiss, at most [`TAMPERING_NOTE_MAX`] characters.
    #[cfg_attr(feature = "openapi", schema(max_length = 1000))]
    pub note: Option<String>,
}
