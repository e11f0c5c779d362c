//! One server the device's bindings name: a session kept open, its nodes subscribed
//! (monitored items of one subscription), each value posted to the [`Board`].
//!
//! The session's event loop (async-opcua) reconnects by itself with a back-off
//! (0.5 s doubling to 10 s, forever) when the server goes away; a reactivated session
//! keeps its subscription, and on a new session (the server restarted and forgot it)
//! the link subscribes again. While it is away its values are forgotten
//! ([`Board::lost`]); after a reconnection each node's first value fires nothing
//! ([`Edges::reset`]).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use gemba_shared::mqtt::v1::OpcuaConnection;
use gemba_shared::mqtt::v1::opcua::{MAX_TEXT_BYTES, cut};
use opcua::client::{
    Client, DataChangeCallback, MonitoredItem, Session, SessionConnectMode, SessionPollResult,
};
use opcua::types::{
    DataValue, MonitoredItemCreateRequest, MonitoringMode, MonitoringParameters, ReadValueId,
    TimestampsToReturn,
};
use tokio::sync::{mpsc, watch};

use super::board::Board;
use super::client;
use super::text::{self, Edges};
use crate::clock::now_ms;

/// How often the server sends the changes of the subscribed nodes.
const PUBLISHING: Duration = Duration::from_millis(100);

/// What the link's task hears.
enum Heard {
    /// Connected: to a new session (`true`), or the old one reactivated.
    Connected(bool),
    Lost(String),
    Failed(String),
    Ended(String),
    Value(String, DataValue),
}

/// A running link; stopped when dropped.
pub struct Link {
    pub nodes: Vec<String>,
    state: Arc<Mutex<OpcuaConnection>>,
    stop: watch::Sender<bool>,
}

impl Link {
    /// Links to `endpoint` and subscribes to `nodes`.
    pub fn start(client: &mut Client, endpoint: &str, nodes: Vec<String>, board: Board) -> Link {
        let state = Arc::new(Mutex::new(OpcuaConnection {
            endpoint: endpoint.to_string(),
            connected: false,
            since_ms: now_ms(),
            error: None,
        }));
        let (stop, stopped) = watch::channel(false);
        let session = client::session(client, endpoint);
        let (endpoint, watched, st) = (endpoint.to_string(), nodes.clone(), state.clone());
        tokio::spawn(async move {
            match session {
                Ok(s) => run(s, endpoint, watched, board, st, stopped).await,
                Err(e) => note(&st, false, Some(format!("{e:#}"))),
            }
        });
        Link { nodes, state, stop }
    }

