//! Tampering requests (issue 31): a device's status saying a camera is covered or moved
//! opens a request, for which the cloud asks the device for a screenshot at once; the
//! super admin lists every organisation's (open first, by state, by organisation), an
//! organisation's people their own; accepting a moved camera's new view sends the
//! device `rebaseline` and waits for its answer (a refusal says why and leaves the
//! request open), dismissing needs a note; a request is decided once, by whom, when
//! and why. The device is a test device on the real broker, answering as the agent.

use gemba_shared::api::v1::Page;
use gemba_shared::api::v1::device::CameraEventKind;
use gemba_shared::api::v1::tampering::{TamperingAction, TamperingRequest, TamperingState};
use gemba_shared::mqtt::v1::{self, Channel, Command, Fault};
use reqwest::StatusCode;
use serde_json::json;

use crate::both_with;
use crate::common::*;
use crate::device_config::{bench, status};
use crate::devices::TestDevice;

const JPEG: &[u8] = include_bytes!("../data/screenshot.jpg");

/// cam0 and cam1 with these faults: (camera, kind, since on the device's clock).
fn with_faults(faults: &[(&str, CameraEventKind, i64)]) -> v1::StatusMessage {
    let mut s = status(&["cam0", "cam1"], 0);
    for c in &mut s.cameras {
        c.faults = faults
            .iter()
            .filter(|(cam, _, _)| *cam == c.camera)
            .map(|(_, kind, since)| Fault {
                kind: *kind,
                since_ms: *since,
                detail: Some(format!("{} said", kind.as_str())),
            })
            .collect();
    }
    s
}

/// Answers the device's next `n` screenshot commands with the JPEG: the cameras asked.
async fn send_screenshots(app: &TestApp, dev: &mut TestDevice, n: usize) -> Vec<String> {
    let mut cameras = vec![];
    while cameras.len() < n {
        let c: v1::CommandMessage = dev.next(Channel::Cmd).await;
        let Command::Screenshot { camera, url } = c.command else {
            continue;
        };
        let r = app
            .client
            .put(&url)
            .body(JPEG.to_vec())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        dev.ack(&c.id, true, "").await;
        cameras.push(camera);
    }
    cameras.sort();
    cameras
}

/// Answers the device's next `rebaseline` command (ok, message): its camera.
async fn answer_rebaseline(dev: &mut TestDevice, ok: bool, message: &str) -> String {
    loop {
        let c: v1::CommandMessage = dev.next(Channel::Cmd).await;
        if let Command::Rebaseline { camera } = c.command {
            dev.ack(&c.id, ok, message).await;
            return camera;
        }
    }
}

async fn list(app: &TestApp, tok: &str, query: &str) -> Page<TamperingRequest> {
    app.get_as(&format!("telemetry/tampering_requests/{query}"), tok)
        .await
}

