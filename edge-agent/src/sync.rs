//! The agent's link to the cloud over MQTT, as the device it was enrolled as.
//!
//! - Delivery of the outbox, at-least-once (QoS 1), every payload signed with the
//!   device's key. A cycle leaves the outbox when the cloud says it is stored
//!   (`cycles/ack`); one the broker took but the cloud never confirmed is sent again
//!   after [`Options::resend_after`]. After a lost connection the client starts afresh,
//!   after a back-off ([`crate::outbox::backoff_ms`]).
//! - Status: the latest [`StatusMessage`] is published retained on connecting and
//!   whenever it changes; the last will, signed too, says offline.
//! - Commands: `cmd` messages signed by the cloud with this device's key are handed to
//!   the caller; anything else is dropped and logged.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gemba_shared::mqtt::v1::{
    self, Channel, CommandMessage, CyclesAck, StatusMessage, sign, sign_json, topic, verify,
};
use rumqttc::{AsyncClient, Event, LastWill, MqttOptions, Outgoing, Packet, QoS};
use tokio::sync::{mpsc, watch};

use crate::clock::now_ms;
use crate::outbox::{Outbox, backoff_ms};

/// Messages published and not yet acknowledged by the broker, at most.
const WINDOW: usize = 32;

/// Where to connect and who this device is.
#[derive(Debug, Clone)]
pub struct Link {
    pub host: String,
    pub port: u16,
    pub org: i64,
    pub device: i64,
    /// The key's id and the key (the credentials from enrolment).
    pub kid: String,
    pub key: Vec<u8>,
}

impl Link {
    /// The MQTT client id: the same for every connection of one enrolment (a new
    /// connection takes over a stale one, so its last will cannot say offline after the
    /// new one said online), and unlike any other deployment's device of the same id on
    /// a shared broker (a digest of the key, which is random per enrolment).
    pub fn client_id(&self) -> String {
        use sha2::{Digest, Sha256};
        let d = Sha256::digest([b"gemba-agent client id\0".as_slice(), &self.key].concat());
        let tag = gemba_shared::hex(&d[..6]);
        format!("gemba-agent-{}-{tag}", self.device)
    }

    fn topic(&self, c: Channel) -> String {
        topic(&self.org.to_string(), &self.device.to_string(), c)
    }
}

#[derive(Debug, Clone)]
pub struct Options {
    /// A cycle the cloud has not confirmed this long after the broker took it is sent
    /// again.
    pub resend_after: Duration,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            resend_after: Duration::from_secs(20),
        }
    }
}

/// Runs the link until `stop` turns true; commands from the cloud go to `commands`.
pub async fn run(
    link: Link,
    opts: Options,
    outbox: Arc<Mutex<Outbox>>,
    status: watch::Receiver<StatusMessage>,
    commands: mpsc::Sender<CommandMessage>,
    mut stop: watch::Receiver<bool>,
) {
    let mut failures: u32 = 0;
    let mut status = status;
    while !*stop.borrow() {
        let r = session(
            &link,
            &opts,
            &outbox,
            &mut status,
            &commands,
            &mut stop,
            &mut failures,
        )
        .await;
        match r {
            Ok(()) => return,
            Err(e) => {
                failures = failures.saturating_add(1);
                let wait = backoff_ms(failures);
                tracing::warn!(error = %e, wait_ms = wait, "MQTT link interrupted");
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(wait)) => {}
                    _ = stop.changed() => {}
                }
            }
        }
    }
}

