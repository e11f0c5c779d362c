//! The privacy policy (`GET privacy_policy/`, public): the spec gives `/privacy-policy`
//! a route but no text; the cloud answers the operator's text or its default one.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PrivacyPolicy {
    /// The policy in Markdown (headings, paragraphs, lists, emphasis, links); raw HTML
    /// in it is shown as text, never run.
    pub markdown: String,
    /// True when it is the operator's own text, false for the cloud's default.
    pub custom: bool,
    /// Whom to ask about one's data, when the operator said.
    pub contact: Option<String>,
}
