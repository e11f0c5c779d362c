//! Drift on the station (issue 26): a device's status saying a camera's model is unsure
//! shows on the device's page with its figures, and becomes an event the page keeps
//! after the model is sure again (from when to when, on the cloud's clock). Statuses
//! from an agent without drift figures read as before.

use std::time::Duration;

use gemba_shared::api::v1::Page;
use gemba_shared::api::v1::device::{AdminDevice, CameraEventKind, DeviceDetails, DeviceEvent};
use gemba_shared::mqtt::v1::{self, Channel};
use reqwest::StatusCode;

use crate::both;
use crate::common::*;
use crate::devices::{TestDevice, enrolled, world};

/// cam0 running, unsure since `since` (the device's clock) or sure; cam1 running, sure.
fn status(ts_ms: i64, since: Option<i64>) -> v1::StatusMessage {
    let camera = |name: &str, since: Option<i64>| v1::CameraStatus {
        camera: name.into(),
        task: Some(1),
        fps: 15.0,
        state: v1::CameraState::Running,
        unsure_share: Some(if since.is_some() { 0.8 } else { 0.05 }),
        brightness: Some(if since.is_some() { 6.0 } else { 120.0 }),
        unsure_since_ms: since,
        sure_share: Some(0.02),
        sure_brightness: Some(121.5),
        ..v1::CameraStatus::default()
    };
    v1::StatusMessage {
        v: 1,
        online: true,
        ts_ms,
        agent_version: "test".into(),
        cameras: vec![camera("cam0", since), camera("cam1", None)],
        outbox: 0,
        disk_free_mb: None,
        temperature_c: None,
        config_version: 0,
        target: String::new(),
        updatable: false,
        update: None,
        faults: vec![],
    }
}

