//! Delivery of the outbox to the broker: at-least-once over MQTT (QoS 1). A message
//! leaves the outbox only when the broker acknowledged it (PUBACK); after a lost
//! connection the client starts afresh and everything not acknowledged is sent again
//! from the outbox, after a back-off ([`crate::outbox::backoff_ms`]).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rumqttc::{AsyncClient, Event, MqttOptions, Outgoing, Packet, QoS};
use tokio::sync::watch;

use crate::outbox::{Outbox, backoff_ms};

/// Messages published and not yet acknowledged, at most.
const WINDOW: usize = 32;

/// Where and as whom to connect.
#[derive(Debug, Clone)]
pub struct Broker {
    pub host: String,
    pub port: u16,
    pub client_id: String,
}

/// Sends the outbox until `stop` turns true. Runs for the agent's lifetime; returns
/// only when stopped.
pub async fn run(broker: Broker, outbox: Arc<Mutex<Outbox>>, mut stop: watch::Receiver<bool>) {
    let mut failures: u32 = 0;
    while !*stop.borrow() {
        match session(&broker, &outbox, &mut stop, &mut failures).await {
            Ok(()) => return,
            Err(e) => {
                failures = failures.saturating_add(1);
                let wait = backoff_ms(failures);
                tracing::warn!(error = %e, wait_ms = wait, "MQTT delivery interrupted");
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(wait)) => {}
                    _ = stop.changed() => {}
                }
            }
        }
    }
}

/// One connection: publishes what the outbox holds, acknowledges what the broker
/// acknowledged. `Ok` when stopped, `Err` when the connection failed.
async fn session(
    broker: &Broker,
    outbox: &Arc<Mutex<Outbox>>,
    stop: &mut watch::Receiver<bool>,
    failures: &mut u32,
) -> anyhow::Result<()> {
    let mut opts = MqttOptions::new(&broker.client_id, &broker.host, broker.port);
    opts.set_keep_alive(Duration::from_secs(10));
    opts.set_clean_session(true);
    let (client, mut events) = AsyncClient::new(opts, WINDOW * 2);
    let mut connected = false;
    // Outbox ids in the order they were handed to the client, waiting for their packet
    // id; then packet id → outbox id until the PUBACK.
    let mut queued: VecDeque<i64> = VecDeque::new();
    let mut in_flight: HashMap<u16, i64> = HashMap::new();
    let mut sent_ids: std::collections::HashSet<i64> = Default::default();
    let mut tick = tokio::time::interval(Duration::from_millis(200));
    loop {
        tokio::select! {
            _ = stop.changed() => {
                if *stop.borrow() {
                    let _ = client.disconnect().await;
                    return Ok(());
                }
            }
            _ = tick.tick(), if connected => {
                let room = WINDOW.saturating_sub(queued.len() + in_flight.len());
                if room == 0 {
                    continue;
                }
                let msgs = outbox.lock().expect("outbox lock").next(WINDOW)?;
                let fresh: Vec<_> =
                    msgs.into_iter().filter(|m| !sent_ids.contains(&m.id)).take(room).collect();
                for m in fresh {
                    outbox.lock().expect("outbox lock").attempted(m.id)?;
                    client.publish(m.topic.clone(), QoS::AtLeastOnce, false, m.payload).await?;
                    sent_ids.insert(m.id);
                    queued.push_back(m.id);
                }
            }
            ev = events.poll() => match ev? {
                Event::Incoming(Packet::ConnAck(_)) => {
                    connected = true;
                    *failures = 0;
                    tick.reset_immediately();
                }
                Event::Outgoing(Outgoing::Publish(pkid)) => {
                    if let Some(id) = queued.pop_front() {
                        in_flight.insert(pkid, id);
                    }
                }
                Event::Incoming(Packet::PubAck(ack)) => {
                    if let Some(id) = in_flight.remove(&ack.pkid) {
                        outbox.lock().expect("outbox lock").ack(id)?;
                        sent_ids.remove(&id);
                        tick.reset_immediately();
                    }
                }
                _ => {}
            },
        }
    }
}

#[cfg(test)]
mod tests;
