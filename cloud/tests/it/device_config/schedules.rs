//! Schedules: added, changed and deleted, each sent to the device with the task's cycle
//! rules; a missing or inverted time range answers the spec's message, an overlap on a
//! camera's weekday is refused saying with what, and nothing is half-written; the
//! organisation's time zone (checked against the tz database) is the one they are read
//! in, and changing it, or a scheduled task, sends the devices their configuration.

use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::cameras::{DeviceSchedule, ScheduleCreate, SchedulePatch};
use gemba_shared::api::v1::organization::Organization;
use gemba_shared::api::v1::task::{Task, TaskCreate};
use reqwest::{Method, StatusCode};
use serde_json::json;

use super::{bench, next_config, version};
use crate::both;
use crate::common::*;

const TIME: &str = "Schedule time is not properly selected!";

both!(
    schedules_refuse_bad_times_and_overlaps_and_follow_the_time_zone,
    |app: TestApp| async move {
        let mut b = bench(&app).await;
        let (w, id) = (&b.w, b.id);
        let ask =
            |camera: &str, days: &[u8], start: Option<&str>, end: Option<&str>| ScheduleCreate {
                device: id,
                camera: camera.into(),
                task: w.task,
                days: days.to_vec(),
                start: start.map(Into::into),
                end: end.map(Into::into),
            };
        let weekdays = [0, 1, 2, 3, 4];
        let early: DeviceSchedule = app
            .create_as(
                "device/add_schedules",
                &ask("cam0", &[4, 0, 2, 1, 3], Some("06:00"), Some("14:00")),
                &w.eng,
            )
            .await;
        assert_eq!(early.days, weekdays, "kept in order");
        assert_eq!(
            (
                early.start.as_str(),
                early.end.as_str(),
                early.time_zone.as_str()
            ),
            ("06:00", "14:00", "UTC")
        );
        assert_eq!(early.task_name, "Pump");
        let (_, config) = next_config(&mut b.dev, &mut b.seen).await;
        assert_eq!(config.schedules.len(), 1);
        let s = &config.schedules[0];
        assert_eq!(
            (s.id, s.task, s.camera.as_str()),
            (early.id, w.task, "cam0")
        );
        assert_eq!(s.engine.steps, 2);
        // The late shift starts where the early one ends; the whole Saturday too.
        let late: DeviceSchedule = app
            .create_as(
                "device/add_schedules",
                &ask("cam0", &weekdays, Some("14:00"), Some("22:00")),
                &w.eng,
            )
            .await;
        let _ = next_config(&mut b.dev, &mut b.seen).await;
        let _: DeviceSchedule = app
            .create_as(
                "device/add_schedules",
                &ask("cam0", &[5], Some("00:00"), Some("24:00")),
                &w.eng,
            )
            .await;
        let _ = next_config(&mut b.dev, &mut b.seen).await;
        // Another camera at the same hours.
        let _: DeviceSchedule = app
            .create_as(
                "device/add_schedules",
                &ask("cam1", &weekdays, Some("06:00"), Some("14:00")),
                &w.eng,
            )
            .await;
        let _ = next_config(&mut b.dev, &mut b.seen).await;

        // Bad input: each refused, nothing written or sent.
        let before = version(&app, id).await;
        let mut foreign = ask("cam0", &[6], Some("06:00"), Some("07:00"));
        let theirs: Task = app
            .create_as(
                "organization/task/",
                &TaskCreate {
                    task_detail: Some("Theirs\nA:\nx;\n".into()),
                    ..TaskCreate::default()
                },
                &w.boss_b,
            )
            .await;
        foreign.task = theirs.id;
        for (body, field, says) in [
            (ask("cam0", &[6], None, Some("07:00")), "start", TIME),
            (ask("cam0", &[6], Some("06:00"), None), "start", TIME),
            (ask("cam0", &[6], Some(""), Some("")), "start", TIME),
            (
                ask("cam0", &[6], Some("09:00"), Some("08:00")),
                "start",
                TIME,
            ),
            (
                ask("cam0", &[6], Some("08:00"), Some("08:00")),
                "start",
                TIME,
            ),
            (ask("cam0", &[6], Some("8am"), Some("09:00")), "start", TIME),
            (
                ask("cam0", &[6], Some("23:00"), Some("24:30")),
                "start",
                TIME,
            ),
            (
                ask("cam0", &[4], Some("13:00"), Some("15:00")),
                "days",
                "This schedule overlaps another of camera cam0 (Mon, Tue, Wed, Thu, Fri 06:00–14:00).",
            ),
            (
                ask("cam0", &[5], Some("23:59"), Some("24:00")),
                "days",
                "This schedule overlaps another of camera cam0 (Sat 00:00–24:00).",
            ),
            (
                ask("cam0", &[], Some("06:00"), Some("07:00")),
                "days",
                "A schedule needs at least one weekday.",
            ),
            (
                ask("cam0", &[7], Some("06:00"), Some("07:00")),
                "days",
                "Weekday 7 is not 0 (Monday) to 6 (Sunday).",
            ),
            (
                ask("cam0", &[1, 1], Some("06:00"), Some("07:00")),
                "days",
                "Weekday 1 is given twice.",
            ),
            (
                ask("cam9", &[6], Some("06:00"), Some("07:00")),
                "camera",
                "Bench has no camera cam9.",
            ),
            (foreign, "task", "No such task."),
        ] {
            let (s, v) = app
                .send_refused(Method::POST, "device/add_schedules", &body, &w.eng)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body:?}: {v}");
            assert_eq!(v, json!({ field: [says] }), "{body:?}");
        }
        let list_path = format!("device/get_schedules?device={id}");
        let list: Vec<DeviceSchedule> = app.get_as(&list_path, &w.eng).await;
        assert_eq!(list.len(), 4);
        assert_eq!(version(&app, id).await, before);

        // Changed: moved earlier; a change into an overlap is refused and leaves it.
        let one = format!("device/schedules/{}", early.id);
        let patch = SchedulePatch {
            start: Some("05:00".into()),
            ..SchedulePatch::default()
        };
        let moved: DeviceSchedule = app.send_as(Method::PATCH, &one, &patch, &w.eng).await;
        assert_eq!(
            (moved.start.as_str(), moved.end.as_str()),
            ("05:00", "14:00")
        );
        let (_, config) = next_config(&mut b.dev, &mut b.seen).await;
        assert!(
            config
                .schedules
                .iter()
                .any(|s| s.id == early.id && s.start == "05:00")
        );
        let (s, v) = app
            .send_refused(Method::PATCH, &one, &json!({"end": "15:00"}), &w.eng)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(
            v["days"][0].as_str().unwrap().contains("14:00–22:00"),
            "{v}"
        );
        let (s, v) = app
            .send_refused(Method::PATCH, &one, &json!({"end": "04:00"}), &w.eng)
            .await;
        assert_eq!((s, v), (StatusCode::BAD_REQUEST, json!({"start": [TIME]})));
        let still: Vec<DeviceSchedule> = app.get_as(&list_path, &w.eng).await;
        assert!(still.iter().any(|s| s.id == early.id && s.end == "14:00"));

        // Roles and tenancy.
        let (s, _) = app
            .send_refused(Method::GET, &list_path, &(), &w.analyst)
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        for (m, p) in [
            (Method::GET, list_path.clone()),
            (Method::PATCH, one.clone()),
            (Method::DELETE, one.clone()),
            (Method::DELETE, "device/schedules/999999999".into()),
        ] {
            let (s, v) = app.send_refused(m.clone(), &p, &json!({}), &w.boss_b).await;
            assert_eq!(s, StatusCode::NOT_FOUND, "{m} {p}: {v}");
        }
        let (s, _) = app
            .send_refused(
                Method::POST,
                "device/add_schedules",
                &ask("cam0", &[6], Some("06:00"), Some("07:00")),
                &w.boss_b,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);

        // The organisation's time zone: a real one only; its change reaches the device.
        let org = format!("organization/{}/", w.a);
        for tz in ["Mars/Olympus", "europe/berlin", "", "UTC+2"] {
            let (s, v) = app
                .send_refused(Method::PATCH, &org, &json!({"time_zone": tz}), &w.admin)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{tz}: {v}");
            assert!(
                v["time_zone"][0].as_str().unwrap().contains("tz database"),
                "{v}"
            );
        }
        let o: Organization = app
            .send_as(
                Method::PATCH,
                &org,
                &json!({"time_zone": "Europe/Berlin"}),
                &w.admin,
            )
            .await;
        assert_eq!(o.time_zone, "Europe/Berlin");
        let (_, config) = next_config(&mut b.dev, &mut b.seen).await;
        assert_eq!(config.time_zone, "Europe/Berlin");
        let list: Vec<DeviceSchedule> = app.get_as(&list_path, &w.eng).await;
        assert!(list.iter().all(|s| s.time_zone == "Europe/Berlin"));

        // A change to the scheduled task's cycle rules reaches the device.
        let _: Task = app
            .send_as(
                Method::PATCH,
                &format!("organization/task/{}/", w.task),
                &json!({"task_detail": "Pump\nFit:\nPlace;\nCheck:\nLook;\nSeal:\nPress;\n"}),
                &w.eng,
            )
            .await;
        let (_, config) = next_config(&mut b.dev, &mut b.seen).await;
        assert!(config.schedules.iter().all(|s| s.engine.steps == 3));

        // Deleted: the device stops following it.
        let m: Msg = app
            .send_as(
                Method::DELETE,
                &format!("device/schedules/{}", late.id),
                &(),
                &w.eng,
            )
            .await;
        assert_eq!(m.msg, "Data deleted successfully!");
        let (_, config) = next_config(&mut b.dev, &mut b.seen).await;
        assert!(!config.schedules.iter().any(|s| s.id == late.id));
        assert_eq!(config.schedules.len(), 3);
    }
);
