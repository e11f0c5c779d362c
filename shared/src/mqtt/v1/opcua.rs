//! OPC UA on the wire (issue 32): what the cloud asks a device about the OPC UA servers
//! it can reach, the device's answer, and the device's node bindings.
//!
//! - Requests ride on `cmd` as [`super::Command::Opcua`] (inside a [`super::CommandMessage`],
//!   whose `v` and id they share): [`OpcuaRequest::Discover`] (servers the device can
//!   reach: `FindServers` asked at the URLs given, at the endpoints of the device's
//!   bindings, at the URLs the agent was started with and at the local discovery
//!   server `opc.tcp://localhost:4840`; a server answers for itself on its own
//!   endpoint, so listing `host:port` endpoints is the scan), [`OpcuaRequest::Browse`]
//!   (a node's children; none named: the Objects folder) and [`OpcuaRequest::Read`] (one
//!   node).
//! - The answer rides on `cmd/ack` ([`super::CommandAck`]): `ok` and `message` as for any
//!   command (the error in words when not ok) and, when ok, the result in its `opcua`
//!   field ([`OpcuaReply`]), so the request id is the command's id and the cloud needs
//!   no channel of its own. A reply is at most [`REPLY_BUDGET_BYTES`] of JSON (the
//!   signed payload stays under `MAX_PAYLOAD_BYTES`): a browse with more children than
//!   fit says `truncated` ([`OpcuaReply::fit`]).
//! - Bindings ride in the device's configuration ([`super::DeviceConfig::opcua`]): a node
//!   subscribed on the device whose changes drive `camera`'s cycles ([`OpcuaRole`]),
//!   while the camera runs `task` (any task when none).
//!
//! The device connects without security (policy `None`) and anonymously: endpoints
//! carry no login (`user@`), and a server that demands more is an error in words.
//! Node ids are written as OPC UA writes them: `i=85`, `ns=2;s=Line1.PartNumber`,
//! `ns=1;g=…` (a GUID), `ns=1;b=…` (base64).

use serde::{Deserialize, Serialize};

use crate::api::v1::device::check_camera;

/// Most bindings of one device.
pub const MAX_BINDINGS: usize = 64;
/// Most distinct servers (endpoints) one device's bindings name: a connection each.
pub const MAX_BINDING_ENDPOINTS: usize = 8;
/// Most metadata keys the bindings give one camera (a cycle holds at most 50 keys,
/// and a barcode's goes there too).
pub const MAX_METADATA_BINDINGS: usize = 40;
/// Most URLs a discovery asks.
pub const MAX_DISCOVERY_URLS: usize = 32;
/// Longest endpoint URL, in bytes.
pub const MAX_ENDPOINT_BYTES: usize = 256;
/// Longest node id, in bytes.
pub const MAX_NODE_ID_BYTES: usize = 256;
/// Longest metadata key, in bytes (a cycle's metadata keys are at most 100).
pub const MAX_KEY_BYTES: usize = 100;
/// Longest text of a reply (a name, a value, an error), in bytes; the device cuts
/// longer ones (a value goes on a cycle's metadata, whose values are at most 1000).
pub const MAX_TEXT_BYTES: usize = 1000;
/// Most servers a discovery answers, and most nodes a browse answers.
pub const MAX_SERVERS: usize = 100;
pub const MAX_NODES: usize = 1000;
/// Most JSON bytes of a reply: signed (base64, a third more) it stays under the
/// contract's largest payload.
pub const REPLY_BUDGET_BYTES: usize = 150 * 1024;
/// The node a browse without a node id starts from: the Objects folder.
pub const OBJECTS_FOLDER: &str = "i=85";

/// What the cloud asks a device about OPC UA (see the module header).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum OpcuaRequest {
    /// The servers the device can reach: `FindServers` at `urls` (at most
    /// [`MAX_DISCOVERY_URLS`], `opc.tcp://host:port[/path]`), at its bindings'
    /// endpoints, at the URLs it was started with and at `opc.tcp://localhost:4840`.
    Discover {
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional, as = "Option<Vec<String>>"))]
        urls: Vec<String>,
    },
    /// The children of `node_id` on the server at `endpoint` (none: the Objects
    /// folder), a variable's with its data type and value.
    Browse {
        endpoint: String,
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional))]
        node_id: Option<String>,
    },
    /// One node, with its value when it is a variable.
    Read { endpoint: String, node_id: String },
}

