//! The analytics switch (issue 31, `POST device/set_fetch_analytics/{id}/`) through the
//! real `gemba-agent` binary, the real cloud and a Mosquitto of the test's own: a device
//! switched off keeps it off from its kept configuration when it starts (no cycle ever
//! reaches the broker), through a restart too; switched on through the API, every kept
//! cycle reaches the broker in the order it was recorded and is stored once.
//! (`cloud_link.rs` covers the link and outbox without the binary; the outbox's own
//! tests the hold itself.)

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gemba_agent::agent::credentials_path;
use gemba_agent::enroll;
use gemba_shared::mqtt::v1::{Channel, CycleMessage, topic, verify};
use reqwest::Method;
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
use serde_json::json;

mod common;
use common::{
    Broker, Cloud, Portal, cloud_on, demo, device_status, enroll, interrupt, outbox_cycles, run,
    stored, wait_for,
};

/// The cycle ids waiting in the outbox of the agent in `data`, in the order recorded.
fn outbox_order(data: &Path) -> Vec<String> {
    let o = rusqlite::Connection::open(data.join("outbox.db")).unwrap();
    o.prepare("SELECT key FROM outbox WHERE key IS NOT NULL ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// What the agent in `data` keeps of the cloud's configuration.
fn kept_config(data: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(data.join("config.json")).unwrap()).unwrap()
}

/// Every cycle the device in `data` publishes on the broker at `port`, in the order the
/// broker passes them on (its signature checked with the device's key), as they come.
async fn listen(data: &Path, port: u16) -> (Arc<Mutex<Vec<String>>>, AsyncClient) {
    let enrolment = enroll::load(&credentials_path(data)).unwrap();
    let link = enroll::link(&enrolment.credentials).unwrap();
    let cycles = topic(
        &link.org.to_string(),
        &link.device.to_string(),
        Channel::Cycles,
    );
    let mut mo = MqttOptions::new("fetch-analytics-test", "127.0.0.1", port);
    mo.set_max_packet_size(1 << 20, 1 << 20);
    let (client, mut events) = AsyncClient::new(mo, 64);
    let seen = Arc::new(Mutex::new(vec![]));
    let (subscribed_tx, subscribed) = tokio::sync::oneshot::channel();
    let mut subscribed_tx = Some(subscribed_tx);
    let (into, key) = (seen.clone(), link.key.clone());
    client.subscribe(&cycles, QoS::AtLeastOnce).await.unwrap();
    tokio::spawn(async move {
        loop {
            match events.poll().await {
                Ok(Event::Incoming(Packet::SubAck(_))) => {
                    if let Some(tx) = subscribed_tx.take() {
                        let _ = tx.send(());
                    }
                }
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    let m: CycleMessage = verify(&key, &p.payload).expect("a signed cycle");
                    into.lock().unwrap().push(m.id);
                }
                Ok(_) => {}
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    });
    tokio::time::timeout(Duration::from_secs(10), subscribed)
        .await
        .expect("subscribed within 10 s")
        .unwrap();
    (seen, client)
}

/// `ids` with each id's repeats (a cycle sent again) left out.
fn first_times(ids: &[String]) -> Vec<String> {
    let mut once = std::collections::BTreeSet::new();
    ids.iter().filter(|i| once.insert(*i)).cloned().collect()
}

/// Waits (`what`) until `n` cycles are kept in the outbox of the agent in `data`; each
/// once, and none stored by the cloud nor published on the broker (`seen`): the device
/// is off. Answers their ids in the order recorded.
async fn kept_while_off(
    what: &str,
    c: &Cloud,
    data: &Path,
    seen: &Mutex<Vec<String>>,
    n: usize,
) -> Vec<String> {
    wait_for(what, 180, async || outbox_cycles(data).len() >= n).await;
    let kept = outbox_order(data);
    assert_eq!(kept.len(), n, "each cycle once");
    assert!(
        stored(&c.state.db).await.is_empty(),
        "nothing stored while off"
    );
    assert!(
        seen.lock().unwrap().is_empty(),
        "nothing published while off"
    );
    kept
}

/// The configuration version the device's last status says it applies.
async fn applied(c: &Cloud) -> i64 {
    device_status(c).await.map_or(0, |s| s.config_version)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cycles_kept_across_a_restart_while_off_all_arrive_in_order_once_on() {
    let d = demo();
    let dir = tempfile::tempdir().unwrap();
    let port = gemba_cloud::seed::free_port_pair();
    let _broker = Broker::start(dir.path(), port);
    // The device runs nothing yet.
    let c = cloud_on(
        Some(format!("mqtt://127.0.0.1:{port}")),
        &d.truth.operation,
        &[],
    )
    .await;
    let portal = Portal::sign_in(&c).await;
    let data = dir.path().join("agent");
    enroll(&data, &c.url);
    let (seen, _client) = listen(&data, port).await;
    let switch = async |on: bool| {
        let url = format!("device/set_fetch_analytics/{}/", c.device);
        let body = json!({ "fetch_analytics": on });
        let (code, v) = portal.send(Method::POST, &url, &body).await;
        assert_eq!(code, 200, "{v}");
        assert_eq!(v["fetch_analytics"], on, "{v}");
    };

    // Switched off while the device is away; it takes the configuration when it comes.
    switch(false).await;
    let version = gemba_cloud::db::device_config::version(&c.state.db, c.device)
        .await
        .unwrap()
        .unwrap();
    let agent = run(&data, &d, &[]);
    wait_for("the agent applying the configuration", 60, async || {
        applied(&c).await == version
    })
    .await;
    interrupt(agent);
    assert_eq!(kept_config(&data)["fetch_analytics"], false);

    // The task set while it is away: from its start, the agent holds its cycles by the
    // configuration it kept.
    let (code, v) = portal
        .send(
            Method::POST,
            &format!("device/{}/start_task/", c.device),
            &json!({"camera": "cam0", "task": c.task}),
        )
        .await;
    assert_eq!(code, 200, "{v}");
    let agent = run(&data, &d, &[]);
    let n = d.cycles as usize;
    let first = kept_while_off(
        "the footage's cycles kept on the device",
        &c,
        &data,
        &seen,
        n,
    )
    .await;

    // A restart while off: the kept cycles stay, the footage's next ones join them.
    interrupt(agent);
    assert_eq!(outbox_order(&data), first, "kept across the stop");
    let agent = run(&data, &d, &[]);
    let kept = kept_while_off(
        "the footage's cycles again, kept too",
        &c,
        &data,
        &seen,
        2 * n,
    )
    .await;
    assert_eq!(kept[..n], first[..], "the first run's first");

    // On again: every kept cycle goes, in the order recorded, and is stored once.
    switch(true).await;
    wait_for("every kept cycle stored", 120, async || {
        stored(&c.state.db).await.len() == kept.len() && outbox_cycles(&data).is_empty()
    })
    .await;
    assert_eq!(
        stored(&c.state.db).await,
        kept.iter().cloned().collect(),
        "the kept cycles, none lost"
    );
    assert_eq!(
        first_times(&seen.lock().unwrap()),
        kept,
        "published in the order recorded"
    );
    assert_eq!(kept_config(&data).get("fetch_analytics"), None, "on");
    interrupt(agent);
}
