//! Tampering (issue 31), through the real agent, a real RTSP server (GStreamer's) and the
//! real cloud: a camera showing a scene takes its reference view (kept in the data
//! folder); the same camera turned black (its lens covered) is reported covered; then
//! showing another scene, the covered event ends and it is reported moved (its worker,
//! started again, compares with the kept reference); the request is listed with the
//! screenshot the cloud asked for, and accepting the new view from the portal's call
//! sends `rebaseline`: the agent takes the new view and the moved event ends.

use std::time::Duration;

use gemba_shared::mqtt::v1::CameraState;
use reqwest::Method;
use serde_json::{Value, json};

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

/// When the kept reference of cam0 was taken, once there is one.
fn reference_taken(data: &std::path::Path) -> Option<i64> {
    let bytes = std::fs::read(data.join("tamper").join("cam0.json")).ok()?;
    serde_json::from_slice::<Value>(&bytes).ok()?["taken_ms"].as_i64()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_covered_then_moved_camera_is_reported_and_a_new_view_accepted_ends_it() {
    let d = demo();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("agent");
    let port = gemba_cloud::seed::free_port();
    // Color bars (with a corner of snow, so never frozen).
    let server = RtspCamera::start_pattern(port, "bench", 320, 240, "smpte");
    let (c, portal, agent) = live_station(
        dir.path(),
        &d,
        None,
        &[format!("cam0={}", server.url)],
        &["--tamper-after", "3", "--frozen-after", "3600"],
    )
    .await;
    wait_for("the camera running its task", 90, async || {
        camera(&c, "cam0")
            .await
            .is_some_and(|x| x.state == CameraState::Running)
    })
    .await;
    wait_for("the camera's reference view kept", 60, async || {
        reference_taken(&data).is_some()
    })
    .await;
    let first = reference_taken(&data).unwrap();
    assert!(events(&c, "covered").await.is_empty());
    assert!(events(&c, "moved").await.is_empty());

    // The lens covered: a black picture.
    drop(server);
    let server = RtspCamera::start_pattern(port, "bench", 320, 240, "black");
    wait_for("the camera covered", 90, async || {
        events(&c, "covered").await == [("cam0".to_string(), false)]
    })
    .await;
    let f = camera(&c, "cam0").await.unwrap();
    let covered = f.faults.iter().find(|f| f.kind.as_str() == "covered");
    assert!(
        covered.is_some_and(|f| f
            .detail
            .as_deref()
            .unwrap_or("")
            .starts_with("the picture is nearly uniform")),
        "{f:?}"
    );
    assert!(events(&c, "moved").await.is_empty(), "covered is not moved");

    // Uncovered, but turned to another scene: covered ends, moved begins.
    drop(server);
    let _server = RtspCamera::start_pattern(port, "bench", 320, 240, "pinwheel");
    wait_for("the camera moved, no longer covered", 120, async || {
        events(&c, "covered").await == [("cam0".to_string(), true)]
            && events(&c, "moved").await == [("cam0".to_string(), false)]
    })
    .await;
    assert_eq!(
        reference_taken(&data),
        Some(first),
        "the kept reference stays"
    );

    // Both are tampering requests, each with the screenshot taken when it opened.
    let mut requests = Value::Null;
    wait_for("the requests with their screenshots", 30, async || {
        requests = portal.get("telemetry/tampering_requests/?state=open").await;
        requests["count"] == 2
            && requests["results"]
                .as_array()
                .unwrap()
                .iter()
                .all(|r| r["screenshot"].is_string())
    })
    .await;
    let moved = requests["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "moved")
        .unwrap()
        .clone();
    assert_eq!(moved["camera"], "cam0");

    // The camera was moved on purpose: its new view accepted, the agent takes it.
    let (code, r) = portal
        .send(
            Method::PATCH,
            &format!("telemetry/tampering_requests/{}/", moved["id"]),
            &json!({"action": "accept_view", "note": "bench turned for the new fixture"}),
        )
        .await;
    assert_eq!(code, 200, "{r}");
    assert_eq!(r["state"], "resolved");
    assert!(reference_taken(&data).unwrap() > first);
    wait_for("the moved event over", 30, async || {
        events(&c, "moved").await == [("cam0".to_string(), true)]
    })
    .await;
    // And not raised again: the new view is the reference now.
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(events(&c, "moved").await, [("cam0".to_string(), true)]);
    interrupt(agent);
}