/// The device's page once `ok` holds (within 5 s). (The page reads the device, then
/// its events: a status may land between the two reads, so a test waits for both.)
async fn page_when(
    app: &TestApp,
    id: i64,
    tok: &str,
    ok: impl Fn(&DeviceDetails) -> bool,
) -> DeviceDetails {
    let mut d = None;
    for _ in 0..200 {
        let v: DeviceDetails = app
            .get_as(&format!("device/{id}/device_details/"), tok)
            .await;
        if ok(&v) {
            return v;
        }
        d = Some(v);
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the device's page never showed it: {d:?}");
}

/// The first camera of the device's last status, if it sent one with a camera.
fn cam0(d: &DeviceDetails) -> Option<&v1::CameraStatus> {
    d.device.status.as_ref()?.cameras.first()
}

both!(
    an_unsure_camera_shows_on_the_device_page_and_stays_in_its_events,
    |app: TestApp| async move {
        let w = world(&app).await;
        let creds = enrolled(&app, &w.boss, "Bench").await;
        let id = creds.device;
        let dev = TestDevice::of(&creds).await;
        // The device's clock is an hour behind the cloud's.
        let skew = 3_600_000;
        let device_now = || gemba_cloud::db::now_ms() - skew;

        // Sure: figures on the page, no event.
        dev.send_status(&status(device_now(), None)).await;
        let d = page_when(&app, id, &w.eng, |d| d.device.online).await;
        let c = cam0(&d).unwrap();
        assert_eq!(c.unsure_share, Some(0.05), "{d:?}");
        assert_eq!(c.brightness, Some(120.0));
        assert!(c.unsure_since_ms.is_none(), "{c:?}");
        assert!(d.camera_events.is_empty(), "{d:?}");

        // cam0's model unsure since a minute ago (device clock): one open event, started
        // a minute ago on the cloud's clock, with the figures then and when it was sure.
        let since = device_now() - 60_000;
        let before = gemba_cloud::db::now_ms();
        dev.send_status(&status(device_now(), Some(since))).await;
        dev.send_status(&status(device_now(), Some(since))).await;
        let d = page_when(&app, id, &w.eng, |d| {
            cam0(d).is_some_and(|c| c.unsure_since_ms.is_some()) && !d.camera_events.is_empty()
        })
        .await;
        let c = cam0(&d).unwrap();
        assert_eq!(c.unsure_since_ms, Some(since), "{d:?}");
        assert_eq!(c.sure_brightness, Some(121.5));
        let events = &d.camera_events;
        assert_eq!(
            events.len(),
            1,
            "a repeated status is the same event: {d:?}"
        );
        let e = &events[0];
        assert_eq!(
            (e.camera.as_str(), e.kind),
            ("cam0", CameraEventKind::Unsure)
        );
        let started = e.started_at;
        assert!(
            (before - 62_000..=before - 58_000).contains(&started),
            "started {} s before the status",
            (before - started) / 1000
        );
        assert_eq!(e.ended_at, None);
        assert_eq!((e.brightness, e.sure_brightness), (Some(6.0), Some(121.5)));
        assert_eq!(e.unsure_share, Some(0.8));

        // Sure again: the event ends, and stays on the page.
        dev.send_status(&status(device_now(), None)).await;
        let sure = |d: &DeviceDetails| cam0(d).is_none_or(|c| c.unsure_since_ms.is_none());
        let last_ended = |d: &DeviceDetails| d.camera_events.first().and_then(|e| e.ended_at);
        let d = page_when(&app, id, &w.eng, |d| sure(d) && last_ended(d).is_some()).await;
        let ended = last_ended(&d).unwrap();
        assert!(ended >= before && ended > started, "{d:?}");
        assert!(sure(&d));

        // Unsure again later: a second event, newest first; the device going offline
        // (its last will) ends it.
        let again = device_now();
        dev.send_status(&status(device_now(), Some(again))).await;
        let d = page_when(&app, id, &w.eng, |d| d.camera_events.len() == 2).await;
        assert!(d.camera_events[0].ended_at.is_none(), "{d:?}");
        assert_eq!(d.camera_events[1].ended_at, Some(ended));
        let will = v1::StatusMessage {
            online: false,
            ts_ms: 0,
            cameras: vec![],
            ..status(0, None)
        };
        dev.send_status(&will).await;
        page_when(&app, id, &w.eng, |d| {
            !d.device.online && last_ended(d).is_some()
        })
        .await;

        // Another organisation does not see the device, nor its events.
        let (s, _) = app
            .get(&format!("device/{id}/device_details/"), &w.boss_b)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);

        // An agent without drift figures: its status reads, its cameras carry none.
        let old = serde_json::json!({"v": 1, "online": true, "ts_ms": device_now(),
            "agent_version": "0.1", "cameras": [{"camera": "cam0", "task": null, "fps": 0.0,
            "model_version": null, "state": "idle"}]});
        dev.publish(
            dev.topic(Channel::Status),
            v1::sign_json(&dev.key, &dev.kid, old.to_string().as_bytes()).unwrap(),
        )
        .await;
        let d = page_when(&app, id, &w.eng, |d| {
            d.device
                .status
                .as_ref()
                .is_some_and(|s| s.agent_version == "0.1")
        })
        .await;
        assert!(cam0(&d).is_none_or(|c| c.unsure_share.is_none()), "{d:?}");
        assert_eq!(d.camera_events.len(), 2);
    }
);

/// A running camera `cam0` with `faults`, and the device's own `device_faults`.
fn faulty(ts_ms: i64, cam0: Vec<v1::Fault>, device_faults: Vec<v1::Fault>) -> v1::StatusMessage {
    let mut s = status(ts_ms, None);
    s.cameras[0].faults = cam0;
    s.faults = device_faults;
    s
}

fn fault(kind: CameraEventKind, since_ms: i64, detail: &str) -> v1::Fault {
    v1::Fault {
        kind,
        since_ms,
        detail: Some(detail.into()),
    }
}