/// The requests once `ok` holds (within 10 s).
async fn list_when(
    app: &TestApp,
    tok: &str,
    ok: impl Fn(&Page<TamperingRequest>) -> bool,
) -> Page<TamperingRequest> {
    let mut last = None;
    for _ in 0..400 {
        let p = list(app, tok, "").await;
        if ok(&p) {
            return p;
        }
        last = Some(p);
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("the requests never showed it: {last:?}");
}

both_with!(
    a_covered_and_a_moved_camera_are_requests_reviewed_once,
    |s: &mut gemba_cloud::config::Settings| s.screenshot_wait_ms = 5_000,
    |app: TestApp| async move {
        let mut b = bench(&app).await;
        let w = &b.w;
        let admin = w.admin.clone();
        let now = gemba_cloud::db::now_ms();
        b.dev
            .send_status(&with_faults(&[
                ("cam0", CameraEventKind::Moved, now - 20_000),
                ("cam1", CameraEventKind::Covered, now - 10_000),
            ]))
            .await;
        // The cloud asks for a screenshot of each camera as its request opens.
        assert_eq!(
            send_screenshots(&app, &mut b.dev, 2).await,
            ["cam0", "cam1"]
        );
        let p = list_when(&app, &admin, |p| {
            p.count == 2 && p.results.iter().all(|r| r.screenshot.is_some())
        })
        .await;
        // Newest first: cam1's began later.
        let (covered, moved) = (&p.results[0], &p.results[1]);
        assert_eq!(
            (
                covered.camera.as_str(),
                covered.kind,
                moved.camera.as_str(),
                moved.kind
            ),
            (
                "cam1",
                CameraEventKind::Covered,
                "cam0",
                CameraEventKind::Moved
            )
        );
        assert_eq!(moved.device, b.id);
        assert_eq!(moved.device_name, "Bench");
        assert_eq!(moved.organization, w.a);
        assert_eq!(moved.state, TamperingState::Open);
        assert_eq!(moved.detail.as_deref(), Some("moved said"));
        assert!(moved.ended_at.is_none() && moved.action.is_none());
        // The screenshot is the device's JPEG.
        let shot = app
            .client
            .get(format!(
                "{}/{}",
                app.base,
                moved
                    .screenshot
                    .as_deref()
                    .unwrap()
                    .trim_start_matches("/api/")
            ))
            .bearer_auth(&admin)
            .send()
            .await
            .unwrap();
        assert_eq!(shot.status(), StatusCode::OK);
        assert_eq!(shot.bytes().await.unwrap().as_ref(), JPEG);

        // A's people read A's; B's admin none of them, and not A's by asking.
        assert_eq!(list(&app, &w.eng, "").await.count, 2);
        assert_eq!(list(&app, &w.boss_b, "").await.count, 0);
        let (s, v) = app
            .get(
                &format!("telemetry/tampering_requests/?organization={}", w.a),
                &w.boss_b,
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
        assert_eq!(
            list(&app, &admin, &format!("?organization={}", w.b))
                .await
                .count,
            0
        );
        let (s, v) = app
            .get("telemetry/tampering_requests/?state=maybe", &admin)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(v, json!({"state": ["Choose open or resolved."]}));

        let path = |id: i64| format!("telemetry/tampering_requests/{id}/");
        let moved_path = path(moved.id);
        // B's admin cannot decide A's; a covered camera's view is not accepted; a
        // dismissal says why.
        let (s, v) = app
            .patch(
                &path(moved.id),
                json!({"action": "dismiss", "note": "x"}),
                Some(&w.boss_b),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND, "{v}");
        let (s, v) = app
            .patch(
                &path(covered.id),
                json!({"action": "accept_view"}),
                Some(&admin),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(
            v["action"][0]
                .as_str()
                .unwrap()
                .starts_with("Only a moved camera"),
            "{v}"
        );
        let (s, v) = app
            .patch(
                &path(covered.id),
                json!({"action": "dismiss", "note": "  "}),
                Some(&admin),
            )
            .await;
        assert_eq!(
            v,
            json!({"note": ["Say why the request is dismissed."]}),
            "{s}"
        );

        // The device refuses the new view: why, and the request stays open.
        let refused = app.patch(
            &moved_path,
            json!({"action": "accept_view", "note": "moved to line 3"}),
            Some(&admin),
        );
        let (camera, (s, v)) = tokio::join!(
            answer_rebaseline(&mut b.dev, false, "camera cam0: the camera is covered"),
            refused
        );
        assert_eq!(camera, "cam0");
        assert_eq!(s, StatusCode::BAD_GATEWAY, "{v}");
        assert_eq!(
            v["detail"],
            "Bench could not take the new view: camera cam0: the camera is covered"
        );
        assert_eq!(list(&app, &admin, "?state=open").await.count, 2);

        // Accepted: the device took it; who, when and why are kept; once only.
        let before = gemba_cloud::db::now_ms();
        let accepted = app.patch(
            &moved_path,
            json!({"action": "accept_view", "note": "moved to line 3"}),
            Some(&admin),
        );
        let (_, (s, v)) = tokio::join!(
            answer_rebaseline(
                &mut b.dev,
                true,
                "camera cam0: its view now is its reference"
            ),
            accepted
        );
        assert_eq!(s, StatusCode::OK, "{v}");
        let r: TamperingRequest = serde_json::from_value(v).unwrap();
        assert_eq!(
            (r.state, r.action, r.note.as_str(), r.reviewed_by.as_deref()),
            (
                TamperingState::Resolved,
                Some(TamperingAction::AcceptView),
                "moved to line 3",
                Some(ADMIN_EMAIL)
            )
        );
        assert!(r.reviewed_at.unwrap() >= before);
        let (s, v) = app
            .patch(
                &path(moved.id),
                json!({"action": "dismiss", "note": "again"}),
                Some(&admin),
            )
            .await;
        assert_eq!(s, StatusCode::CONFLICT, "{v}");
        assert_eq!(v["detail"], "This request was reviewed already.");

        // A's organisation admin dismisses the covered one.
        let (s, v) = app
            .patch(
                &path(covered.id),
                json!({"action": "dismiss", "note": "cover taken off"}),
                Some(&w.boss),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(list(&app, &admin, "?state=open").await.count, 0);
        let done = list(&app, &admin, "?state=resolved").await;
        assert_eq!(done.count, 2);
        assert!(
            done.results
                .iter()
                .all(|r| r.state == TamperingState::Resolved)
        );

        // The camera uncovered and put back: the events end, the reviews stay.
        b.dev.send_status(&with_faults(&[])).await;
        let p = list_when(&app, &admin, |p| {
            p.results.iter().all(|r| r.ended_at.is_some())
        })
        .await;
        assert_eq!(p.count, 2);
        assert!(p.results.iter().all(|r| r.action.is_some()));
    }
);
