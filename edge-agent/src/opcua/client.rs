//! The OPC UA client's I/O (async-opcua): the client itself, a short session for one
//! question (browse, read), and `FindServers` at a discovery URL. The device connects
//! without security (policy `None`) and anonymously (`mqtt/v1/opcua.rs`).

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use gemba_shared::mqtt::v1::opcua::{MAX_NODES, MAX_TEXT_BYTES, OBJECTS_FOLDER, cut};
use gemba_shared::mqtt::v1::{OpcuaNode, OpcuaNodeClass, OpcuaServer};
use opcua::client::{Client, ClientBuilder, IdentityToken, Session};
use opcua::crypto::SecurityPolicy;
use opcua::types::{
    AttributeId, BrowseDescription, BrowseDirection, BrowseResultMask, DataValue,
    MessageSecurityMode, NodeId, ReadValueId, ReferenceTypeId, StatusCode, TimestampsToReturn,
    UserTokenPolicy, Variant,
};

use super::text;

/// How long a connection may take before the device gives up.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one question may take once connected.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// A client: `retries` for a link that reconnects by itself (`None`: forever), or
/// none for a one-question session.
pub fn client(pki: &std::path::Path, forever: bool) -> anyhow::Result<Client> {
    let b = ClientBuilder::new()
        .application_name("gemba agent")
        .application_uri("urn:gemba:agent")
        .product_uri("urn:gemba:agent")
        // No security: no certificate of its own is made or needed.
        .create_sample_keypair(false)
        .trust_server_certs(true)
        .pki_dir(pki)
        .session_retry_initial(Duration::from_millis(500))
        .session_retry_max(Duration::from_secs(10))
        .session_retry_limit(if forever { -1 } else { 0 })
        .keep_alive_interval(Duration::from_secs(2))
        .request_timeout(REQUEST_TIMEOUT)
        .session_timeout(60_000);
    b.client()
        .map_err(|e| anyhow!("the OPC UA client's settings: {}", e.join("; ")))
}

/// A session to `endpoint` and its event loop (not started).
pub fn session(
    client: &mut Client,
    endpoint: &str,
) -> anyhow::Result<(
    Arc<Session>,
    opcua::client::SessionEventLoop<opcua::client::transport::TcpConnector>,
)> {
    client
        .connect_to_endpoint_directly(
            (
                endpoint,
                SecurityPolicy::None.to_str(),
                MessageSecurityMode::None,
                UserTokenPolicy::anonymous(),
            ),
            IdentityToken::Anonymous,
        )
        .map_err(|e| anyhow!("{endpoint}: {e}"))
}

/// Runs `ask` on `session` (to `endpoint`, of its own: see [`session`]), closed after.
pub async fn with_session<T>(
    (session, event_loop): (
        Arc<Session>,
        opcua::client::SessionEventLoop<opcua::client::transport::TcpConnector>,
    ),
    endpoint: &str,
    ask: impl AsyncFnOnce(&Session) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let mut running = event_loop.spawn();
    let connected = tokio::select! {
        c = tokio::time::timeout(CONNECT_TIMEOUT, session.wait_for_connection()) => {
            matches!(c, Ok(true))
        }
        // The loop gave up (the connection was refused): its status says why.
        r = &mut running => {
            let why = r.map_or_else(|e| e.to_string(), |s| s.to_string());
            bail!("could not connect to {endpoint}: {why}");
        }
    };
    if !connected {
        running.abort();
        bail!(
            "could not connect to {endpoint}: no answer within {} s",
            CONNECT_TIMEOUT.as_secs()
        );
    }
    let r = match tokio::time::timeout(REQUEST_TIMEOUT, ask(&*session)).await {
        Ok(r) => r,
        Err(_) => Err(anyhow!(
            "{endpoint} did not answer within {} s",
            REQUEST_TIMEOUT.as_secs()
        )),
    };
    let _ = tokio::time::timeout(Duration::from_secs(2), session.disconnect()).await;
    running.abort();
    r
}

/// The servers a discovery server (or a server, for itself) at `url` knows.
pub async fn find_servers(client: &Client, url: &str) -> anyhow::Result<Vec<OpcuaServer>> {
    let found = tokio::time::timeout(CONNECT_TIMEOUT, client.find_servers(url, None, None))
        .await
        .map_err(|_| anyhow!("{url}: no answer within {} s", CONNECT_TIMEOUT.as_secs()))?
        .map_err(|e| anyhow!("{url}: {e}"))?;
    Ok(found
        .into_iter()
        .filter_map(|a| {
            let endpoint = a
                .discovery_urls
                .iter()
                .flatten()
                .map(|u| u.to_string())
                .find(|u| gemba_shared::mqtt::v1::opcua::check_endpoint(u).is_ok())?;
            Some(OpcuaServer {
                endpoint,
                application_name: cut(a.application_name.text.as_ref(), MAX_TEXT_BYTES),
                application_uri: cut(a.application_uri.as_ref(), MAX_TEXT_BYTES),
                found_at: url.to_string(),
            })
        })
        .collect())
}

/// A node id as the wire writes it, read.
pub fn node_id(id: &str) -> anyhow::Result<NodeId> {
    NodeId::from_str(id).map_err(|_| anyhow!("{id:?} is not an OPC UA node id"))
}