    /// How it stands.
    pub fn connection(&self) -> OpcuaConnection {
        self.state.lock().expect("link state lock").clone()
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

/// Notes the link's state (a change of `connected` moves `since_ms`).
fn note(state: &Mutex<OpcuaConnection>, connected: bool, error: Option<String>) {
    let mut s = state.lock().expect("link state lock");
    if s.connected != connected {
        s.since_ms = now_ms();
    }
    s.connected = connected;
    s.error = error.map(|e| cut(&e, MAX_TEXT_BYTES));
}

async fn run(
    (session, event_loop): (
        Arc<Session>,
        opcua::client::SessionEventLoop<opcua::client::transport::TcpConnector>,
    ),
    endpoint: String,
    nodes: Vec<String>,
    board: Board,
    state: Arc<Mutex<OpcuaConnection>>,
    mut stop: watch::Receiver<bool>,
) {
    let (tx, mut heard) = mpsc::unbounded_channel();
    let events = tx.clone();
    // The event loop, polled on a task of its own; what it does said in order with the
    // values (the callback runs inside it), so a reconnection comes before its values.
    let polling = tokio::spawn(async move {
        let stream = event_loop.enter();
        tokio::pin!(stream);
        while let Some(r) = stream.next().await {
            let h = match r {
                Ok(SessionPollResult::Reconnected(mode)) => {
                    Heard::Connected(matches!(mode, SessionConnectMode::NewSession(_)))
                }
                Ok(SessionPollResult::ConnectionLost(c)) => Heard::Lost(c.to_string()),
                Ok(SessionPollResult::ReconnectFailed(c)) => Heard::Failed(c.to_string()),
                Ok(_) => continue,
                Err(c) => {
                    let _ = events.send(Heard::Ended(c.to_string()));
                    break;
                }
            };
            if events.send(h).is_err() {
                break;
            }
        }
    });
    let mut subscribed = false;
    let mut edges = Edges::default();
    loop {
        tokio::select! {
            _ = stop.changed() => break,
            h = heard.recv() => match h {
                None => break,
                Some(Heard::Connected(new_session)) => {
                    tracing::info!(endpoint, new_session, "OPC UA server connected");
                    edges.reset();
                    note(&state, true, None);
                    // A reactivated session keeps its subscription; a new one (the
                    // server restarted and forgot it) is subscribed again.
                    if new_session {
                        subscribed = false;
                    }
                    if !subscribed {
                        match subscribe(&session, &nodes, tx.clone()).await {
                            Ok(refused) => {
                                subscribed = true;
                                note(&state, true, refused);
                            }
                            Err(e) => {
                                tracing::warn!(endpoint, error = %format!("{e:#}"), "subscribing to OPC UA nodes");
                                note(&state, true, Some(format!("subscribing: {e:#}")));
                            }
                        }
                    }
                }
                Some(Heard::Lost(why)) => {
                    tracing::warn!(endpoint, why, "OPC UA server lost: reconnecting");
                    board.lost(&endpoint);
                    note(&state, false, Some(format!("connection lost: {why}")));
                }
                Some(Heard::Failed(why)) => {
                    note(&state, false, Some(format!("cannot connect: {why}")));
                }
                Some(Heard::Ended(why)) => {
                    board.lost(&endpoint);
                    note(&state, false, Some(format!("gave up: {why}")));
                    break;
                }
                Some(Heard::Value(node, dv)) => {
                    let good = dv.status.is_none_or(|s| s.is_good());
                    let v = dv.value.as_ref().filter(|_| good);
                    let value = v.and_then(text::value_text);
                    let truthy = v.is_some_and(text::truthy);
                    let fired = edges.fires(&node, value.as_deref(), truthy);
                    if fired {
                        tracing::info!(endpoint, node, value, "an OPC UA trigger fired");
                    }
                    board.value(&endpoint, &node, value, fired, now_ms());
                }
            }
        }
    }
    board.lost(&endpoint);
    let _ = tokio::time::timeout(Duration::from_secs(2), session.disconnect()).await;
    polling.abort();
}

/// One subscription with a monitored item per node; the nodes the server refused, in
/// words (they are left out, the others work).
async fn subscribe(
    session: &Session,
    nodes: &[String],
    tx: mpsc::UnboundedSender<Heard>,
) -> anyhow::Result<Option<String>> {
    let id = session
        .create_subscription(
            PUBLISHING,
            // Lifetime and keep-alive counts: the server keeps it ~a minute unheard.
            600,
            20,
            0,
            0,
            true,
            DataChangeCallback::new(move |dv: DataValue, item: &MonitoredItem| {
                let node = item.item_to_monitor().node_id.to_string();
                let _ = tx.send(Heard::Value(node, dv));
            }),
        )
        .await?;
    let mut items = vec![];
    for n in nodes {
        items.push(MonitoredItemCreateRequest {
            item_to_monitor: ReadValueId {
                node_id: client::node_id(n)?,
                attribute_id: opcua::types::AttributeId::Value as u32,
                ..Default::default()
            },
            monitoring_mode: MonitoringMode::Reporting,
            requested_parameters: MonitoringParameters {
                // As fast as the server samples; a short pulse queued, not lost.
                sampling_interval: 0.0,
                queue_size: 16,
                discard_oldest: true,
                ..Default::default()
            },
        });
    }
    let made = session
        .create_monitored_items(id, TimestampsToReturn::Both, items)
        .await?;
    let refused: Vec<String> = nodes
        .iter()
        .zip(&made)
        .filter(|(_, m)| !m.result.status_code.is_good())
        .map(|(n, m)| format!("node {n}: {}", m.result.status_code))
        .collect();
    Ok((!refused.is_empty()).then(|| refused.join("; ")))
}
