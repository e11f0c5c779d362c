//! The broker a plant can expose (issue 28), as an outsider tries it:
//! - the embedded broker takes only enrolled devices, each with its own login and
//!   client id, and the cloud; revoking, archiving or deleting a device ends its
//!   connection (revocation in `devices.rs`);
//! - a publish larger than the contract allows, sent again and again, neither
//!   disconnects the cloud's link nor stops ingestion, on the embedded broker (which
//!   refuses it) and on a Mosquitto without a size limit (whose delivery the cloud
//!   drops).

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use gemba_shared::api::v1::device::Credentials;
use gemba_shared::broker;
use gemba_shared::mqtt::v1;
use rumqttc::{AsyncClient, Event, MqttOptions, Outgoing, QoS};

use crate::common::*;
use crate::devices::{TestDevice, answers, connects, device_options, enrolled, world};
use crate::{both, both_with};

/// The publish the attacker sent in the issue: 600 kB.
const OVERSIZED: usize = 600 * 1000;

/// Who sends: a device's login (the embedded broker takes no one else) or, on a
/// broker that takes anyone, nobody's.
type Sender = Option<Credentials>;

/// Publishes `payload` on `topic` of the broker at `port` from a new connection (as
/// `from`), and waits until it went out (the broker may close the connection then).
async fn publish(port: u16, from: &Sender, topic: &str, payload: Vec<u8>) {
    // A device's connection as its agent's (TLS, in its tenant, on the embedded broker).
    let (mut opts, topic) = match from {
        Some(c) => {
            let (o, prefix) = device_options(c);
            (o, format!("{prefix}{topic}"))
        }
        None => {
            let id = format!("outsider-{}", uuid::Uuid::new_v4().simple());
            (MqttOptions::new(id, "127.0.0.1", port), topic.to_string())
        }
    };
    opts.set_max_packet_size(2 * OVERSIZED, 2 * OVERSIZED);
    let (client, mut events) = AsyncClient::new(opts, 4);
    client
        .publish(topic, QoS::AtMostOnce, false, payload)
        .await
        .unwrap();
    let sent = tokio::time::timeout(Duration::from_secs(5), async {
        let mut connected = false;
        loop {
            match events.poll().await {
                Ok(Event::Outgoing(Outgoing::Publish(_))) => return true,
                Ok(Event::Incoming(rumqttc::Packet::ConnAck(_))) => connected = true,
                Ok(_) => {}
                // Over TLS the broker may reset the connection while the oversized
                // publish is still being written: it refused it.
                Err(_) if connected => return true,
                Err(e) => panic!("the outsider could not connect: {e}"),
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
async fn outsider_floods(app: &TestApp, port: u16, from: Sender) {
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
        let (topic, from) = (topic.clone(), from.clone());
        tokio::spawn(async move {
            for _ in 0..5 {
                publish(port, &from, &topic, vec![b'x'; OVERSIZED]).await;
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
    publish(port, &from, &topic, b"not a signed message".to_vec()).await;
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
        // Only an enrolled device gets in: one whose owner turned against the plant.
        let w = world(&app).await;
        let creds = enrolled(&app, &w.boss, "Rogue").await;
        outsider_floods(&app, app.mqtt.port(), Some(creds)).await;
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
    // Below the range the OS hands out for outgoing connections (a port taken from
    // port 0 can be some other test's client's by the time mosquitto binds it).
    let port = gemba_cloud::seed::free_port_pair();
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
    outsider_floods(&app, port, None).await;
}

/// The options of a connection to the embedded broker as `client_id` with `login`.
fn options(port: u16, client_id: &str, login: Option<(&str, &str)>) -> MqttOptions {
    let mut o = MqttOptions::new(client_id, "127.0.0.1", port);
    if let Some((user, pass)) = login {
        o.set_credentials(user, pass);
    }
    o
}

/// Whether the embedded broker's MQTT 5 listener (the port after `port`) acknowledges
/// a connection as `client_id` with `login`.
async fn answers_v5(port: u16, client_id: &str, login: Option<(&str, &str)>) -> bool {
    use rumqttc::v5::mqttbytes::v5::{ConnectReturnCode, Packet};
    use rumqttc::v5::{AsyncClient, Event, MqttOptions};
    let mut o = MqttOptions::new(client_id, "127.0.0.1", port + 1);
    if let Some((user, pass)) = login {
        o.set_credentials(user, pass);
    }
    let (client, mut events) = AsyncClient::new(o, 4);
    let acked = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match events.poll().await {
                Ok(Event::Incoming(Packet::ConnAck(a))) => {
                    return a.code == ConnectReturnCode::Success;
                }
                Ok(_) => {}
                Err(_) => return false,
            }
        }
    })
    .await
    .unwrap_or(false);
    let _ = client.try_disconnect();
    acked
}

both_with!(
    the_embedded_broker_takes_only_enrolled_devices_each_as_itself,
    // Its plain listeners (an operator's choice), reached with bare options; over TLS
    // the same check runs (`broker_tls.rs`).
    |s: &mut gemba_cloud::config::Settings| s.mqtt_tls = false,
    |app: TestApp| async move {
        let w = world(&app).await;
        let creds = enrolled(&app, &w.boss, "Press 1").await;
        let other = enrolled(&app, &w.boss, "Press 2").await;
        let port = app.mqtt.port();
        let key = STANDARD.decode(&creds.key).unwrap();
        let (id, user, pass) = (
            broker::client_id(creds.device, &key),
            broker::username(creds.device),
            broker::password(&key),
        );
        let other_key = STANDARD.decode(&other.key).unwrap();
        // Its own login, as the agent connects (the check is not refusing everyone).
        assert!(connects(&creds).await, "the device's own login was refused");
        assert!(answers_v5(port, &id, Some((&user, &pass))).await);
        // Anonymous, on both listeners (MQTT 3.1.1 and 5).
        assert!(!answers(options(port, "outsider", None)).await);
        assert!(!answers_v5(port, "outsider", None).await);
        // A wrong secret; another device's password for this device's name.
        assert!(!answers(options(port, &id, Some((&user, "guess")))).await);
        let theirs = broker::password(&other_key);
        assert!(!answers(options(port, &id, Some((&user, &theirs)))).await);
        assert!(!answers_v5(port, &id, Some((&user, &theirs))).await);
        // Its login under another device's client id (which would cut that one off),
        // or under any id but its own (which the cloud could not end on revocation).
        let their_id = broker::client_id(other.device, &other_key);
        assert!(!answers(options(port, &their_id, Some((&user, &pass)))).await);
        assert!(!answers(options(port, "gemba-agent-x", Some((&user, &pass)))).await);
        // The cloud's username with a guess; a name that is nobody's.
        assert!(!answers(options(port, "c", Some(("gemba-cloud", "guess")))).await);
        assert!(!answers(options(port, "c", Some(("admin", "admin")))).await);
        assert!(!answers(options(port, "c", Some(("gemba-device-999999", &pass)))).await);
    }
);

both!(
    archiving_or_deleting_a_device_ends_its_connection,
    |app: TestApp| async move {
        let w = world(&app).await;
        let a = enrolled(&app, &w.boss, "Press 1").await;
        let b = enrolled(&app, &w.boss, "Press 2").await;
        let mut dev_a = TestDevice::of(&a).await;
        let mut dev_b = TestDevice::of(&b).await;
        let _: serde_json::Value = app
            .send_as(
                reqwest::Method::PATCH,
                &format!("device/archive_device/{}/", a.device),
                &serde_json::json!({"is_archived": true}),
                &w.boss,
            )
            .await;
        dev_a.disconnected().await;
        assert!(!connects(&a).await, "an archived device connected again");
        // The other device stays connected.
        assert!(!*dev_b.ended.borrow());
        let (s, _) = app
            .call(
                reqwest::Method::DELETE,
                &format!("device/{}/", b.device),
                None,
                Some(&w.boss),
            )
            .await;
        assert_eq!(s, reqwest::StatusCode::NO_CONTENT);
        dev_b.disconnected().await;
        assert!(!connects(&b).await, "a deleted device connected again");
    }
);
