//! Camera health as events (issue 30), through the real agent, a real RTSP server
//! (GStreamer's) and the real cloud: a network camera whose server stops raises "camera
//! offline" within 30 s, mailed once to the organisation's 'Device Health' rule, and
//! the event ends when the camera is back; a camera whose picture never changes raises
//! "frozen".

use std::time::{Duration, Instant};

use gemba_shared::mqtt::v1::CameraState;
use reqwest::Method;
use serde_json::json;

mod common;
use common::rtsp::RtspCamera;
use common::{Cloud, camera, demo, interrupt, live_station, wait_for};

/// The device's events of `kind`: (camera, ended) each, oldest first.
async fn events(c: &Cloud, kind: &str) -> Vec<(String, bool)> {
    sqlx::query_as::<_, (String, Option<i64>)>(
        "SELECT camera, ended_at FROM device_camera_events WHERE device_id = $1 AND kind = $2 \
         ORDER BY id",
    )
    .bind(c.device)
    .bind(kind)
    .fetch_all(&c.state.db.pool)
    .await
    .unwrap()
    .into_iter()
    .map(|(camera, ended)| (camera, ended.is_some()))
    .collect()
}

/// The subjects of the mails the cloud sent.
async fn mails(c: &Cloud) -> Vec<String> {
    sqlx::query_scalar("SELECT subject FROM outbox WHERE channel = 'email' ORDER BY id")
        .fetch_all(&c.state.db.pool)
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_camera_whose_server_stops_is_offline_within_30_s_mailed_once_and_back() {
    let d = demo();
    let dir = tempfile::tempdir().unwrap();
    let port = gemba_cloud::seed::free_port();
    let server = RtspCamera::start(port, "line");
    let (c, portal, agent) =
        live_station(dir.path(), &d, None, &[format!("cam0={}", server.url)], &[]).await;
    let org: i64 = sqlx::query_scalar("SELECT organization_id FROM devices WHERE id = $1")
        .bind(c.device)
        .fetch_one(&c.state.db.pool)
        .await
        .unwrap();
    let (code, rule) = portal
        .send(
            Method::POST,
            "feature_control/event_notifications",
            &json!({"event_type": "Device Health", "recipients": ["line-lead@plant.test"],
                    "Organization": org}),
        )
        .await;
    assert_eq!(code, 201, "{rule}");
    wait_for("the camera running its task", 90, async || {
        camera(&c, "cam0")
            .await
            .is_some_and(|x| x.state == CameraState::Running && x.fps > 5.0)
    })
    .await;
    assert!(events(&c, "offline").await.is_empty());

    drop(server);
    let stopped = Instant::now();
    wait_for("the camera offline", 30, async || {
        events(&c, "offline").await == [("cam0".to_string(), false)]
    })
    .await;
    assert!(stopped.elapsed() <= Duration::from_secs(30));
    // One mail for the event, however many statuses said it.
    let offline_mails = async || {
        mails(&c)
            .await
            .into_iter()
            .filter(|s| s == "Device Health: camera offline on Bench")
            .count()
    };
    wait_for("the event's mail", 10, async || offline_mails().await == 1).await;

    let _server = RtspCamera::start(port, "line");
    wait_for("the event over, the camera back", 90, async || {
        events(&c, "offline").await == [("cam0".to_string(), true)]
    })
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(offline_mails().await, 1, "{:?}", mails(&c).await);
    interrupt(agent);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_camera_whose_picture_never_changes_is_frozen() {
    let d = demo();
    let dir = tempfile::tempdir().unwrap();
    let port = gemba_cloud::seed::free_port();
    // A still picture: a stuck camera.
    let server = RtspCamera::start_pattern(port, "still", 320, 240, "colors");
    let (c, _portal, agent) = live_station(
        dir.path(),
        &d,
        None,
        &[format!("cam0={}", server.url)],
        &["--frozen-after", "3"],
    )
    .await;
    wait_for("the camera frozen", 90, async || {
        events(&c, "frozen").await == [("cam0".to_string(), false)]
    })
    .await;
    let s = camera(&c, "cam0").await.unwrap();
    let f = s
        .faults
        .iter()
        .find(|f| f.kind.as_str() == "frozen")
        .unwrap();
    assert!(
        f.detail
            .as_deref()
            .unwrap_or("")
            .starts_with("the picture has not changed for"),
        "{f:?}"
    );
    // A moving camera is never frozen (the first test's camera is a moving ball).
    assert!(events(&c, "offline").await.is_empty());
    interrupt(agent);
    drop(server);
}
