//! Delivery against real brokers: the cloud's embedded rumqttd (started late, so the
//! agent first meets no broker at all) and the external Mosquitto of these machines
//! (`GEMBA_TEST_MQTT_URL`, default mqtt://127.0.0.1:1883).

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gemba_shared::mqtt::v1::{Channel, topic};
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
use tokio::sync::watch;

use super::*;
use crate::outbox::{Kind, Outbox};

/// A port whose next port is free too (the embedded broker takes both).
fn free_pair() -> u16 {
    for _ in 0..100 {
        let a = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let p = a.local_addr().unwrap().port();
        if p < 65535 && std::net::TcpListener::bind(("127.0.0.1", p + 1)).is_ok() {
            return p;
        }
    }
    panic!("no free port pair");
}

fn external_broker() -> (String, u16) {
    let url = std::env::var("GEMBA_TEST_MQTT_URL").unwrap_or("mqtt://127.0.0.1:1883".into());
    gemba_cloud::mqtt::broker_address(&url).unwrap()
}

/// Collects the payloads published under `filter` on the broker, from now on.
async fn subscriber(
    host: &str,
    port: u16,
    filter: &str,
) -> tokio::sync::mpsc::UnboundedReceiver<Vec<u8>> {
    let id = format!("sub-{}", uuid::Uuid::new_v4());
    let mut opts = MqttOptions::new(id, host, port);
    opts.set_keep_alive(Duration::from_secs(10));
    let (client, mut events) = AsyncClient::new(opts, 100);
    client.subscribe(filter, QoS::AtLeastOnce).await.unwrap();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let _client = client;
        let mut ready = Some(ready_tx);
        while let Ok(ev) = events.poll().await {
            match ev {
                Event::Incoming(Packet::SubAck(_)) => {
                    if let Some(r) = ready.take() {
                        let _ = r.send(());
                    }
                }
                Event::Incoming(Packet::Publish(p)) => {
                    let _ = tx.send(p.payload.to_vec());
                }
                _ => {}
            }
        }
    });
    tokio::time::timeout(Duration::from_secs(10), ready_rx)
        .await
        .expect("subscribed")
        .unwrap();
    rx
}

/// An outbox with `n` cycle messages `0..n` for a device of its own.
fn filled(dir: &tempfile::TempDir, device: &str, n: usize) -> Arc<Mutex<Outbox>> {
    let mut o = Outbox::open(&dir.path().join("outbox.db"), 10_000).unwrap();
    let t = topic("test", device, Channel::Cycles);
    for i in 0..n {
        o.push(Kind::Cycle, &t, i.to_string().as_bytes(), 0)
            .unwrap();
    }
    Arc::new(Mutex::new(o))
}

/// Waits until every payload `0..n` arrived (duplicates allowed) and the outbox is empty.
async fn all_arrive(
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<Vec<u8>>,
    outbox: &Arc<Mutex<Outbox>>,
    n: usize,
) {
    let mut seen = BTreeSet::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while seen.len() < n {
        let p = tokio::time::timeout_at(deadline, rx.recv())
            .await
            .unwrap_or_else(|_| panic!("only {} of {n} arrived", seen.len()))
            .unwrap();
        seen.insert(String::from_utf8(p).unwrap().parse::<usize>().unwrap());
    }
    assert_eq!(seen, (0..n).collect());
    for _ in 0..100 {
        if outbox.lock().unwrap().is_empty().unwrap() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "the outbox kept {} acknowledged messages",
        outbox.lock().unwrap().len().unwrap()
    );
}

fn device() -> String {
    format!("dev-{}", uuid::Uuid::new_v4().simple())
}

#[tokio::test]
async fn everything_recorded_while_the_broker_is_down_arrives_once_it_is_up() {
    let dir = tempfile::tempdir().unwrap();
    let dev = device();
    let outbox = filled(&dir, &dev, 100);
    let port = free_pair();
    let (stop_tx, stop) = watch::channel(false);
    let agent = tokio::spawn(run(
        Broker {
            host: "127.0.0.1".into(),
            port,
            client_id: dev.clone(),
        },
        outbox.clone(),
        stop,
    ));
    // No broker yet: the agent keeps failing, and keeps everything.
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert_eq!(outbox.lock().unwrap().len().unwrap(), 100);
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    gemba_cloud::mqtt::start_embedded(addr).await.unwrap();
    let mut rx = subscriber("127.0.0.1", port, "gemba/v1/test/+/cycles").await;
    all_arrive(&mut rx, &outbox, 100).await;
    stop_tx.send(true).unwrap();
    tokio::time::timeout(Duration::from_secs(5), agent)
        .await
        .expect("stops")
        .unwrap();
}

#[tokio::test]
async fn an_agent_stopped_midway_sends_the_rest_after_a_restart_through_mosquitto() {
    let (host, port) = external_broker();
    let dir = tempfile::tempdir().unwrap();
    let dev = device();
    let mut rx = subscriber(&host, port, &topic("test", &dev, Channel::Cycles)).await;
    let outbox = filled(&dir, &dev, 300);
    let broker = Broker {
        host: host.clone(),
        port,
        client_id: dev.clone(),
    };
    let (stop_tx, stop) = watch::channel(false);
    let agent = tokio::spawn(run(broker.clone(), outbox.clone(), stop));
    // Stop it as soon as some went out.
    for _ in 0..200 {
        if outbox.lock().unwrap().len().unwrap() < 300 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    stop_tx.send(true).unwrap();
    agent.await.unwrap();
    drop(outbox);
    // A new agent process opens the same outbox file.
    let outbox = Arc::new(Mutex::new(
        Outbox::open(&dir.path().join("outbox.db"), 10_000).unwrap(),
    ));
    let (stop_tx, stop) = watch::channel(false);
    let agent = tokio::spawn(run(broker, outbox.clone(), stop));
    all_arrive(&mut rx, &outbox, 300).await;
    stop_tx.send(true).unwrap();
    agent.await.unwrap();
}
