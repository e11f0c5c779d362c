//! A network camera attached from the portal (issue 29, `device/remote_cam`), through
//! the real cloud and the real agent: a real RTSP server (GStreamer's) serves it; the
//! device adds it to its cameras, runs the portal's task on it, and when the server is
//! stopped reports it failed with why, then running again once it is back on the same
//! address, by itself; removed, the camera goes with what ran on it.

use std::time::Duration;

use gemba_shared::mqtt::v1::CameraState;
use reqwest::Method;
use serde_json::json;

mod common;
use common::rtsp::RtspCamera;
use common::{camera, demo, interrupt, live_station, wait_for};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_rtsp_camera_runs_a_task_fails_when_its_server_stops_and_comes_back() {
    let d = demo();
    let dir = tempfile::tempdir().unwrap();
    let port = gemba_cloud::seed::free_port();
    let server = RtspCamera::start(port, "door");
    let (c, portal, agent) = live_station(
        dir.path(),
        &d,
        None,
        &[format!("cam0={}", d.footage.display())],
        &[],
    )
    .await;
    wait_for("the device online", 60, async || {
        camera(&c, "cam0").await.is_some()
    })
    .await;

    // Attached from the portal, with a login the camera ignores (it travels in the URL).
    let (code, made) = portal
        .send(
            Method::POST,
            &format!("device/remote_cam/{}/", c.device),
            &json!({"name": "door", "url": server.url,
                    "username": "viewer", "password": "s3cret"}),
        )
        .await;
    assert_eq!(code, 201, "{made}");
    wait_for("the device to report the door camera", 30, async || {
        camera(&c, "door").await.is_some()
    })
    .await;
    // The portal runs the task on it.
    gemba_cloud::db::devices::set_camera_task(&c.state.db, c.device, "door", Some(c.task))
        .await
        .unwrap();
    wait_for("the door camera running its task", 60, async || {
        camera(&c, "door").await.is_some_and(|x| {
            x.task == Some(c.task) && x.state == CameraState::Running && x.fps > 5.0
        })
    })
    .await;

    // Unplugged: failed, with why, the task kept.
    drop(server);
    let mut failed = None;
    wait_for("the door camera failed", 60, async || {
        failed = camera(&c, "door")
            .await
            .filter(|x| x.state == CameraState::Failed);
        failed.is_some()
    })
    .await;
    let failed = failed.unwrap();
    assert_eq!(failed.task, Some(c.task), "{failed:?}");
    let error = failed.error.unwrap_or_default();
    assert!(error.contains("door"), "names the camera: {error}");
    assert!(!error.contains("s3cret"), "never the password: {error}");
    // Back on the same address: running again, started by the agent itself.
    let server = RtspCamera::start(port, "door");
    wait_for("the door camera running again", 90, async || {
        camera(&c, "door")
            .await
            .is_some_and(|x| x.state == CameraState::Running && x.fps > 5.0)
    })
    .await;

    // Removed from the portal: gone from the device, and nothing runs on it.
    let id = made["id"].as_i64().unwrap();
    let (code, v) = portal
        .send(
            Method::DELETE,
            &format!("device/remote_cam/{id}/"),
            &json!({}),
        )
        .await;
    assert_eq!(code, 200, "{v}");
    wait_for("the door camera gone", 30, async || {
        camera(&c, "door").await.is_none()
    })
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(camera(&c, "cam0").await.and_then(|x| x.task), Some(c.task));
    drop(server);
    interrupt(agent);
}
