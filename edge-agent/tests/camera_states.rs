//! What a camera does, as the real `gemba-agent` reports it to the real cloud (issue
//! 25): a source that fails after its start says why in the status and is started
//! again by the agent with a back-off (not by the cloud); a camera the device lacks is
//! refused once, not in a storm; a stop for another task, or older than the camera's
//! start, leaves the camera running; a stop captured and published again is ignored.

use std::time::Duration;

use gemba_shared::mqtt::v1::{CameraState, Command};

mod common;
use common::{
    Cloud, Demo, Running, answer, camera, cloud_on, command, demo, enroll, interrupt, run_cameras,
    wait_for,
};

/// The footage looped at real time, a heartbeat a second.
const LIVE: &[&str] = &["--loop", "--heartbeat", "1"];

async fn commands_sent(c: &Cloud) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM device_commands WHERE device_id = $1")
        .bind(c.device)
        .fetch_one(&c.state.db.pool)
        .await
        .unwrap()
}

/// A cloud whose device is set to run the demo task on `set`, and the real agent
/// enrolled as that device, watching `source` on its `cam0`, live.
async fn started(set: &str, source: &str) -> (Demo, Cloud, tempfile::TempDir, Running) {
    let d = demo();
    let c = cloud_on(None, &d.truth.operation, &[set]).await;
    let data = tempfile::tempdir().unwrap();
    enroll(data.path(), &c.url);
    let agent = run_cameras(data.path(), &d, &[format!("cam0={source}")], LIVE);
    (d, c, data, agent)
}

