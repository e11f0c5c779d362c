//! The broker a plant can expose (issue 28), as an outsider tries it: a publish larger
//! than the contract allows, sent again and again, neither disconnects the cloud's link
//! nor stops ingestion, on the embedded broker (which refuses it) and on a Mosquitto
//! without a size limit (whose delivery the cloud drops).

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use gemba_shared::mqtt::v1;
use rumqttc::{AsyncClient, Event, MqttOptions, Outgoing, QoS};

use crate::both;
use crate::common::*;

/// The publish the attacker sent in the issue: 600 kB.
const OVERSIZED: usize = 600 * 1000;

/// Publishes `payload` on `topic` of the broker at `port` from a new anonymous
/// connection, and waits until it went out (the broker may close the connection then).
async fn publish(port: u16, topic: &str, payload: Vec<u8>) {
    let id = format!("outsider-{}", uuid::Uuid::new_v4().simple());
    let mut opts = MqttOptions::new(id, "127.0.0.1", port);
    opts.set_max_packet_size(2 * OVERSIZED, 2 * OVERSIZED);
    let (client, mut events) = AsyncClient::new(opts, 4);
    client
        .publish(topic, QoS::AtMostOnce, false, payload)
        .await
        .unwrap();
    let sent = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match events.poll().await {
                Ok(Event::Outgoing(Outgoing::Publish(_))) => return true,
                Ok(_) => {}
                Err(e) => panic!("the outsider could not publish: {e}"),
            }
        }
    })
    .await;
    assert!(sent.is_ok(), "the publish never went out");
    // Give the bytes time to leave before the connection is dropped.
    tokio::time::sleep(Duration::from_millis(50)).await;
}

/// Sends five oversized publishes on a topic the cloud reads, watching `/api/health`
/// all along, then a small malformed one: the link stays connected throughout and
/// reads the small one (counted as rejected).
async fn outsider_floods(app: &TestApp, port: u16) {
    let topic = format!("{}/1/1/cycles", v1::PREFIX);
    let mut connected = false;
    for _ in 0..200 {
        connected = app.health().await["mqtt"] == "connected";
        if connected {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(
        connected,
        "the cloud never connected: {}",
        app.health().await
    );
    let before = app.health().await["ingest"]["rejected"].as_u64().unwrap();
    let flood = {
        let topic = topic.clone();
        tokio::spawn(async move {
            for _ in 0..5 {
                publish(port, &topic, vec![b'x'; OVERSIZED]).await;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        })
    };
    // Watch the link while the flood lasts, and a second after.
    let watch_until = tokio::time::Instant::now() + Duration::from_secs(3);
    while tokio::time::Instant::now() < watch_until {
        let h = app.health().await;
        assert_eq!(
            h["mqtt"], "connected",
            "an oversized publish cut the link: {h}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    flood.await.unwrap();
    publish(port, &topic, b"not a signed message".to_vec()).await;
    for _ in 0..200 {
        let h = app.health().await;
        if h["ingest"]["rejected"].as_u64().unwrap() > before {
            assert_eq!(h["mqtt"], "connected", "{h}");
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!(
        "ingestion read nothing after the flood: {}",
        app.health().await
    );
}

both!(
    an_oversized_publish_leaves_the_embedded_brokers_link_up,
    |app: TestApp| async move {
        outsider_floods(&app, app.mqtt.port()).await;
    }
);

/// A Mosquitto of the test's own on a free port, with no size limit (`mosquitto -p`
/// alone: local only, anonymous), stopped when dropped.
struct Mosquitto(Child);

impl Drop for Mosquitto {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn mosquitto() -> (Mosquitto, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let bin = ["/usr/sbin/mosquitto", "mosquitto"]
        .into_iter()
        .find(|b| !b.starts_with('/') || std::path::Path::new(b).exists())
        .unwrap();
    let child = Command::new(bin)
        .args(["-p", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("mosquitto must be installed for the tests (scripts/test installs it)");
    (Mosquitto(child), port)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_delivery_from_an_external_broker_is_dropped_not_fatal() {
    let (_broker, port) = mosquitto();
    let app = TestApp::start_with(Backend::Sqlite, |s| {
        s.mqtt = format!("mqtt://127.0.0.1:{port}");
    })
    .await;
    outsider_floods(&app, port).await;
}