impl OpcuaRequest {
    /// Its URLs and node ids are well formed.
    pub fn check(&self) -> Result<(), String> {
        match self {
            OpcuaRequest::Discover { urls } => {
                if urls.len() > MAX_DISCOVERY_URLS {
                    return Err(format!(
                        "A discovery asks at most {MAX_DISCOVERY_URLS} URLs."
                    ));
                }
                urls.iter().try_for_each(|u| check_endpoint(u))
            }
            OpcuaRequest::Browse { endpoint, node_id } => {
                check_endpoint(endpoint)?;
                node_id.as_deref().map_or(Ok(()), check_node_id)
            }
            OpcuaRequest::Read { endpoint, node_id } => {
                check_endpoint(endpoint)?;
                check_node_id(node_id)
            }
        }
    }
}

/// A device's answer to an [`OpcuaRequest`], in its acknowledgement's `opcua`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum OpcuaReply {
    /// The servers found (each once), and how the device's own connections (those of
    /// its bindings) stand.
    Discover {
        servers: Vec<OpcuaServer>,
        #[serde(default)]
        connections: Vec<OpcuaConnection>,
    },
    /// The children of `node_id` (none: the Objects folder); `truncated` when more
    /// were found than fit in one answer.
    Browse {
        endpoint: String,
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional))]
        node_id: Option<String>,
        nodes: Vec<OpcuaNode>,
        #[serde(default)]
        truncated: bool,
    },
    /// The node read.
    Read { endpoint: String, node: OpcuaNode },
}

/// An OPC UA server a discovery found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct OpcuaServer {
    /// Where to browse it: its first `opc.tcp://` discovery URL as it gave it.
    pub endpoint: String,
    pub application_name: String,
    pub application_uri: String,
    /// The URL the device asked that answered with it.
    pub found_at: String,
}

/// How one of the device's connections (a server its bindings name) stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct OpcuaConnection {
    pub endpoint: String,
    /// Connected, its bindings' nodes subscribed.
    pub connected: bool,
    /// Connected, or not, since then (the device's clock).
    pub since_ms: i64,
    /// Why it is not connected (the last attempt's error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub error: Option<String>,
}

/// OPC UA's node classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum OpcuaNodeClass {
    Object,
    Variable,
    Method,
    ObjectType,
    VariableType,
    ReferenceType,
    DataType,
    View,
}

/// One node of a server's address space.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct OpcuaNode {
    pub node_id: String,
    /// Its browse name, with its namespace index when not 0 (`2:PartNumber`).
    pub browse_name: String,
    pub display_name: String,
    pub node_class: OpcuaNodeClass,
    /// A variable's data type: the standard type's name (`Double`, `String`, `Int32`…)
    /// or the type's node id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub data_type: Option<String>,
    /// A variable's value, as text (what a cycle's metadata holds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub value: Option<String>,
    /// The value's status when it is not good (`BadNotReadable`…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub status: Option<String>,
}

impl OpcuaNode {
    fn check(&self) -> Result<(), String> {
        check_node_id(&self.node_id)?;
        let texts = [&self.browse_name, &self.display_name]
            .into_iter()
            .chain(&self.data_type)
            .chain(&self.value)
            .chain(&self.status);
        check_texts(texts)
    }
}

fn check_texts<'a>(mut texts: impl Iterator<Item = &'a String>) -> Result<(), String> {
    if texts.any(|t| t.len() > MAX_TEXT_BYTES) {
        return Err(format!("an OPC UA text over {MAX_TEXT_BYTES} bytes"));
    }
    Ok(())
}

impl OpcuaReply {
    /// Its lists and texts are within bounds (what the cloud accepts).
    pub fn check(&self) -> Result<(), String> {
        match self {
            OpcuaReply::Discover {
                servers,
                connections,
            } => {
                if servers.len() > MAX_SERVERS || connections.len() > MAX_BINDING_ENDPOINTS {
                    return Err("too many servers or connections".into());
                }
                for s in servers {
                    check_texts(
                        [
                            &s.endpoint,
                            &s.application_name,
                            &s.application_uri,
                            &s.found_at,
                        ]
                        .into_iter(),
                    )?;
                }
                for c in connections {
                    check_texts([&c.endpoint].into_iter().chain(&c.error))?;
                }
                Ok(())
            }
            OpcuaReply::Browse {
                endpoint,
                node_id,
                nodes,
                ..
            } => {
                check_endpoint(endpoint)?;
                node_id.as_deref().map_or(Ok(()), check_node_id)?;
                if nodes.len() > MAX_NODES {
                    return Err(format!("a browse answers at most {MAX_NODES} nodes"));
                }
                nodes.iter().try_for_each(OpcuaNode::check)
            }
            OpcuaReply::Read { endpoint, node } => {
                check_endpoint(endpoint)?;
                node.check()
            }
        }
    }

