//! The agent against the real cloud: enrolment over HTTP, then the outbox's cycles
//! delivered over MQTT, signed, stored once each, and let go only on the cloud's word;
//! through the cloud's embedded broker and through the external Mosquitto of these
//! machines (`GEMBA_TEST_MQTT_URL`, default mqtt://127.0.0.1:1883). And the analytics
//! switch: cycles kept in the outbox while the cloud's configuration says so, every one
//! stored once it is switched on again.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use gemba_agent::outbox::{Kind, Outbox};
use gemba_agent::{enroll, sync};
use gemba_shared::cycle::{Cycle, Segment};
use gemba_shared::mqtt::v1::{
    self, Channel, Command, CommandAck, CommandMessage, CycleMessage, StatusMessage, topic,
};
use tokio::sync::{mpsc, watch};

mod common;
use common::{AGENT_CODE, Cloud, Portal, cloud, wait_for};

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
    start_hearing(link, outbox).0
}

/// [`start`], with the commands the cloud sends.
fn start_hearing(
    link: &sync::Link,
    outbox: &Arc<Mutex<Outbox>>,
) -> (Agent, mpsc::Receiver<CommandMessage>) {
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
    let (commands, commands_rx) = mpsc::channel(8);
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
    (Agent { stop, handle }, commands_rx)
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

/// The next command from the cloud, a configuration saying `fetch_analytics` is
/// `want`, followed as the agent follows it (`Agent::hold_analytics`). Answers the
/// command's id.
async fn follow_config(
    commands: &mut mpsc::Receiver<CommandMessage>,
    outbox: &Arc<Mutex<Outbox>>,
    want: bool,
) -> String {
    // Other commands (the seeded device's start on cam0) are passed over.
    let (c, config) = loop {
        let c = tokio::time::timeout(Duration::from_secs(30), commands.recv())
            .await
            .expect("a configuration within 30 s")
            .expect("the link is up");
        if let Command::Config { config } = &c.command {
            let config = config.clone();
            break (c, config);
        }
    };
    assert_eq!(config.fetch_analytics, want);
    outbox.lock().unwrap().hold_cycles(!config.fetch_analytics);
    c.id
}

/// Acknowledges command `id` through the outbox, as the agent does (`push_ack`).
fn ack(outbox: &Arc<Mutex<Outbox>>, link: &sync::Link, id: &str) {
    let ack = CommandAck {
        v: v1::VERSION,
        id: id.into(),
        ok: true,
        message: String::new(),
        opcua: None,
    };
    let t = topic(
        &link.org.to_string(),
        &link.device.to_string(),
        Channel::CmdAck,
    );
    outbox
        .lock()
        .unwrap()
        .push(
            Kind::Droppable,
            None,
            &t,
            &serde_json::to_vec(&ack).unwrap(),
            0,
        )
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cycles_kept_while_analytics_are_off_are_all_stored_once_switched_on() {
    let c = cloud(
        None,
        "Pump
Fit:
Place;
Check:
Look;
",
    )
    .await;
    let creds = enroll::enroll(&c.url, AGENT_CODE, &enroll::Reach::default())
        .await
        .unwrap()
        .credentials;
    let link = enroll::link(&creds).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let outbox = Arc::new(Mutex::new(
        Outbox::open(&dir.path().join("outbox.db"), 1_000).unwrap(),
    ));
    let (agent, mut commands) = start_hearing(&link, &outbox);
    let db = c.state.db.clone();
    wait_for("the device online", 30, async || {
        sqlx::query_scalar::<_, i64>("SELECT online FROM devices WHERE id = $1")
            .bind(link.device)
            .fetch_one(&db.pool)
            .await
            .unwrap()
            == 1
    })
    .await;
    let portal = Portal::sign_in(&c).await;
    let url = format!("device/set_fetch_analytics/{}/", link.device);
    let switch = async |on: bool| {
        let body = serde_json::json!({ "fetch_analytics": on });
        let (code, d) = portal.send(reqwest::Method::POST, &url, &body).await;
        assert_eq!(code, 200, "{d}");
        assert_eq!(d["fetch_analytics"], on);
    };

    // Switched off: the cycles recorded now stay, while the acknowledgement queued
    // after them goes.
    switch(false).await;
    let off = follow_config(&mut commands, &outbox, false).await;
    let t = topic(
        &link.org.to_string(),
        &link.device.to_string(),
        Channel::Cycles,
    );
    let n = 20;
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
    ack(&outbox, &link, &off);
    wait_for("the acknowledgement through", 30, async || {
        sqlx::query_scalar::<_, Option<i64>>("SELECT acked_at FROM device_commands WHERE id = $1")
            .bind(&off)
            .fetch_one(&db.pool)
            .await
            .unwrap()
            .is_some()
    })
    .await;
    assert_eq!(stored(&c).await, (0, 0), "nothing sent while kept");
    assert_eq!(outbox.lock().unwrap().cycles().unwrap(), n);

    // On again: every kept cycle stored, once; the outbox empty.
    switch(true).await;
    let on = follow_config(&mut commands, &outbox, true).await;
    ack(&outbox, &link, &on);
    wait_for("every kept cycle stored", 30, async || {
        stored(&c).await == (n, n) && outbox.lock().unwrap().is_empty().unwrap()
    })
    .await;
    agent.stop.send(true).unwrap();
    agent.handle.await.unwrap();
}
