//! OPC UA on the device (issue 32): the servers on the plant's network, asked about
//! on the cloud's request (discover, browse, read: `mqtt/v1/opcua.rs`), and the nodes
//! the device's configuration binds to its cameras, subscribed so that a PLC drives
//! their cycles: a start node opens a cycle, an end node closes it, and a metadata
//! node's latest value goes on each cycle the camera finishes.
//!
//! The folder: the service here (what the agent calls); `client.rs` the client's I/O
//! (async-opcua: a session for one question, `FindServers`, browse, read);
//! `link.rs` one server of the bindings, its nodes subscribed, reconnected by itself;
//! `board.rs` what the links post and the camera workers take (plain state);
//! `text.rs` values and names as text, and when a value fires a trigger (plain).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use gemba_shared::mqtt::v1::opcua::{REPLY_BUDGET_BYTES, check_endpoint};
use gemba_shared::mqtt::v1::{OpcuaBinding, OpcuaConnection, OpcuaReply, OpcuaRequest};
use opcua::client::Client;
use tokio::sync::Mutex;

pub mod board;
pub mod client;
pub mod link;
pub mod text;

pub use board::{Board, Edge, Taken};

/// Where a discovery always asks: the local discovery server's standard port.
pub const LOCAL_DISCOVERY: &str = "opc.tcp://localhost:4840";

/// The device's OPC UA: the links of its bindings, and the answers to the cloud.
pub struct Opcua {
    board: Board,
    links: BTreeMap<String, link::Link>,
    /// For one-question sessions and discovery (never reconnects).
    asking: Arc<Mutex<Client>>,
    /// For the links (reconnect forever).
    linking: Client,
    /// URLs a discovery asks besides the request's (the agent's `--opcua-discovery`).
    discovery: Vec<String>,
}

impl Opcua {
    /// The service, its client's files (none needed without security) in `data`.
    pub fn new(data: &Path, discovery: Vec<String>) -> anyhow::Result<Opcua> {
        let pki = data.join("opcua-pki");
        Ok(Opcua {
            board: Board::default(),
            links: BTreeMap::new(),
            asking: Arc::new(Mutex::new(client::client(&pki, false)?)),
            linking: client::client(&pki, true)?,
            discovery,
        })
    }

    /// What the camera workers read.
    pub fn board(&self) -> Board {
        self.board.clone()
    }

    /// Follows `bindings` (a new configuration): a link per server they name, kept
    /// while its nodes stay the same, started anew when they change; links to servers
    /// no longer named end.
    pub fn set_bindings(&mut self, bindings: &[OpcuaBinding]) {
        let mut wanted: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for b in bindings {
            wanted
                .entry(b.endpoint.clone())
                .or_default()
                .insert(b.node_id.clone());
        }
        self.board.set_bindings(bindings.to_vec());
        self.links.retain(|endpoint, l| {
            wanted
                .get(endpoint)
                .is_some_and(|n| n.iter().eq(l.nodes.iter()))
        });
        for (endpoint, nodes) in wanted {
            if !self.links.contains_key(&endpoint) {
                tracing::info!(endpoint, nodes = nodes.len(), "linking to an OPC UA server");
                let l = link::Link::start(
                    &mut self.linking,
                    &endpoint,
                    nodes.into_iter().collect(),
                    self.board.clone(),
                );
                self.links.insert(endpoint, l);
            }
        }
    }

    /// How the links stand.
    pub fn connections(&self) -> Vec<OpcuaConnection> {
        self.links.values().map(link::Link::connection).collect()
    }

    /// The answer to `request` (its acknowledgement's message and reply), to be
    /// awaited off the agent's loop.
    pub fn answer(
        &self,
        request: OpcuaRequest,
    ) -> impl Future<Output = anyhow::Result<(String, OpcuaReply)>> + Send + 'static {
        let asking = self.asking.clone();
        let connections = self.connections();
        let mut urls = self.discovery.clone();
        urls.extend(self.links.keys().cloned());
        async move {
            let (message, reply) = match request {
                OpcuaRequest::Discover { urls: asked } => {
                    let mut all = asked;
                    all.extend(urls);
                    all.push(LOCAL_DISCOVERY.to_string());
                    discover(&asking, all, connections).await
                }
                OpcuaRequest::Browse { endpoint, node_id } => {
                    let pair = client::session(&mut *asking.lock().await, &endpoint)?;
                    let nodes = client::with_session(pair, &endpoint, async |s| {
                        client::browse(s, node_id.as_deref()).await
                    })
                    .await?;
                    (
                        format!(
                            "{} nodes under {}",
                            nodes.len(),
                            node_id.as_deref().unwrap_or("the Objects folder")
                        ),
                        OpcuaReply::Browse {
                            endpoint,
                            node_id,
                            nodes,
                            truncated: false,
                        },
                    )
                }
                OpcuaRequest::Read { endpoint, node_id } => {
                    let pair = client::session(&mut *asking.lock().await, &endpoint)?;
                    let node = client::with_session(pair, &endpoint, async |s| {
                        client::read(s, &node_id).await
                    })
                    .await?;
                    (
                        format!("node {node_id} read"),
                        OpcuaReply::Read { endpoint, node },
                    )
                }
            };
            Ok((message, reply.fit(REPLY_BUDGET_BYTES)))
        }
    }
}

/// `FindServers` at each of `urls` (well formed, each once) at the same time; the
/// servers found, each once.
async fn discover(
    asking: &Mutex<Client>,
    urls: Vec<String>,
    connections: Vec<OpcuaConnection>,
) -> (String, OpcuaReply) {
    let mut seen = BTreeSet::new();
    let urls: Vec<String> = urls
        .into_iter()
        .filter(|u| check_endpoint(u).is_ok() && seen.insert(u.clone()))
        .collect();
    let client = asking.lock().await;
    let asked =
        futures_util::future::join_all(urls.iter().map(|u| client::find_servers(&client, u))).await;
    drop(client);
    let mut servers = vec![];
    let mut answered = 0;
    for r in asked {
        match r {
            Ok(found) => {
                answered += 1;
                for s in found {
                    if !servers
                        .iter()
                        .any(|o: &gemba_shared::mqtt::v1::OpcuaServer| {
                            o.application_uri == s.application_uri && o.endpoint == s.endpoint
                        })
                    {
                        servers.push(s);
                    }
                }
            }
            Err(e) => tracing::debug!(error = %format!("{e:#}"), "no OPC UA discovery answer"),
        }
    }
    (
        format!(
            "{} servers found ({answered} of {} URLs answered)",
            servers.len(),
            urls.len()
        ),
        OpcuaReply::Discover {
            servers,
            connections,
        },
    )
}