/// The children of `node` (none: the Objects folder), a variable's with its data type
/// and value; at most [`MAX_NODES`].
pub async fn browse(session: &Session, node: Option<&str>) -> anyhow::Result<Vec<OpcuaNode>> {
    let parent = node_id(node.unwrap_or(OBJECTS_FOLDER))?;
    let what = BrowseDescription {
        node_id: parent.clone(),
        browse_direction: BrowseDirection::Forward,
        reference_type_id: ReferenceTypeId::HierarchicalReferences.into(),
        include_subtypes: true,
        node_class_mask: 0,
        result_mask: BrowseResultMask::All as u32,
    };
    let mut results = session
        .browse(&[what], MAX_NODES as u32, None)
        .await
        .context("browsing")?;
    let mut nodes = vec![];
    while let Some(r) = results.pop() {
        if !r.status_code.is_good() {
            bail!("browsing {parent}: {}", r.status_code);
        }
        for rd in r.references.into_iter().flatten() {
            // A node of another server (a remote reference) is left out.
            if rd.node_id.server_index != 0 || nodes.len() >= MAX_NODES {
                continue;
            }
            let Some(class) = text::node_class(rd.node_class) else {
                continue;
            };
            let id = rd.node_id.node_id.to_string();
            if gemba_shared::mqtt::v1::opcua::check_node_id(&id).is_err() {
                continue;
            }
            nodes.push(OpcuaNode {
                node_id: id,
                browse_name: text::browse_name(
                    rd.browse_name.namespace_index,
                    rd.browse_name.name.as_ref(),
                ),
                display_name: cut(rd.display_name.text.as_ref(), MAX_TEXT_BYTES),
                node_class: class,
                data_type: None,
                value: None,
                status: None,
            });
        }
        if r.continuation_point.is_null() || nodes.len() >= MAX_NODES {
            if !r.continuation_point.is_null() {
                let _ = session.browse_next(true, &[r.continuation_point]).await;
            }
            break;
        }
        results = session
            .browse_next(false, &[r.continuation_point])
            .await
            .context("browsing on")?;
    }
    fill_variables(session, &mut nodes).await?;
    Ok(nodes)
}

/// One node, with its value when it is a variable.
pub async fn read(session: &Session, node: &str) -> anyhow::Result<OpcuaNode> {
    let id = node_id(node)?;
    let attributes = [
        AttributeId::BrowseName,
        AttributeId::DisplayName,
        AttributeId::NodeClass,
    ];
    let asked: Vec<ReadValueId> = attributes
        .iter()
        .map(|a| ReadValueId {
            node_id: id.clone(),
            attribute_id: *a as u32,
            ..Default::default()
        })
        .collect();
    let got = session
        .read(&asked, TimestampsToReturn::Neither, 0.0)
        .await
        .context("reading")?;
    let value = |i: usize| got.get(i).and_then(|d| d.value.clone());
    if let Some(s) = got.first().and_then(|d| d.status).filter(|s| !s.is_good()) {
        bail!("node {node}: {s}");
    }
    let browse_name = match value(0) {
        Some(Variant::QualifiedName(q)) => text::browse_name(q.namespace_index, q.name.as_ref()),
        _ => String::new(),
    };
    let display_name = match value(1) {
        Some(Variant::LocalizedText(t)) => cut(t.text.as_ref(), MAX_TEXT_BYTES),
        _ => String::new(),
    };
    let class = match value(2) {
        Some(Variant::Int32(c)) => text::node_class_number(c),
        _ => None,
    }
    .ok_or_else(|| anyhow!("node {node}: no node class"))?;
    let mut nodes = vec![OpcuaNode {
        node_id: node.to_string(),
        browse_name,
        display_name,
        node_class: class,
        data_type: None,
        value: None,
        status: None,
    }];
    fill_variables(session, &mut nodes).await?;
    Ok(nodes.remove(0))
}

/// Reads the data type and value of the variables among `nodes`.
async fn fill_variables(session: &Session, nodes: &mut [OpcuaNode]) -> anyhow::Result<()> {
    let variables: Vec<usize> = (0..nodes.len())
        .filter(|&i| nodes[i].node_class == OpcuaNodeClass::Variable)
        .collect();
    if variables.is_empty() {
        return Ok(());
    }
    let mut asked = vec![];
    for &i in &variables {
        let id = node_id(&nodes[i].node_id)?;
        for a in [AttributeId::DataType, AttributeId::Value] {
            asked.push(ReadValueId {
                node_id: id.clone(),
                attribute_id: a as u32,
                ..Default::default()
            });
        }
    }
    // A few hundred at a time, within what servers take in one request.
    let mut got: Vec<DataValue> = Vec::with_capacity(asked.len());
    for chunk in asked.chunks(200) {
        got.extend(
            session
                .read(chunk, TimestampsToReturn::Neither, 0.0)
                .await
                .context("reading values")?,
        );
    }
    for (k, &i) in variables.iter().enumerate() {
        let (ty, value) = (got.get(2 * k), got.get(2 * k + 1));
        nodes[i].data_type = match ty.and_then(|d| d.value.as_ref()) {
            Some(Variant::NodeId(id)) => Some(text::data_type_name(id)),
            _ => None,
        };
        let status = value.and_then(|d| d.status).unwrap_or(StatusCode::Good);
        if status.is_good() {
            nodes[i].value = value
                .and_then(|d| d.value.as_ref())
                .and_then(text::value_text);
        } else {
            nodes[i].status = Some(cut(&status.to_string(), MAX_TEXT_BYTES));
        }
    }
    Ok(())
}
