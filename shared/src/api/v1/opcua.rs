//! The OPC UA explorer's REST payloads (issue 32): a device's node bindings
//! (`device/{id}/opcua_bindings/`, our paths: the spec names none). A binding as the
//! portal writes and reads it is flat (`role` a name, `key` beside it), and becomes
//! the contract's [`OpcuaBinding`] in the device's configuration.
//!
//! The explorer's requests and answers ride on the device stream instead
//! (`discover_devices_opcua`, [`super::stream::OpcuaAsk`]).

use serde::{Deserialize, Serialize};

use crate::mqtt::v1::{OpcuaBinding, OpcuaRole};

/// What a bound node does to its camera's cycles (the contract's [`OpcuaRole`] by
/// name; a `metadata` binding names its key beside it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum OpcuaRoleName {
    StartCycle,
    EndCycle,
    Metadata,
}

/// `POST device/{id}/opcua_bindings/`: a node of the server at `endpoint` bound to
/// `camera` of the device, while it runs `task` (any task when none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct OpcuaBindingCreate {
    /// `opc.tcp://host:port[/path]`.
    #[cfg_attr(feature = "openapi", schema(max_length = 256))]
    pub endpoint: String,
    /// As OPC UA writes it: `ns=2;s=Line1.PartNumber`, `i=2258`.
    #[cfg_attr(feature = "openapi", schema(max_length = 256))]
    pub node_id: String,
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub camera: String,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub task: Option<i64>,
    /// `start_cycle`, `end_cycle` or `metadata` ([`OpcuaRoleName`]).
    #[cfg_attr(feature = "openapi", schema(max_length = 20))]
    pub role: String,
    /// The metadata key of a `metadata` binding (none for the others).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub key: Option<String>,
}

impl OpcuaBindingCreate {
    /// The contract's binding, or why not (a key missing or given where none goes);
    /// its fields are checked by [`OpcuaBinding::check`].
    pub fn binding(&self) -> Result<OpcuaBinding, (&'static str, String)> {
        let name = match self.role.as_str() {
            "start_cycle" => OpcuaRoleName::StartCycle,
            "end_cycle" => OpcuaRoleName::EndCycle,
            "metadata" => OpcuaRoleName::Metadata,
            _ => {
                return Err((
                    "role",
                    "The role is start_cycle, end_cycle or metadata.".into(),
                ));
            }
        };
        let role = match (name, self.key.as_deref()) {
            (OpcuaRoleName::Metadata, Some(k)) => OpcuaRole::Metadata { key: k.to_string() },
            (OpcuaRoleName::Metadata, None) => {
                return Err(("key", "A metadata binding needs a key.".into()));
            }
            (_, Some(_)) => {
                return Err(("key", "Only a metadata binding has a key.".into()));
            }
            (OpcuaRoleName::StartCycle, None) => OpcuaRole::StartCycle,
            (OpcuaRoleName::EndCycle, None) => OpcuaRole::EndCycle,
        };
        Ok(OpcuaBinding {
            endpoint: self.endpoint.clone(),
            node_id: self.node_id.clone(),
            camera: self.camera.clone(),
            task: self.task,
            role,
        })
    }
}

/// A device's node binding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OpcuaBindingRecord {
    pub id: i64,
    pub device: i64,
    pub endpoint: String,
    pub node_id: String,
    pub camera: String,
    /// The task it applies to (none: any task the camera runs), and its name.
    pub task: Option<i64>,
    pub task_name: Option<String>,
    pub role: OpcuaRoleName,
    pub key: Option<String>,
    pub created_at: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn create(role: &str, key: Option<&str>) -> OpcuaBindingCreate {
        OpcuaBindingCreate {
            endpoint: "opc.tcp://plc:4840".into(),
            node_id: "ns=2;s=Line1.PartNumber".into(),
            camera: "cam0".into(),
            task: Some(3),
            role: role.into(),
            key: key.map(str::to_string),
        }
    }

    #[test]
    fn a_flat_binding_becomes_the_contracts_and_a_key_goes_with_metadata_only() {
        let b = create("metadata", Some("part")).binding().unwrap();
        assert_eq!(b.role, OpcuaRole::Metadata { key: "part".into() });
        assert_eq!((b.task, b.camera.as_str()), (Some(3), "cam0"));
        assert_eq!(
            create("start_cycle", None).binding().unwrap().role,
            OpcuaRole::StartCycle
        );
        assert_eq!(
            create("end_cycle", None).binding().unwrap().role,
            OpcuaRole::EndCycle
        );
        assert_eq!(create("metadata", None).binding().unwrap_err().0, "key");
        assert_eq!(
            create("end_cycle", Some("x")).binding().unwrap_err().0,
            "key"
        );
        assert_eq!(create("start", None).binding().unwrap_err().0, "role");
        // The wire names, as the portal sends them.
        let v: OpcuaBindingCreate = serde_json::from_str(
            r#"{"endpoint":"opc.tcp://plc:4840","node_id":"i=2258","camera":"cam0","role":"end_cycle"}"#,
        )
        .unwrap();
        assert_eq!((v.role.as_str(), v.task, v.key), ("end_cycle", None, None));
        assert!(
            serde_json::from_str::<OpcuaBindingCreate>(
                r#"{"endpoint":"e","node_id":"i=1","camera":"c","role":"end_cycle","x":1}"#
            )
            .is_err()
        );
    }
}
