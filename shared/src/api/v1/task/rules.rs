//! How a step is recognised: step relations, step rules and the per-step
//! object-detection rules.

use serde::{Deserialize, Serialize};

/// Steps related to a step: the key steps around an anchor (spec "default step rule").
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, deny_unknown_fields)]
pub struct StepRelation {
    pub key_steps: Vec<u32>,
    pub before_anchor: Vec<u32>,
    pub after_anchor: Vec<u32>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, deny_unknown_fields)]
pub struct StepRelations {
    pub anchor: StepRelation,
    pub similar: StepRelation,
}

/// How a step is recognised from detected objects (spec "default step rule").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default, deny_unknown_fields)]
pub struct StepRule {
    /// Task objects that must be seen.
    pub objects_present: Vec<i64>,
    pub detect_always: bool,
    /// A boolean expression over object names, e.g. `screwdriver and not cover`.
    pub boolean_expr: String,
    pub rule_types: Vec<String>,
    pub step_relations: StepRelations,
}

impl Default for StepRule {
    fn default() -> Self {
        StepRule {
            objects_present: vec![],
            detect_always: true,
            boolean_expr: String::new(),
            rule_types: vec![],
            step_relations: StepRelations::default(),
        }
    }
}

/// The object-detection rule of one step (spec "Object-detection rule per step").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DetectionRule {
    /// None for a step with no stored rule (its default rule is shown).
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub id: Option<i64>,
    pub task: i64,
    pub step: u32,
    pub static_object: Vec<i64>,
    pub non_static_object: Vec<i64>,
    pub verify: bool,
    pub rule: StepRule,
}

/// `POST object_detection_rule/{task}/` (with `step`) and `PATCH
/// object_detection_rule/{id}/`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(deny_unknown_fields)]
pub struct DetectionRuleWrite {
    pub step: Option<u32>,
    pub static_object: Option<Vec<i64>>,
    pub non_static_object: Option<Vec<i64>>,
    pub verify: Option<bool>,
    pub rule: Option<StepRule>,
}

/// `PATCH object_detection_rule/bulk_delete`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BulkDelete {
    pub ids: Vec<i64>,
}