    /// Keeps it within `budget` bytes of JSON and its lists within bounds: a browse's
    /// last nodes are left out (`truncated`), a discovery's last servers; no more than
    /// needed. The device fits every reply before it answers.
    pub fn fit(mut self, budget: usize) -> OpcuaReply {
        match &mut self {
            OpcuaReply::Browse {
                nodes, truncated, ..
            } if nodes.len() > MAX_NODES => {
                nodes.truncate(MAX_NODES);
                *truncated = true;
            }
            OpcuaReply::Discover { servers, .. } => servers.truncate(MAX_SERVERS),
            _ => {}
        }
        if json_len(&self) <= budget {
            return self;
        }
        if let OpcuaReply::Browse { truncated, .. } = &mut self {
            *truncated = true;
        }
        let whole = json_len(&self);
        match &mut self {
            OpcuaReply::Browse { nodes, .. } => {
                let keep = within(nodes.iter().map(json_len).collect(), whole, budget);
                nodes.truncate(keep);
            }
            OpcuaReply::Discover { servers, .. } => {
                let keep = within(servers.iter().map(json_len).collect(), whole, budget);
                servers.truncate(keep);
            }
            // Its texts are bounded: within the payload limit anyway.
            OpcuaReply::Read { .. } => {}
        }
        self
    }
}

/// How many of a JSON list's first items (of `lens` bytes each) fit in `budget` bytes,
/// the whole message being `whole` bytes with all of them.
fn within(lens: Vec<usize>, whole: usize, budget: usize) -> usize {
    let mut keep = lens.len();
    let mut size = whole;
    while keep > 0 && size > budget {
        keep -= 1;
        // The item, and the comma before it (none before the first).
        size -= lens[keep] + usize::from(keep > 0);
    }
    keep
}

fn json_len<T: Serialize + ?Sized>(v: &T) -> usize {
    serde_json::to_vec(v).map_or(usize::MAX, |v| v.len())
}

/// A node whose changes drive `camera`'s cycles while it runs `task` (any task when
/// none): one entry of [`super::DeviceConfig::opcua`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct OpcuaBinding {
    /// The server, `opc.tcp://host:port[/path]`.
    pub endpoint: String,
    pub node_id: String,
    pub camera: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub task: Option<i64>,
    pub role: OpcuaRole,
}

/// What a bound node's changes do to its camera's cycles.
///
/// A trigger (start or end) fires when the node's value changes to a true one: a
/// Boolean turning true, a number changing to one that is not 0 (a PLC's cycle
/// counter counting up fires at each count), a text changing to one that is not empty,
/// `0` or `false`. The value the device finds when it subscribes fires nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum OpcuaRole {
    /// Closes the open cycle and opens the next there. The camera's own start steps
    /// no longer open cycles (the PLC says when a cycle starts).
    StartCycle,
    /// Closes the open cycle there. The camera's own end rules (end steps, a start
    /// step again) no longer close cycles.
    EndCycle,
    /// The node's latest value goes on each cycle the camera finishes, as
    /// `metadata[key]`.
    Metadata { key: String },
}

impl OpcuaBinding {
    /// Its own fields (not its neighbours).
    pub fn check(&self) -> Result<(), String> {
        check_endpoint(&self.endpoint)?;
        check_node_id(&self.node_id)?;
        check_camera(&self.camera)?;
        if self.task.is_some_and(|t| t <= 0) {
            return Err("A binding's task is positive.".into());
        }
        if let OpcuaRole::Metadata { key } = &self.role {
            check_key(key)?;
        }
        Ok(())
    }

    /// Does it apply while its camera runs `task` (or nothing)?
    pub fn applies_to(&self, camera: &str, task: Option<i64>) -> bool {
        self.camera == camera && self.task.is_none_or(|t| Some(t) == task)
    }

    /// Can it apply at the same time as `other` (same camera, tasks that may meet)?
    fn meets(&self, other: &OpcuaBinding) -> bool {
        self.camera == other.camera
            && (self.task.is_none() || other.task.is_none() || self.task == other.task)
    }
}

mod check;
pub use check::*;

#[cfg(test)]
mod tests;
