//! The agent against the real cloud: enrolment over HTTP, then the outbox's cycles
//! delivered over MQTT, signed, stored once each, and let go only on the cloud's word;
//! through the cloud's embedded broker and through the external Mosquitto of these
//! machines (`GEMBA_TEST_MQTT_URL`, default mqtt://127.0.0.1:1883).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use gemba_agent::outbox::{Kind, Outbox};
use gemba_agent::{enroll, sync};
use gemba_shared::cycle::{Cycle, Segment};
use gemba_shared::mqtt::v1::{Channel, CycleMessage, StatusMessage, topic};
use tokio::sync::{mpsc, watch};

mod common;
use common::{AGENT_CODE, Cloud, cloud};

async fn stored(c: &Cloud) -> (i64, i64) {
    sqlx::query_as("SELECT COUNT(*), COUNT(DISTINCT id) FROM cycles")
        .fetch_one(&c.state.db.pool)
        .await
        .unwrap()
}

fn cycle(task: i64, i: i64) -> CycleMessage {
    CycleMessage::new(
        uuid::Uuid::new_v4().to_string(),
        task,
        "cam0".into(),
        Cycle {
            start_ms: i * 10_000,
            end_ms: i * 10_000 + 8_000,
            segments: vec![Segment {
                step: 0,
                start_ms: i * 10_000,
                end_ms: i * 10_000 + 8_000,
            }],
            idle_ms: 0,
            good: false,
            reasons: vec![gemba_shared::cycle::BadReason::MissedStep { step: 1 }],
        },
    )
}

struct Agent {
    stop: watch::Sender<bool>,
    handle: tokio::task::JoinHandle<()>,
}

fn start(link: &sync::Link, outbox: &Arc<Mutex<Outbox>>) -> Agent {
    let (stop, stop_rx) = watch::channel(false);
    let (_status_tx, status) = watch::channel(StatusMessage {
        v: 1,
        online: true,
        ts_ms: 0,
        agent_version: "test".into(),
        cameras: vec![],
        outbox: 0,
        disk_free_mb: None,
        temperature_c: None,
        config_version: 0,
        target: String::new(),
        updatable: false,
        update: None,
        faults: vec![],
    });
    let (commands, _rx) = mpsc::channel(8);
    let (rtc, _rtc_rx) = mpsc::channel(8);
    let handle = tokio::spawn(sync::run(
        link.clone(),
        sync::Options {
            resend_after: Duration::from_secs(2),
        },
        outbox.clone(),
        status,
        sync::Inbox {
            commands,
            rtc,
            linked: tokio::sync::watch::channel(false).0,
        },
        stop_rx,
    ));
    Agent { stop, handle }
}

/// Enrols, records `n` cycles, sends them, stops the agent once some are stored and
/// starts it again on the same outbox file: every cycle is stored exactly once and the
/// outbox ends empty.
async fn deliver_across_a_restart(c: &Cloud, n: i64) {
    let reach = enroll::Reach::default();
    let creds = enroll::enroll(&c.url, "abcd-efgh-jkmn", &reach)
        .await
        .unwrap()
        .credentials;
    let again = enroll::enroll(&c.url, AGENT_CODE, &reach)
        .await
        .unwrap_err();
    assert!(again.to_string().contains("wrong or expired"), "{again}");
    let link = enroll::link(&creds).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("outbox.db");
    let outbox = Arc::new(Mutex::new(Outbox::open(&path, 10_000).unwrap()));
    let t = topic(
        &link.org.to_string(),
        &link.device.to_string(),
        Channel::Cycles,
    );
    for i in 0..n {
        let m = cycle(c.task, i);
        outbox
            .lock()
            .unwrap()
            .push(
                Kind::Cycle,
                Some(&m.id),
                &t,
                &serde_json::to_vec(&m).unwrap(),
                0,
            )
            .unwrap();
    }
    let agent = start(&link, &outbox);
    for _ in 0..400 {
        if stored(c).await.0 > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    agent.stop.send(true).unwrap();
    agent.handle.await.unwrap();
    drop(outbox);
    // Stopped as soon as the cloud stored some: what it stored and what the outbox
    // still holds overlap (stored, not yet acknowledged), and both are sent again.
    let left = Outbox::open(&path, 10_000).unwrap().len().unwrap();
    eprintln!(
        "stopped with {:?} stored and {left} of {n} in the outbox",
        stored(c).await
    );
    // A new agent process opens the same outbox file.
    let outbox = Arc::new(Mutex::new(Outbox::open(&path, 10_000).unwrap()));
    let agent = start(&link, &outbox);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let empty = outbox.lock().unwrap().is_empty().unwrap();
        if empty && stored(c).await.0 == n {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "stored {:?} of {n}; {} left in the outbox",
            stored(c).await,
            outbox.lock().unwrap().len().unwrap()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(stored(c).await, (n, n), "each cycle once");
    // The device said it is online, with its signed status.
    let online: i64 = sqlx::query_scalar("SELECT online FROM devices WHERE id = $1")
        .bind(link.device)
        .fetch_one(&c.state.db.pool)
        .await
        .unwrap();
    assert_eq!(online, 1);
    agent.stop.send(true).unwrap();
    agent.handle.await.unwrap();
    // Its last word: offline.
    for _ in 0..100 {
        let online: i64 = sqlx::query_scalar("SELECT online FROM devices WHERE id = $1")
            .bind(link.device)
            .fetch_one(&c.state.db.pool)
            .await
            .unwrap();
        if online == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the device stayed online after it stopped");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_enrolled_agent_delivers_every_cycle_once_across_a_restart_embedded_broker() {
    let c = cloud(None, "Pump\nFit:\nPlace;\nCheck:\nLook;\n").await;
    deliver_across_a_restart(&c, 300).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_enrolled_agent_delivers_every_cycle_once_across_a_restart_through_mosquitto() {
    let url = std::env::var("GEMBA_TEST_MQTT_URL").unwrap_or("mqtt://127.0.0.1:1883".into());
    let c = cloud(Some(url), "Pump\nFit:\nPlace;\nCheck:\nLook;\n").await;
    deliver_across_a_restart(&c, 300).await;
}