/// A local port nothing listens on.
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_camera_whose_source_fails_says_why_and_the_agent_starts_it_again() {
    let source = format!("rtsp://127.0.0.1:{}/line1", closed_port());
    let (_d, c, _data, agent) = started("cam0", &source).await;
    // The start is accepted (the camera exists, the model fits); its source then fails.
    let mut first = None;
    wait_for("cam0 to fail", 60, async || {
        first = camera(&c, "cam0")
            .await
            .filter(|x| x.state == CameraState::Failed);
        first.is_some()
    })
    .await;
    let first = first.unwrap();
    assert_eq!(first.task, Some(c.task), "it keeps its task: {first:?}");
    let error = first.error.clone().unwrap_or_default();
    assert!(!error.is_empty(), "{first:?}");
    let (since, retry_at) = (first.since_ms.unwrap(), first.retry_at_ms.unwrap());
    assert!(retry_at > since, "{first:?}");
    // The agent starts it again by itself, backing off: still failing since the first
    // time, its next try later each time.
    let mut later = None;
    wait_for("a second failure", 30, async || {
        later = camera(&c, "cam0")
            .await
            .filter(|x| x.state == CameraState::Failed && x.retry_at_ms > Some(retry_at));
        later.is_some()
    })
    .await;
    let later = later.unwrap();
    assert_eq!(later.since_ms, Some(since), "{later:?}");
    assert!(
        later.retry_at_ms.unwrap() - later.since_ms.unwrap() > retry_at - since,
        "backs off: {first:?} then {later:?}"
    );
    // The cloud sent the one start: the agent's status says the task is set and failing,
    // which is not a reason to send it again.
    assert_eq!(commands_sent(&c).await, 1);
    // The portal's stop ends the retries: the camera is idle, and stays so.
    let generation = gemba_cloud::db::camera_tasks::generation(&c.state.db, c.device, "cam0")
        .await
        .unwrap()
        .unwrap();
    gemba_cloud::db::devices::set_camera_task(&c.state.db, c.device, "cam0", None)
        .await
        .unwrap();
    let (ok, message) = command(
        &c,
        Command::StopTask {
            camera: "cam0".into(),
            task: Some(c.task),
            generation: generation + 1,
        },
    )
    .await;
    assert!(ok, "{message}");
    wait_for("cam0 idle", 10, async || {
        camera(&c, "cam0")
            .await
            .is_some_and(|x| x.state == CameraState::Idle && x.task.is_none())
    })
    .await;
    tokio::time::sleep(Duration::from_secs(5)).await;
    let x = camera(&c, "cam0").await.unwrap();
    assert_eq!((x.state, x.error), (CameraState::Idle, None));
    interrupt(agent);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_camera_the_device_lacks_is_refused_once_and_shown_not_asked_in_a_storm() {
    let footage = demo().footage.display().to_string();
    let (_d, c, _data, agent) = started("cam9", &footage).await;
    let why = "this device has no camera cam9";
    let refused = async || -> Option<String> {
        sqlx::query_scalar("SELECT refused FROM device_tasks WHERE device_id = $1")
            .bind(c.device)
            .fetch_one(&c.state.db.pool)
            .await
            .unwrap()
    };
    wait_for("the refusal", 30, async || refused().await.is_some()).await;
    assert!(refused().await.unwrap().contains(why));
    // Ten seconds of heartbeats (one a second) later: no command again (the back-off
    // is 30 s) where before it was about 15 a second.
    tokio::time::sleep(Duration::from_secs(10)).await;
    assert_eq!(commands_sent(&c).await, 1);
    interrupt(agent);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_for_another_task_or_an_older_generation_leaves_the_camera_running() {
    let footage = demo().footage.display().to_string();
    let (_d, c, _data, agent) = started("cam0", &footage).await;
    wait_for("cam0 running", 60, async || {
        camera(&c, "cam0")
            .await
            .is_some_and(|x| x.state == CameraState::Running)
    })
    .await;
    let generation = camera(&c, "cam0").await.unwrap().generation;
    assert!(generation > 0, "the start's generation is reported");
    for (task, g, why) in [
        (c.task + 1000, 0, "not"),
        (c.task, generation - 1, "started anew after this stop"),
    ] {
        let (ok, message) = command(
            &c,
            Command::StopTask {
                camera: "cam0".into(),
                task: Some(task),
                generation: g,
            },
        )
        .await;
        assert!(ok && message.contains(why), "{message}");
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let x = camera(&c, "cam0").await.unwrap();
    assert_eq!((x.task, x.state), (Some(c.task), CameraState::Running));
    interrupt(agent);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replayed_stop_is_not_obeyed() {
    use gemba_shared::mqtt::v1::{COMMAND_VERSION, Channel, CommandMessage};
    let footage = demo().footage.display().to_string();
    let (_d, c, _data, agent) = started("cam0", &footage).await;
    let running = async || {
        camera(&c, "cam0")
            .await
            .is_some_and(|x| x.state == CameraState::Running)
    };
    wait_for("cam0 running", 60, running).await;
    let generation = camera(&c, "cam0").await.unwrap().generation;
    // A stop, as the cloud sends it: the message an attacker captures.
    let org: i64 = sqlx::query_scalar("SELECT organization_id FROM devices WHERE id = $1")
        .bind(c.device)
        .fetch_one(&c.state.db.pool)
        .await
        .unwrap();
    let sent_ms = gemba_cloud::db::now_ms();
    let stop = CommandMessage {
        v: COMMAND_VERSION,
        id: gemba_cloud::mqtt::new_command_id(),
        sent_ms,
        expires_ms: sent_ms + gemba_cloud::mqtt::COMMAND_VALID_MS,
        command: Command::StopTask {
            camera: "cam0".into(),
            task: Some(c.task),
            generation,
        },
    };
    let db = &c.state.db;
    c.state
        .mqtt
        .command_with_id(db, org, c.device, &stop.id, stop.command.clone())
        .await
        .unwrap();
    wait_for("cam0 stopped", 30, async || {
        camera(&c, "cam0").await.is_some_and(|x| x.task.is_none())
    })
    .await;
    // Started again (by hand: the reconcile would wait out its back-off).
    let task = gemba_cloud::db::tasks::get(db, 0, None, c.task)
        .await
        .unwrap()
        .unwrap();
    let (ok, message) = command(
        &c,
        Command::StartTask {
            camera: "cam0".into(),
            task: c.task,
            engine: gemba_shared::cycle::EngineConfig::from_task(&task.settings()),
            generation,
        },
    )
    .await;
    assert!(ok, "{message}");
    wait_for("cam0 running again", 60, running).await;
    // The same signed stop, published again: the camera keeps running.
    c.state
        .mqtt
        .send(db, org, c.device, Channel::Cmd, &stop)
        .await
        .unwrap();
    for _ in 0..40 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let x = camera(&c, "cam0").await.unwrap();
        assert_eq!(
            (x.task, x.state),
            (Some(c.task), CameraState::Running),
            "the replayed stop was obeyed"
        );
    }
    // A stop that expired before the start above was sent (captured long ago, its id
    // forgotten since): refused as expired, and the camera keeps running.
    let sent_ms = gemba_cloud::db::now_ms() - 2 * gemba_cloud::mqtt::COMMAND_VALID_MS;
    let expired = CommandMessage {
        id: gemba_cloud::mqtt::new_command_id(),
        sent_ms,
        expires_ms: sent_ms + gemba_cloud::mqtt::COMMAND_VALID_MS,
        ..stop
    };
    let json = serde_json::to_string(&expired.command).unwrap();
    gemba_cloud::db::devices::insert_command(db, &expired.id, c.device, &json)
        .await
        .unwrap();
    c.state
        .mqtt
        .send(db, org, c.device, Channel::Cmd, &expired)
        .await
        .unwrap();
    let (ok, message) = answer(&c, &expired.id).await;
    assert!(!ok && message.contains("expired"), "{message}");
    let x = camera(&c, "cam0").await.unwrap();
    assert_eq!((x.task, x.state), (Some(c.task), CameraState::Running));
    interrupt(agent);
}
