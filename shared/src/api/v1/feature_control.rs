//! Feature control calls (spec section 7 "Feature control"): features, the features an
//! organisation is subscribed to, event notifications and `send_email`.
//!
//! A gated feature (section 6) is off for an organisation until it holds an
//! unsuppressed subscription to it.

use serde::{Deserialize, Serialize};

/// A feature of section 6 that needs a subscription (default off), or Pathfinder (the
/// feature-gated sidebar entry): what gates a screen, by its name in the spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Gated {
    RecordTrainingSet,
    DeployModel,
    Devices,
    OpcuaExplorer,
    DefineOperation,
    Pathfinder,
}

impl Gated {
    /// Every one, in the order the features are seeded.
    pub const ALL: [Gated; 6] = [
        Gated::RecordTrainingSet,
        Gated::DeployModel,
        Gated::Devices,
        Gated::OpcuaExplorer,
        Gated::DefineOperation,
        Gated::Pathfinder,
    ];

    /// Its name as the spec and the feature table spell it.
    pub const fn name(self) -> &'static str {
        match self {
            Gated::RecordTrainingSet => "Record Training Set",
            Gated::DeployModel => "Deploy Model",
            Gated::Devices => "Devices",
            Gated::OpcuaExplorer => "OPCUA Explorer",
            Gated::DefineOperation => "Define Operation",
            Gated::Pathfinder => "Pathfinder",
        }
    }
}

impl std::fmt::Display for Gated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The one event type of the spec.
pub const TASK_UPDATE: &str = "Task Update";

/// A feature (spec section 3 "Feature").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Feature {
    pub id: i64,
    pub name: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FeatureCreate {
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub name: String,
}

/// An organisation's subscription to a feature (spec section 3 "Subscribed feature").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SubscribedFeature {
    pub id: i64,
    /// The feature's id.
    #[serde(rename = "Feature")]
    pub feature: i64,
    /// The organisation's id.
    #[serde(rename = "Organization")]
    pub organization: i64,
    /// The feature's name, for convenience.
    pub feature_name: String,
    /// A suppressed subscription keeps the feature off (hidden) without deleting it.
    pub is_suppressed: bool,
}

/// Subscribes an organisation to a feature; for an existing subscription, sets its
/// `is_suppressed`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SubscribedFeatureCreate {
    #[serde(rename = "Feature")]
    pub feature: i64,
    #[serde(rename = "Organization")]
    pub organization: i64,
    #[serde(default)]
    pub is_suppressed: bool,
}

/// Who is e-mailed when an event happens in an organisation (spec section 3
/// "Event notification").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct EventNotification {
    pub id: i64,
    /// 'Task Update' or 'Device Health' (`validate::EVENT_TYPES`).
    pub event_type: String,
    pub recipients: Vec<String>,
    /// The organisation's id.
    #[serde(rename = "Organization")]
    pub organization: i64,
    /// The organisation's display name, for the list's Organization column.
    pub organization_name: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct EventNotificationCreate {
    #[cfg_attr(feature = "openapi", schema(max_length = 64))]
    pub event_type: String,
    /// 1 to 50 e-mail addresses.
    pub recipients: Vec<String>,
    /// The organisation; defaults to the one the request acts in. A super admin with no
    /// organisation must name it.
    #[serde(rename = "Organization", default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub organization: Option<i64>,
}

/// Changes to an event notification; every field may be left out (`None`). No
/// `#[serde(default)]` on them: with it serde also takes the JSON array `[]` as an
/// empty patch instead of refusing it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct EventNotificationPatch {
    #[cfg_attr(feature = "openapi", schema(max_length = 64))]
    pub event_type: Option<String>,
    pub recipients: Option<Vec<String>>,
    /// May only repeat the current organisation: a notification does not move.
    #[serde(rename = "Organization")]
    pub organization: Option<i64>,
}

/// `feature_control/send_email`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SendEmail {
    /// 1 to 50 e-mail addresses.
    pub recipients: Vec<String>,
    /// 1 to 200 characters, one line.
    #[cfg_attr(feature = "openapi", schema(max_length = 200))]
    pub subject: String,
    /// Plain text, at most 100 kB.
    pub body: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SendEmailResult {
    pub msg: String,
    /// The message's id in the outbox (`admin/outbox/`), where its delivery shows.
    pub id: i64,
}