/// One connection. `Ok` when stopped, `Err` when the connection failed.
#[allow(clippy::too_many_arguments)]
async fn session(
    link: &Link,
    opts: &Options,
    outbox: &Arc<Mutex<Outbox>>,
    status: &mut watch::Receiver<StatusMessage>,
    commands: &mpsc::Sender<CommandMessage>,
    stop: &mut watch::Receiver<bool>,
    failures: &mut u32,
) -> anyhow::Result<()> {
    let mut mo = MqttOptions::new(link.client_id(), &link.host, link.port);
    mo.set_keep_alive(Duration::from_secs(10));
    mo.set_clean_session(true);
    mo.set_max_packet_size(v1::MAX_PAYLOAD_BYTES + 1024, v1::MAX_PAYLOAD_BYTES + 1024);
    let offline = StatusMessage {
        online: false,
        ..status.borrow().clone()
    };
    mo.set_last_will(LastWill::new(
        link.topic(Channel::Status),
        sign(&link.key, &link.kid, &offline),
        QoS::AtLeastOnce,
        true,
    ));
    let (client, mut events) = AsyncClient::new(mo, WINDOW * 2);
    let mut connected = false;
    // Outbox ids in the order they were handed to the client, waiting for their packet
    // id; then packet id → outbox id until the broker's PUBACK.
    let mut queued: VecDeque<Option<i64>> = VecDeque::new();
    let mut in_flight: HashMap<u16, i64> = HashMap::new();
    let mut sent_ids: HashSet<i64> = HashSet::new();
    let mut tick = tokio::time::interval(Duration::from_millis(200));
    let resend_ms = opts.resend_after.as_millis() as i64;
    loop {
        tokio::select! {
            _ = stop.changed() => {
                if *stop.borrow() {
                    let _ = client
                        .publish(link.topic(Channel::Status), QoS::AtLeastOnce, true,
                            sign(&link.key, &link.kid, &offline))
                        .await;
                    let _ = client.disconnect().await;
                    // Let the event loop send both.
                    let _ = tokio::time::timeout(Duration::from_millis(500), async {
                        while events.poll().await.is_ok() {}
                    })
                    .await;
                    return Ok(());
                }
            }
            changed = status.changed(), if connected => {
                if changed.is_ok() {
                    let s = status.borrow_and_update().clone();
                    queued.push_back(None);
                    client.publish(link.topic(Channel::Status), QoS::AtLeastOnce, true,
                        sign(&link.key, &link.kid, &s)).await?;
                }
            }
            _ = tick.tick(), if connected => {
                let room = WINDOW.saturating_sub(queued.len() + in_flight.len());
                if room == 0 {
                    continue;
                }
                let msgs = outbox.lock().expect("outbox lock").next(WINDOW, now_ms() - resend_ms)?;
                let fresh: Vec<_> =
                    msgs.into_iter().filter(|m| !sent_ids.contains(&m.id)).take(room).collect();
                if fresh.is_empty() {
                    continue;
                }
                let ids: Vec<i64> = fresh.iter().map(|m| m.id).collect();
                outbox.lock().expect("outbox lock").attempted(&ids)?;
                for m in fresh {
                    let payload = match sign_json(&link.key, &link.kid, &m.payload) {
                        Ok(p) => p,
                        Err(e) => {
                            // Never sendable: dropping it is the only way forward.
                            tracing::error!(id = m.id, error = %e, "an outbox message is not JSON; dropped");
                            outbox.lock().expect("outbox lock").ack(m.id)?;
                            continue;
                        }
                    };
                    client.publish(m.topic.clone(), QoS::AtLeastOnce, false, payload).await?;
                    sent_ids.insert(m.id);
                    queued.push_back(Some(m.id));
                }
            }
            ev = events.poll() => match ev? {
                Event::Incoming(Packet::ConnAck(_)) => {
                    connected = true;
                    *failures = 0;
                    client.subscribe(link.topic(Channel::CyclesAck), QoS::AtLeastOnce).await?;
                    client.subscribe(link.topic(Channel::Cmd), QoS::AtLeastOnce).await?;
                    let s = StatusMessage { online: true, ..status.borrow_and_update().clone() };
                    queued.push_back(None);
                    client.publish(link.topic(Channel::Status), QoS::AtLeastOnce, true,
                        sign(&link.key, &link.kid, &s)).await?;
                    tick.reset_immediately();
                }
                Event::Outgoing(Outgoing::Publish(pkid)) => {
                    if let Some(Some(id)) = queued.pop_front() {
                        in_flight.insert(pkid, id);
                    }
                }
                Event::Incoming(Packet::PubAck(ack)) => {
                    if let Some(id) = in_flight.remove(&ack.pkid) {
                        outbox.lock().expect("outbox lock").delivered(id, now_ms())?;
                        sent_ids.remove(&id);
                        tick.reset_immediately();
                    }
                }
                Event::Incoming(Packet::Publish(p)) => {
                    incoming(link, outbox, commands, &p.topic, &p.payload).await?;
                }
                _ => {}
            },
        }
    }
}

/// A message from the cloud: checked, then acted on.
async fn incoming(
    link: &Link,
    outbox: &Arc<Mutex<Outbox>>,
    commands: &mpsc::Sender<CommandMessage>,
    t: &str,
    payload: &[u8],
) -> anyhow::Result<()> {
    if t == link.topic(Channel::CyclesAck) {
        match verify::<CyclesAck>(&link.key, payload) {
            Ok(ack) => {
                if !ack.refused.is_empty() {
                    tracing::error!(ids = ?ack.refused, "the cloud refused cycles (task not the organisation's)");
                }
                // Their clips may go now (the cycles are stored), to the URL given.
                let gone = outbox.lock().expect("outbox lock").acknowledged(
                    &ack.ids,
                    &ack.refused,
                    ack.clip_url.as_deref(),
                    now_ms(),
                )?;
                for p in gone {
                    let _ = std::fs::remove_file(p);
                }
            }
            Err(e) => tracing::warn!(error = %e, "an acknowledgement not from the cloud; ignored"),
        }
    } else if t == link.topic(Channel::Cmd) {
        match verify::<CommandMessage>(&link.key, payload) {
            Ok(c) => {
                let _ = commands.send(c).await;
            }
            Err(e) => tracing::warn!(error = %e, "a command not from the cloud; ignored"),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Link;

    fn link(key: &[u8]) -> Link {
        Link {
            host: "h".into(),
            port: 1,
            org: 1,
            device: 7,
            kid: "3".into(),
            key: key.to_vec(),
        }
    }

    #[test]
    fn a_client_id_is_the_enrolments_own() {
        let a = link(&[1; 32]).client_id();
        assert_eq!(a, link(&[1; 32]).client_id(), "stable across connections");
        assert!(a.starts_with("gemba-agent-7-") && a.len() == "gemba-agent-7-".len() + 12);
        // Another deployment's device 7 (another key) does not take its connection over.
        assert_ne!(a, link(&[2; 32]).client_id());
    }
}
