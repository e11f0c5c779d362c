//! What a device's cameras do against what the portal set (issue 25): a refused start
//! is an answer (shown, and asked again only after a back-off or a change), a status
//! older than the last command is not acted on, and a stop never stops a newer start.
//! The test device answers as the real agent does: its status (on one path) before its
//! acknowledgement (through its outbox).

use std::time::{Duration, Instant};

use gemba_shared::api::v1::device::{Device, DeviceCommand, DeviceDetails, DeviceTask, StopTask};
use gemba_shared::api::v1::task::{Task, TaskCreate};
use gemba_shared::mqtt::v1::{self, Channel};
use reqwest::Method;

use crate::common::*;
use crate::devices::{TestDevice, enrolled, start_task, world};
use crate::{both, both_with};

fn status(cameras: &[(&str, Option<i64>)]) -> v1::StatusMessage {
    v1::StatusMessage {
        v: 1,
        online: true,
        ts_ms: 1,
        agent_version: "test".into(),
        cameras: cameras
            .iter()
            .map(|(c, t)| v1::CameraStatus {
                camera: (*c).into(),
                task: *t,
                state: if t.is_some() {
                    v1::CameraState::Running
                } else {
                    v1::CameraState::Idle
                },
                ..v1::CameraStatus::default()
            })
            .collect(),
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

/// The next command within `wait`, if any.
async fn command_within(dev: &mut TestDevice, wait: Duration) -> Option<v1::CommandMessage> {
    tokio::time::timeout(wait, dev.next(Channel::Cmd))
        .await
        .ok()
}

async fn device(app: &TestApp, id: i64, tok: &str) -> DeviceDetails {
    app.get_as(&format!("device/{id}/device_details/"), tok)
        .await
}

/// Waits until the cloud has the device `online` (its status read).
async fn online(app: &TestApp, id: i64, tok: &str, online: bool) {
    for _ in 0..200 {
        if device(app, id, tok).await.device.online == online {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("device {id} never became online = {online}");
}

both_with!(
    a_refused_start_is_an_answer_not_a_storm,
    |s: &mut gemba_cloud::config::Settings| s.reconcile_retry_ms = 2_000,
    |app: TestApp| async move {
        let w = world(&app).await;
        let creds = enrolled(&app, &w.boss, "Bench").await;
        let id = creds.device;
        let mut dev = TestDevice::of(&creds).await;
        let has_cam0 = status(&[("cam0", None)]);
        dev.send_status(&has_cam0).await;
        // The portal sets a task on a camera the device does not have.
        start_task(&app, id, &w.eng, "cam9", w.task).await;
        // For 7 s the device answers every command as the agent does (status first,
        // then the refusal) and sends a heartbeat every 200 ms.
        let why = "this device has no camera cam9";
        let mut starts = vec![];
        let end = Instant::now() + Duration::from_secs(7);
        while Instant::now() < end {
            if let Some(cmd) = command_within(&mut dev, Duration::from_millis(200)).await {
                assert!(
                    matches!(&cmd.command, v1::Command::StartTask { camera, .. } if camera == "cam9"),
                    "{cmd:?}"
                );
                starts.push(Instant::now());
                dev.send_status(&has_cam0).await;
                dev.ack(&cmd.id, false, why).await;
            }
            dev.send_status(&has_cam0).await;
        }
        // Asked at 0 s, then after the back-off (2 s, then 4 s more): 3, not hundreds.
        assert!(
            (2..=4).contains(&starts.len()),
            "{} starts in 7 s",
            starts.len()
        );
        let cmds: Vec<DeviceCommand> = app.get_as(&format!("device/{id}/commands/"), &w.eng).await;
        assert_eq!(cmds.len(), starts.len(), "{cmds:?}");
        // The camera's state says why, on the device and in its camera tasks.
        let d = device(&app, id, &w.eng).await;
        let refused = &d.device.tasks[0];
        assert_eq!(refused.refused.as_deref(), Some(why), "{d:?}");
        assert!(refused.refused_at.unwrap() > 0);
        let t: Vec<DeviceTask> = app
            .get_as(&format!("device/get_device_tasks/{id}"), &w.eng)
            .await;
        assert_eq!(t[0].refused.as_deref(), Some(why), "{t:?}");

        // A model deployed to the device may be what the start lacked: asked again at
        // once, no wait.
        let deploy = v1::Command::Deploy {
            task: w.task,
            version: "v2".into(),
            url: format!("{}/none", app.base),
            sha256: "0".repeat(64),
            size_bytes: 1,
        };
        app.state
            .mqtt
            .command(&app.state.db, w.a, id, deploy)
            .await
            .unwrap();
        let cmd = dev.next::<v1::CommandMessage>(Channel::Cmd).await;
        assert!(matches!(cmd.command, v1::Command::Deploy { .. }), "{cmd:?}");
        dev.ack(&cmd.id, true, "model v2 installed for task").await;
        let cmd = command_within(&mut dev, Duration::from_secs(2))
            .await
            .expect("asked again once a model was deployed");
        assert!(
            matches!(&cmd.command, v1::Command::StartTask { camera, .. } if camera == "cam9"),
            "{cmd:?}"
        );
        dev.send_status(&has_cam0).await;
        dev.ack(&cmd.id, false, why).await;
        assert!(
            command_within(&mut dev, Duration::from_millis(500))
                .await
                .is_none()
        );

        // Something changes (the device now has cam9): asked again at once, no wait.
        let both_cams = status(&[("cam0", None), ("cam9", None)]);
        dev.send_status(&both_cams).await;
        let cmd = command_within(&mut dev, Duration::from_secs(1))
            .await
            .expect("asked again when its cameras changed");
        dev.ack(&cmd.id, true, "task runs on camera cam9").await;
        dev.send_status(&status(&[("cam0", None), ("cam9", Some(w.task))]))
            .await;
        // The camera's task, once its refusal is cleared (it must clear).
        let mut cleared = None;
        for _ in 0..100 {
            let d = device(&app, id, &w.eng).await;
            if let Some(t) = d.device.tasks.first()
                && t.refused.is_none()
            {
                cleared = Some(t.clone());
                break;
            }
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
        let cleared = cleared.expect("the refusal was never cleared");
        assert_eq!(cleared.refused_at, None, "{cleared:?}");
        assert!(
            command_within(&mut dev, Duration::from_millis(400))
                .await
                .is_none()
        );
    }
);

both!(
    a_stale_status_never_stops_a_newer_start,
    |app: TestApp| async move {
        let w = world(&app).await;
        let valve = TaskCreate {
            task_detail: Some("Valve\nFit:\nPlace;\nCheck:\nLook;\n".into()),
            ..TaskCreate::default()
        };
        let t: Task = app.create_as("organization/task/", &valve, &w.eng).await;
        let (a, b) = (w.task, t.id);
        let creds = enrolled(&app, &w.boss, "Bench").await;
        let id = creds.device;
        let mut dev = TestDevice::of(&creds).await;
        dev.send_status(&status(&[("cam0", None)])).await;
        online(&app, id, &w.eng, true).await;
        let start = |task: i64| start_task(&app, id, &w.eng, "cam0", task);
        let generation = |c: &v1::CommandMessage| match &c.command {
            v1::Command::StartTask { generation, .. } => *generation,
            other => panic!("{other:?}"),
        };
        // cam0 runs A.
        start(a).await;
        let first = dev.next::<v1::CommandMessage>(Channel::Cmd).await;
        dev.ack(&first.id, true, "started").await;
        dev.send_status(&status(&[("cam0", Some(a))])).await;
        // The device goes away; meanwhile the portal sets B (the command is lost).
        dev.send_status(&v1::StatusMessage {
            online: false,
            ..status(&[])
        })
        .await;
        online(&app, id, &w.eng, false).await;
        start(b).await;
        // (The reconcile of the device's first status may have raced the portal's start
        // and sent start A again: the same command, which the device takes as done.)
        let mut lost = dev.next::<v1::CommandMessage>(Channel::Cmd).await;
        while lost.command == first.command {
            lost = dev.next::<v1::CommandMessage>(Channel::Cmd).await;
        }
        assert!(
            generation(&lost) > generation(&first),
            "{first:?} then {lost:?}"
        );
        // Restarted, it says it runs A (what it ran before): told to start B, and not
        // also to stop cam0 (that stop would land after the start and stop B).
        dev.send_status(&status(&[("cam0", Some(a))])).await;
        let cmd = dev.next::<v1::CommandMessage>(Channel::Cmd).await;
        assert!(
            matches!(&cmd.command, v1::Command::StartTask { task, .. } if *task == b),
            "{cmd:?}"
        );
        assert_eq!(generation(&cmd), generation(&lost));
        // A heartbeat sent before it carried the start out: not acted on.
        dev.send_status(&status(&[("cam0", Some(a))])).await;
        let none = command_within(&mut dev, Duration::from_millis(500)).await;
        assert!(none.is_none(), "{none:?}");
        dev.ack(&cmd.id, true, "started").await;
        dev.send_status(&status(&[("cam0", Some(b))])).await;
        let none = command_within(&mut dev, Duration::from_millis(500)).await;
        assert!(none.is_none(), "{none:?}");
        // A stop from the portal names the task and the camera's generation.
        let _: Device = app
            .send_as(
                Method::POST,
                &format!("device/{id}/stop_task/"),
                &StopTask {
                    camera: "cam0".into(),
                },
                &w.eng,
            )
            .await;
        let stop = dev.next::<v1::CommandMessage>(Channel::Cmd).await;
        let v1::Command::StopTask {
            camera,
            task,
            generation: g,
        } = &stop.command
        else {
            panic!("{stop:?}")
        };
        assert_eq!((camera.as_str(), *task), ("cam0", Some(b)));
        assert!(*g > generation(&cmd), "{stop:?}");
    }
);
