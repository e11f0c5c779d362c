//! Live events for the device stream (`/api/ws`, [`crate::http::stream`]). An event is
//! raised where the change happens (a status ingested, settings changed) and goes at
//! once to this replica's stream sessions, and through the broker to the other
//! replicas' (every replica subscribes to their topic on its own, not as a shared group,
//! since status messages reach only one replica of the group). On the broker an event
//! is signed with a key made from the cloud's secret, which replicas share, so a device
//! cannot fake one.

use std::sync::Arc;

use gemba_shared::api::v1::stream::ServerEvent;
use gemba_shared::mqtt::v1;
use rumqttc::QoS;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio::sync::broadcast;

use crate::mqtt::Link;

/// The topics the replicas exchange events on: `gemba/cloud/v1/events/{id}`, where
/// the id is made from the events key, so that deployments sharing a broker do not
/// hear each other.
pub const TOPIC_PREFIX: &str = "gemba/cloud/v1/events";
/// The key id events are signed under.
const KID: &str = "cloud-events";
/// Events kept for a slow session before it misses some (it is then sent the devices
/// it watches as they are).
const BACKLOG: usize = 1024;

/// An event of device `device` of organisation `org`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OrgEvent {
    pub org: i64,
    pub device: i64,
    pub event: ServerEvent,
}

/// An event on the broker, with the replica that raised it.
#[derive(Serialize, Deserialize)]
struct Envelope {
    v: u32,
    from: String,
    #[serde(flatten)]
    event: OrgEvent,
}

impl v1::Message for Envelope {}

pub struct Events {
    tx: broadcast::Sender<Arc<OrgEvent>>,
    key: Vec<u8>,
    topic: String,
    replica: String,
}

impl Events {
    /// Events signed with a key made from the cloud's `secret`.
    pub fn new(secret: &[u8]) -> Events {
        let mut h = Sha256::new();
        h.update(b"gemba-cloud device stream events\0");
        h.update(secret);
        let key = h.finalize().to_vec();
        let id = gemba_shared::hex(&Sha256::digest(&key)[..8]);
        Events {
            tx: broadcast::channel(BACKLOG).0,
            key,
            topic: format!("{TOPIC_PREFIX}/{id}"),
            replica: crate::auth::random_token(),
        }
    }

    /// The topic this deployment's replicas exchange events on.
    pub fn topic(&self) -> &str {
        &self.topic
    }

    /// This replica's events, from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<OrgEvent>> {
        self.tx.subscribe()
    }

    /// Raises `event`: here at once, and on the broker for the other replicas (not kept
    /// when the broker is away: the portal reads the state again when it reconnects).
    pub fn raise(&self, link: &Link, event: OrgEvent) {
        if let Some(client) = link.client() {
            let msg = Envelope {
                v: v1::VERSION,
                from: self.replica.clone(),
                event: event.clone(),
            };
            let payload = v1::sign(&self.key, KID, &msg);
            if let Err(e) = client.try_publish(&self.topic, QoS::AtLeastOnce, false, payload) {
                tracing::debug!(error = %e, "device stream event not sent to the other replicas");
            }
        }
        // No session listening is not an error.
        let _ = self.tx.send(Arc::new(event));
    }

    /// Takes an event another replica raised; its own come back too, and are skipped.
    pub fn receive(&self, payload: &[u8]) -> Result<(), String> {
        let msg: Envelope = v1::verify_kid(&self.key, KID, payload)?;
        if msg.from != self.replica {
            let _ = self.tx.send(Arc::new(msg.event));
        }
        Ok(())
    }
}
