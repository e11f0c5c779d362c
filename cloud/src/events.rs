//! Live events for the device stream (`/api/ws`, [`crate::http::stream`]). An event is
//! raised where the change happens (a status ingested, settings changed) and goes at
//! once to this replica's stream sessions, and through the broker to the other
//! replicas' (every replica subscribes to their topic on its own, not as a shared group,
//! since status messages reach only one replica of the group). On the broker an event
//! is signed with a key made from the cloud's secret, which replicas share, so a device
//! cannot fake one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gemba_shared::api::v1::stream::{CyclesEvent, ServerEvent};
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

fn cycles_event(org: i64, device: i64) -> OrgEvent {
    OrgEvent {
        org,
        device,
        event: ServerEvent::Cycles(CyclesEvent { id: device }),
    }
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

/// How often, at most, the stream tells of one device's new cycles.
pub const CYCLES_EVERY: Duration = Duration::from_secs(1);

/// When the stream last told of a device's new cycles, and whether more came since.
#[derive(Default)]
struct Notice {
    last: Option<Instant>,
    pending: bool,
}

pub struct Events {
    tx: broadcast::Sender<Arc<OrgEvent>>,
    key: Vec<u8>,
    topic: String,
    replica: String,
    /// Per organisation and device.
    cycles: Mutex<HashMap<(i64, i64), Notice>>,
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
            cycles: Mutex::default(),
        }
    }

    /// New cycles of device `device` of `org` were stored: the stream tells of them now,
    /// or, when it told of the device's cycles less than [`CYCLES_EVERY`] ago, at the
    /// [`Events::flush_cycles`] after that (ingestion stores many batches a second).
    pub fn cycles_stored(&self, link: &Link, org: i64, device: i64) {
        let now = Instant::now();
        let due = {
            let mut m = self.cycles.lock().expect("cycle notices");
            let n = m.entry((org, device)).or_default();
            if n.last.is_some_and(|t| now.duration_since(t) < CYCLES_EVERY) {
                n.pending = true;
                false
            } else {
                *n = Notice {
                    last: Some(now),
                    pending: false,
                };
                true
            }
        };
        if due {
            self.raise(link, cycles_event(org, device));
        }
    }

    /// Tells of the new cycles [`Events::cycles_stored`] held back, once their device's
    /// [`CYCLES_EVERY`] has passed; forgets devices quiet for a minute. Called every
    /// [`CYCLES_EVERY`].
    pub fn flush_cycles(&self, link: &Link) {
        let now = Instant::now();
        let mut due = Vec::new();
        {
            let mut m = self.cycles.lock().expect("cycle notices");
            m.retain(|_, n| {
                n.pending
                    || n.last
                        .is_some_and(|t| now.duration_since(t) < 60 * CYCLES_EVERY)
            });
            for (&k, n) in m.iter_mut() {
                if n.pending && n.last.is_none_or(|t| now.duration_since(t) >= CYCLES_EVERY) {
                    *n = Notice {
                        last: Some(now),
                        pending: false,
                    };
                    due.push(k);
                }
            }
        }
        for (org, device) in due {
            self.raise(link, cycles_event(org, device));
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