both!(
    open_events_are_all_devices_health_and_the_issue_center_lists_the_orgs_events,
    |app: TestApp| async move {
        let w = world(&app).await;
        let sick = enrolled(&app, &w.boss, "Sick").await;
        let well = enrolled(&app, &w.boss, "Well").await;
        let other = enrolled(&app, &w.boss_b, "B's").await;
        let (dev, dev_b) = (TestDevice::of(&sick).await, TestDevice::of(&other).await);
        let now = gemba_cloud::db::now_ms;
        let offline = fault(
            CameraEventKind::Offline,
            now() - 60_000,
            "Could not open resource",
        );
        let disk = fault(CameraEventKind::DiskLow, now() - 30_000, "2% free");
        dev.send_status(&faulty(now(), vec![offline.clone()], vec![disk.clone()]))
            .await;
        dev_b
            .send_status(&faulty(
                now(),
                vec![fault(CameraEventKind::Frozen, now(), "still")],
                vec![],
            ))
            .await;
        page_when(&app, sick.device, &w.eng, |d| d.camera_events.len() == 2).await;
        page_when(&app, other.device, &w.boss_b, |d| {
            d.camera_events.len() == 1
        })
        .await;

        // All Devices: the sick device's open events, oldest first; none for the other.
        let all: Page<AdminDevice> = app
            .get_as("device/devicelistadminview?page=1", &w.admin)
            .await;
        let health = |id: i64| {
            all.results
                .iter()
                .find(|d| d.device.id == id)
                .map(|d| {
                    d.health
                        .iter()
                        .map(|e| (e.camera.clone(), e.kind, e.ended_at))
                        .collect::<Vec<_>>()
                })
                .unwrap()
        };
        assert_eq!(
            health(sick.device),
            vec![
                ("cam0".to_string(), CameraEventKind::Offline, None),
                (String::new(), CameraEventKind::DiskLow, None)
            ],
            "{all:?}"
        );
        assert_eq!(health(well.device), vec![], "{all:?}");
        assert_eq!(health(other.device).len(), 1, "{all:?}");

        // The camera comes back: its event ends; the Issue Center lists the open one
        // first, and never another organisation's.
        dev.send_status(&faulty(now(), vec![], vec![disk])).await;
        page_when(&app, sick.device, &w.eng, |d| {
            d.camera_events.iter().any(|e| e.ended_at.is_some())
        })
        .await;
        let day = chrono::Utc::now().date_naive();
        let range = format!(
            "datetime_start={}&datetime_end={}",
            day.pred_opt().unwrap(),
            day.succ_opt().unwrap()
        );
        let listed: Vec<DeviceEvent> = app
            .get_as(&format!("telemetry/device_events?{range}"), &w.analyst)
            .await;
        let seen: Vec<_> = listed
            .iter()
            .map(|e| {
                (
                    e.device,
                    e.device_name.as_str(),
                    e.event.kind,
                    e.event.ended_at.is_some(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            vec![
                (sick.device, "Sick", CameraEventKind::DiskLow, false),
                (sick.device, "Sick", CameraEventKind::Offline, true),
            ],
            "{listed:?}"
        );
        assert_eq!(
            listed[1].event.detail.as_deref(),
            Some("Could not open resource")
        );
        // One device's; none of another organisation's, which is refused as unknown.
        let one: Vec<DeviceEvent> = app
            .get_as(
                &format!("telemetry/device_events?{range}&device={}", well.device),
                &w.eng,
            )
            .await;
        assert!(one.is_empty(), "{one:?}");
        let (s, _) = app
            .get(
                &format!("telemetry/device_events?{range}&device={}", other.device),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        // A range before the events: nothing.
        let before: Vec<DeviceEvent> = app
            .get_as(
                "telemetry/device_events?datetime_start=2020-01-01&datetime_end=2020-01-02",
                &w.eng,
            )
            .await;
        assert!(before.is_empty(), "{before:?}");
    }
);
